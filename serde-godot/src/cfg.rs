//! Godot's ConfigFile text (`.cfg`, `override.cfg`, `project.godot`, `export_presets.cfg`): sections
//! of `key=value` lines, the values in Godot's [text form](crate::text), read into serde types and
//! written back as `ConfigFile.save()` writes them.
//!
//! ```
//! use std::collections::BTreeMap;
//! use serde::{Deserialize, Serialize};
//! use serde_godot::{Variant, Vector2};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Player { name: String, position: Vector2 }
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Save { version: u32, player: Player }
//!
//! let save = Save { version: 2, player: Player { name: "Ayla".into(), position: Vector2::new(3.0, 4.0) } };
//! let text = serde_godot::cfg::to_string(&save)?;
//! assert_eq!(text, "version=2\n\n[player]\n\nname=\"Ayla\"\nposition=Vector2(3, 4)\n");
//! assert_eq!(serde_godot::cfg::from_str::<Save>(&text)?, save);
//!
//! // Any ConfigFile as maps:
//! let any: BTreeMap<String, BTreeMap<String, Variant>> =
//!     serde_godot::cfg::from_str("[display]\nwindow/size/viewport_width=1280 ; a comment\n")?;
//! assert_eq!(any["display"]["window/size/viewport_width"], Variant::Int(1280));
//! # Ok::<(), serde_godot::Error>(())
//! ```
//!
//! **Mapping.** A ConfigFile is a map of sections, each a map of keys to values. The serde value
//! is its top level: an entry whose value is a Dictionary (a struct or a map) is a section, any
//! other entry is a key of the unnamed section that comes before the first `[header]` (as
//! `config_version=5` does in `project.godot`). Reading gives the same shape: the unnamed
//! section's keys at the top level, then one map per section. Values map as in the binary form
//! (see [`crate::text`]); structs are always Dictionaries here. A `null` value (`None`) is not
//! written, as `ConfigFile.set_value(s, k, null)` erases the key.
//!
//! **Writing** is `ConfigFile.save()`'s text: `[section]`, a blank line, `key=value` lines, a
//! blank line between sections, a final newline; Godot 4 quotes keys that need it
//! (`"a=b"=1`, `"静音"=42`) and escapes `]` in section names, Godot 3 writes keys raw. Keys that
//! the engine would write but not read back (an empty key; in Godot 3 a key with `=`, `;`, `[`,
//! `"`, a blank or a non-ASCII character) are an error, as is an unnamed section after named ones.
//!
//! **Reading** follows `ConfigFile.load()`/`parse()`: blanks and `;` comments anywhere, blanks
//! inside keys dropped (`key with spaces=1` is `keywithspaces`), text after a value starting the
//! next key (`a=1 b=2` is two keys), `"quoted keys"`, `[]` keeping the current section, repeated
//! sections merged, a repeated key keeping its first place and taking its last value, `null`
//! erasing a key, sections without keys dropped. Differences from the engine: floats are
//! correctly rounded, keys and section names are read as UTF-8 (Godot reads unquoted keys byte by
//! byte, so `é=1` becomes `Ã©`), a `#color` at the very end of the file is read, and the values
//! the text reader refuses (see [`crate::text`]) are errors.

use std::collections::HashMap;

use serde_core::{Serialize, de::DeserializeOwned};

use crate::error::{Error, ErrorKind, Result};
use crate::text::{Parser, Tok, from_variant, to_variant, write_variant};
use crate::{Dictionary, Options, StructForm, Variant, Version};

/// Reads a `T` from ConfigFile text with the default [`Options`] (Godot 4).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T> {
    Options::new().from_cfg(text)
}

/// `value` as ConfigFile text with the default [`Options`] (Godot 4's `ConfigFile.save()`).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    Options::new().to_cfg(value)
}

impl Options {
    /// Reads a `T` from ConfigFile text for this version (see [`crate::cfg`]).
    pub fn from_cfg<T: DeserializeOwned>(&self, text: &str) -> Result<T> {
        let file = parse(text, self)?;
        from_variant(&file.into_variant(), &self.struct_form(StructForm::Dictionary))
    }

