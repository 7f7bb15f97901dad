//! The `.fbs` grammar flatc accepts, into raw declarations (names not yet resolved): includes, namespaces,
//! enums, unions, structs, tables, attributes, root_type, file_identifier, file_extension; `rpc_service`
//! blocks are parsed and dropped. Includes are read breadth-first from a queue (no recursion), each file
//! once. Every loop consumes a token, so the work is linear in the text.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::lexer::{Tok, Token, tokenize};
use crate::error::{Error, ErrorKind, Result};

/// Most files one schema may include (directly or not).
const MAX_FILES: usize = 1024;
/// Most components of a namespace or qualified name.
pub(super) const MAX_NAME_PARTS: usize = 64;
/// Largest schema file read.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where a declaration was written, for errors.
#[derive(Debug, Clone)]
pub(super) struct Pos {
    pub(super) file: std::rc::Rc<str>,
    pub(super) line: u32,
    pub(super) col: u32,
}

impl Pos {
    pub(super) fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::new(ErrorKind::InvalidSchema, format!("{}:{}:{}: {msg}", self.file, self.line, self.col))
    }
}

/// A type as written.
#[derive(Debug, Clone)]
pub(super) enum RawType {
    Named(String),
    Vector(Box<RawType>),
    Array(Box<RawType>, String),
}

/// `(name: value, …)`.
pub(super) type Attrs = Vec<(String, Option<String>, Pos)>;

#[derive(Debug)]
pub(super) struct RawField {
    pub(super) name: String,
    pub(super) ty: RawType,
    pub(super) default: Option<String>,
    pub(super) attrs: Attrs,
    pub(super) pos: Pos,
}

#[derive(Debug)]
pub(super) struct RawObject {
    pub(super) name: String,
    pub(super) ns: String,
    pub(super) is_struct: bool,
    pub(super) fields: Vec<RawField>,
    pub(super) attrs: Attrs,
    pub(super) pos: Pos,
}

#[derive(Debug)]
pub(super) struct RawEnumVal {
    pub(super) name: String,
    /// A union member's type when it has an alias (`Alias: Type`), else the name is the type.
    pub(super) ty: Option<String>,
    pub(super) value: Option<String>,
    pub(super) pos: Pos,
}

#[derive(Debug)]
pub(super) struct RawEnum {
    pub(super) name: String,
    pub(super) ns: String,
    pub(super) is_union: bool,
    pub(super) underlying: Option<String>,
    pub(super) values: Vec<RawEnumVal>,
    pub(super) attrs: Attrs,
    pub(super) pos: Pos,
}

/// Everything declared by the files of one schema.
#[derive(Debug, Default)]
pub(super) struct Raw {
    pub(super) objects: Vec<RawObject>,
    pub(super) enums: Vec<RawEnum>,
    /// (name, namespace, position, whether in the main file).
    pub(super) roots: Vec<(String, String, Pos, bool)>,
    pub(super) file_identifier: Option<(String, Pos, bool)>,
    pub(super) file_extension: Option<(String, bool)>,
    pub(super) attributes: Vec<String>,
    pub(super) files: Vec<PathBuf>,
}

/// Parses the schema file at `path` and every file it includes into one [`Raw`] (names not yet
/// resolved).
pub(super) fn parse_files(path: &Path, include_dirs: &[PathBuf]) -> Result<Raw> {
    let mut raw = Raw::default();
    let text = read_text(path)?;
    let includes = parse_into(&mut raw, &path.display().to_string(), &text, true)?;
    raw.files.push(path.to_path_buf());
    let mut seen: HashSet<PathBuf> = HashSet::from([canonical(path)]);
    follow_includes(&mut raw, path, includes, include_dirs, &mut seen)?;
    Ok(raw)
}

/// Text without a file: its includes are resolved relative to the current directory.
pub(super) fn parse_text(name: &str, text: &str) -> Result<Raw> {
    let mut raw = Raw::default();
    let includes = parse_into(&mut raw, name, text, true)?;
    let mut seen = HashSet::new();
    follow_includes(&mut raw, Path::new(name), includes, &[], &mut seen)?;
    Ok(raw)
}

/// Reads the included files breadth-first from a queue (no recursion), each once: `from`'s includes,
/// then theirs.
fn follow_includes(
    raw: &mut Raw,
    from: &Path,
    includes: Vec<(String, Pos)>,
    include_dirs: &[PathBuf],
    seen: &mut HashSet<PathBuf>,
) -> Result<()> {
    let mut queue: std::collections::VecDeque<(PathBuf, Vec<(String, Pos)>)> = Default::default();
    queue.push_back((from.to_path_buf(), includes));
    while let Some((file, includes)) = queue.pop_front() {
        for (inc, pos) in includes {
            let found = find_include(&file, &inc, include_dirs).ok_or_else(|| {
                pos.error(format!("include {inc:?} not found (next to the file or in the include directories)"))
            })?;
            if !seen.insert(canonical(&found)) {
                continue;
            }
            if seen.len() > MAX_FILES {
                return Err(pos.error(format!("more than {MAX_FILES} included files")));
            }
            let text = read_text(&found)?;
            let next = parse_into(raw, &found.display().to_string(), &text, false)?;
            raw.files.push(found.clone());
            queue.push_back((found, next));
        }
    }
    Ok(())
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn read_text(path: &Path) -> Result<String> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io, format!("{}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!("{}: {} bytes, more than a schema may have ({MAX_FILE_BYTES})", path.display(), meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    String::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorKind::InvalidSchema, format!("{}: not UTF-8: {e}", path.display())))
}

/// The included file: next to the including file, then in each include directory, then as given.
fn find_include(from: &Path, inc: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let beside = from.parent().map(|d| d.join(inc));
    beside
        .into_iter()
        .chain(dirs.iter().map(|d| d.join(inc)))
        .chain(std::iter::once(PathBuf::from(inc)))
        .find(|p| p.is_file())
}

/// Parses one file's text into `raw`; returns its includes.
fn parse_into(raw: &mut Raw, file: &str, text: &str, main: bool) -> Result<Vec<(String, Pos)>> {
    let toks = tokenize(file, text)?;
    let mut p = Parser { toks, i: 0, file: std::rc::Rc::from(file), ns: String::new() };
    let mut includes = Vec::new();
    loop {
        let pos = p.pos();
        match p.peek().clone() {
            Tok::End => break,
            Tok::Ident(kw) => {
                p.i += 1;
                match kw.as_str() {
                    "include" | "native_include" => {
                        let name = p.string()?;
                        p.expect(';')?;
                        if kw == "include" {
                            includes.push((name, pos));
                        }
                    }
                    "namespace" => {
                        p.ns = if p.eat(';') {
                            String::new()
                        } else {
                            let ns = p.dotted()?;
                            p.expect(';')?;
                            ns
                        };
                    }
                    "attribute" => {
                        let name = match p.peek().clone() {
                            Tok::Str(s) | Tok::Ident(s) => {
                                p.i += 1;
                                s
                            }
                            _ => return Err(p.unexpected("an attribute name")),
                        };
                        p.expect(';')?;
                        raw.attributes.push(name);
                    }
                    "root_type" => {
                        let name = p.dotted()?;
                        p.expect(';')?;
                        raw.roots.push((name, p.ns.clone(), pos, main));
                    }
                    "file_identifier" => {
                        let id = p.string()?;
                        p.expect(';')?;
                        if id.len() != 4 {
                            return Err(pos.error(format!("file_identifier must be exactly 4 bytes, got {id:?}")));
                        }
                        if main || raw.file_identifier.is_none() {
                            raw.file_identifier = Some((id, pos, main));
                        }
                    }
                    "file_extension" => {
                        let ext = p.string()?;
                        p.expect(';')?;
                        if main || raw.file_extension.is_none() {
                            raw.file_extension = Some((ext, main));
                        }
                    }
                    "table" | "struct" => {
                        let name = p.ident()?;
                        let attrs = p.attrs()?;
                        p.expect('{')?;
                        let mut fields = Vec::new();
                        while !p.eat('}') {
                            fields.push(p.field()?);
                        }
                        let full = qualify(&p.ns, &name);
                        raw.objects.push(RawObject {
                            name: full,
                            ns: p.ns.clone(),
                            is_struct: kw == "struct",
                            fields,
                            attrs,
                            pos,
                        });
                    }
                    "enum" | "union" => {
                        let name = p.ident()?;
                        let underlying = if kw == "enum" {
                            if !p.eat(':') {
                                return Err(p.unexpected("`:` and the enum's underlying type"));
                            }
                            Some(p.ident()?)
                        } else {
                            None
                        };
                        let attrs = p.attrs()?;
                        p.expect('{')?;
                        let mut values = Vec::new();
                        while !p.eat('}') {
                            let vpos = p.pos();
                            let mut vname = p.dotted()?;
                            let mut ty = None;
                            if kw == "union" && p.eat(':') {
                                ty = Some(p.dotted()?);
                            } else if kw == "enum" && vname.contains('.') {
                                return Err(vpos.error(format!("enum value name {vname:?} has a dot")));
                            }
                            if kw == "union" && ty.is_none() {
                                // An unaliased member is named after its type, dots made underscores (as flatc).
                                ty = Some(vname.clone());
                                vname = vname.replace('.', "_");
                            }
                            let value = if p.eat('=') { Some(p.literal()?) } else { None };
                            let _ = p.attrs()?;
                            values.push(RawEnumVal { name: vname, ty, value, pos: vpos });
                            if !p.eat(',') {
                                p.expect('}')?;
                                break;
                            }
                        }
                        raw.enums.push(RawEnum {
                            name: qualify(&p.ns, &name),
                            ns: p.ns.clone(),
                            is_union: kw == "union",
                            underlying,
                            values,
                            attrs,
                            pos,
                        });
                    }
                    "rpc_service" => {
                        let _ = p.ident()?;
                        p.expect('{')?;
                        while !p.eat('}') {
                            let _ = p.ident()?;
                            p.expect('(')?;
                            let _ = p.dotted()?;
                            p.expect(')')?;
                            p.expect(':')?;
                            let _ = p.dotted()?;
                            let _ = p.attrs()?;
                            p.expect(';')?;
                        }
                    }
                    _ => return Err(pos.error(format!("unexpected {kw:?}: expected a declaration"))),
                }
            }
            Tok::Punct('{') => return Err(pos.error("JSON data inside a schema is not supported")),
            Tok::Punct(';') => p.i += 1,
            _ => return Err(p.unexpected("a declaration")),
        }
    }
    Ok(includes)
}

fn qualify(ns: &str, name: &str) -> String {
    if ns.is_empty() { name.to_owned() } else { format!("{ns}.{name}") }
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    file: std::rc::Rc<str>,
    ns: String,
}

impl Parser {
    fn peek(&self) -> &Tok {
        // The token list always ends with `End`, which is never consumed.
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        let t = &self.toks[self.i.min(self.toks.len() - 1)];
        Pos { file: self.file.clone(), line: t.line, col: t.col }
    }

    fn unexpected(&self, what: &str) -> Error {
        let found = match self.peek() {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(s) => format!("number {s}"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::End => "the end of the file".to_owned(),
        };
        self.pos().error(format!("expected {what}, found {found}"))
    }

    fn eat(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) { Ok(()) } else { Err(self.unexpected(&format!("`{c}`"))) }
    }

    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Tok::Ident(s) if !s.starts_with(['-', '+']) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    /// `a.b.c`.
    fn dotted(&mut self) -> Result<String> {
        let pos = self.pos();
        let mut name = self.ident()?;
        let mut parts = 1;
        while self.eat('.') {
            parts += 1;
            if parts > MAX_NAME_PARTS {
                return Err(pos.error(format!("a name of more than {MAX_NAME_PARTS} parts")));
            }
            name.push('.');
            name.push_str(&self.ident()?);
        }
        Ok(name)
    }

    fn string(&mut self) -> Result<String> {
        match self.peek() {
            Tok::Str(s) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => Err(self.unexpected("a string")),
        }
    }

    /// A number, identifier (enum value, `true`, `nan`, `-inf`, dotted names) or string.
    fn literal(&mut self) -> Result<String> {
        match self.peek().clone() {
            Tok::Num(s) | Tok::Str(s) => {
                self.i += 1;
                Ok(s)
            }
            Tok::Ident(_) => self.dotted_or_signed(),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn dotted_or_signed(&mut self) -> Result<String> {
        if let Tok::Ident(s) = self.peek() {
            if s.starts_with(['-', '+']) {
                let s = s.clone();
                self.i += 1;
                return Ok(s);
            }
        }
        self.dotted()
    }

    /// `(name, name: value, …)` or nothing.
    fn attrs(&mut self) -> Result<Attrs> {
        let mut out = Vec::new();
        if !self.eat('(') {
            return Ok(out);
        }
        loop {
            let pos = self.pos();
            let name = match self.peek().clone() {
                Tok::Ident(s) | Tok::Str(s) => {
                    self.i += 1;
                    s
                }
                _ => return Err(self.unexpected("an attribute name")),
            };
            let value = if self.eat(':') { Some(self.literal()?) } else { None };
            out.push((name, value, pos));
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(out);
            }
        }
    }

    fn ty(&mut self) -> Result<RawType> {
        if self.eat('[') {
            let inner = if self.eat('[') {
                return Err(self.pos().error("vectors of vectors are not allowed (wrap the inner one in a table)"));
            } else {
                self.dotted()?
            };
            let inner = RawType::Named(inner);
            if self.eat(':') {
                let n = match self.peek().clone() {
                    Tok::Num(n) => {
                        self.i += 1;
                        n
                    }
                    _ => return Err(self.unexpected("the array length")),
                };
                self.expect(']')?;
                return Ok(RawType::Array(Box::new(inner), n));
            }
            self.expect(']')?;
            return Ok(RawType::Vector(Box::new(inner)));
        }
        Ok(RawType::Named(self.dotted()?))
    }

    fn field(&mut self) -> Result<RawField> {
        let pos = self.pos();
        let name = self.ident()?;
        self.expect(':')?;
        let ty = self.ty()?;
        let default = if self.eat('=') {
            if self.eat('[') {
                // `= []`: an empty vector default (flatc accepts it for vectors).
                self.expect(']')?;
                Some("[]".to_owned())
            } else {
                Some(self.literal()?)
            }
        } else {
            None
        };
        let attrs = self.attrs()?;
        self.expect(';')?;
        Ok(RawField { name, ty, default, attrs, pos })
    }
}