    /// `value` as ConfigFile text for this version, as `ConfigFile.save()` writes it (see
    /// [`crate::cfg`]).
    pub fn to_cfg<T: Serialize + ?Sized>(&self, value: &T) -> Result<String> {
        let opts = self.struct_form(StructForm::Dictionary);
        let Variant::Dictionary(top) = to_variant(value, &opts)? else {
            return Err(cfg_error("a ConfigFile is written from a struct or a map of sections"));
        };
        let mut unnamed = Vec::new();
        let mut sections = Vec::new();
        for (name, value) in top.iter() {
            let name = string_key(name)?;
            match value {
                Variant::Dictionary(d) => sections.push((name, d.as_ref())),
                Variant::Nil => {}
                other => unnamed.push((name, other)),
            }
        }
        let mut out = String::new();
        if !unnamed.is_empty() {
            if self.version == Version::Godot3 {
                out.push_str("[]\n\n");
            }
            for (key, value) in unnamed {
                entry(&mut out, key, value, &opts)?;
            }
        }
        for (name, entries) in sections {
            if entries.values().all(Variant::is_nil) {
                continue;
            }
            if name.is_empty() {
                return Err(cfg_error("the unnamed section must come first (keys at the top level)"));
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push('[');
            match self.version {
                Version::Godot4 => out.push_str(&name.replace(']', "\\]")),
                Version::Godot3 => {
                    if name.contains(']') {
                        return Err(cfg_error("Godot 3 cannot read a section name with ']'"));
                    }
                    out.push_str(name);
                }
            }
            out.push_str("]\n\n");
            for (key, value) in entries.iter() {
                entry(&mut out, string_key(key)?, value, &opts)?;
            }
        }
        Ok(out)
    }
}

#[cold]
fn cfg_error(msg: &str) -> Error {
    Error::new(ErrorKind::Message(format!("ConfigFile: {msg}")))
}

fn string_key(key: &Variant) -> Result<&str> {
    match key {
        Variant::String(s) => Ok(s),
        Variant::StringName(s) => Ok(s.as_str()),
        _ => Err(Error::new(ErrorKind::InvalidKey)),
    }
}

/// `key=value\n`, the key encoded as the version's ConfigFile does; `null` values are skipped.
fn entry(out: &mut String, key: &str, value: &Variant, opts: &Options) -> Result<()> {
    if value.is_nil() {
        return Ok(());
    }
    if key.is_empty() {
        return Err(cfg_error("an empty key is written but never read back"));
    }
    let special = |c: char| matches!(c, '=' | '"' | ';' | '[' | ']') || (c as u32) < 33 || (c as u32) > 126;
    match opts.version {
        // `property_name_encode`: quoted, with `\` and `"` escaped.
        Version::Godot4 if key.chars().any(special) => {
            out.push('"');
            for c in key.chars() {
                if matches!(c, '\\' | '"') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        Version::Godot3 if key.chars().any(|c| c != ']' && special(c)) => {
            return Err(cfg_error(
                "Godot 3 writes keys raw and cannot read back one with '=', ';', '[', '\"', blanks or non-ASCII",
            ));
        }
        _ => out.push_str(key),
    }
    out.push('=');
    write_variant(out, value, opts)?;
    out.push('\n');
    Ok(())
}

/// A section's keys in file order (erased keys leave a hole), with an index.
#[derive(Default)]
struct Section {
    entries: Vec<Option<(String, Variant)>>,
    index: HashMap<String, usize>,
}

/// The sections in file order, with an index.
#[derive(Default)]
struct File {
    sections: Vec<(String, Section)>,
    index: HashMap<String, usize>,
}

impl File {
    /// `ConfigFile.set_value`: a null value erases the key.
    fn set(&mut self, section: &str, key: String, value: Variant) {
        let at = match self.index.get(section) {
            Some(&at) => at,
            None => {
                self.index.insert(section.to_owned(), self.sections.len());
                self.sections.push((section.to_owned(), Section::default()));
                self.sections.len() - 1
            }
        };
        let s = &mut self.sections[at].1;
        match (s.index.get(&key).copied(), value) {
            (Some(i), Variant::Nil) => {
                s.entries[i] = None;
                s.index.remove(&key);
            }
            (Some(i), value) => s.entries[i] = Some((key, value)),
            (None, Variant::Nil) => {}
            (None, value) => {
                s.index.insert(key.clone(), s.entries.len());
                s.entries.push(Some((key, value)));
            }
        }
    }

    /// The unnamed section's keys at the top level, then each non-empty section as a Dictionary.
    fn into_variant(self) -> Variant {
        let mut top = Dictionary::new();
        let mut named = Vec::new();
        for (name, section) in self.sections {
            let entries = section.entries.into_iter().flatten().map(|(k, v)| (Variant::String(k), v));
            if name.is_empty() {
                top.entries_mut().extend(entries);
            } else {
                let mut d = Dictionary::new();
                d.entries_mut().extend(entries);
                if !d.is_empty() {
                    named.push((Variant::String(name), Variant::Dictionary(Box::new(d))));
                }
            }
        }
        top.entries_mut().extend(named);
        Variant::Dictionary(Box::new(top))
    }
}

/// `ConfigFile.parse()`: the engine's `parse_tag_assign_eof` loop.
fn parse(text: &str, opts: &Options) -> Result<File> {
    let mut parser = Parser::new(text, opts);
    let g4 = opts.version == Version::Godot4;
    let mut file = File::default();
    let mut section = String::new();
    let mut key = String::new();
    loop {
        let lex = &mut parser.lex;
        let Some(c) = lex.src[lex.pos..].chars().next() else { break };
        match c {
            ';' => match lex.src[lex.pos..].find('\n') {
                Some(i) => lex.pos += i + 1,
                None => break,
            },
            '[' if key.is_empty() => {
                let start = lex.pos;
                let rest = &lex.src[start + 1..];
                let mut escaping = false;
                let end = rest.char_indices().find(|&(_, c)| {
                    let end = c == ']' && !(g4 && escaping);
                    escaping = g4 && c == '\\' && !escaping;
                    end
                });
                let Some((end, _)) = end else {
                    return Err(crate::text::syntax("unterminated section header", start));
                };
                let name = rest[..end].trim_matches(|c: char| (c as u32) <= 32);
                let name = if g4 { name.replace("\\]", "]") } else { name.to_owned() };
                lex.pos = start + 1 + end + 1;
                if !name.is_empty() {
                    section = name;
                }
            }
            '"' => match lex.next()? {
                Tok::Str(s) => key = s,
                _ => return Err(crate::text::syntax("error reading a quoted key", lex.start)),
            },
            '=' => {
                lex.pos += 1;
                let value = parser.value()?;
                let key = std::mem::take(&mut key);
                if !key.is_empty() {
                    file.set(&section, key, value);
                }
            }
            c => {
                if (c as u32) > 32 {
                    key.push(c);
                }
                lex.pos += c.len_utf8();
            }
        }
    }
    Ok(file)
}
