//! Godot's text form of a Variant, both ways: what Godot 4's `var_to_str` / `str_to_var` and
//! Godot 3's `var2str` / `str2var` write and read, and what `.tscn`, `.tres`, `.cfg` and
//! `project.godot` files hold as values.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_godot::{Options, Vector2, Version};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Spawn { name: String, at: Vector2, speed: f32 }
//!
//! let spawn = Spawn { name: "orc".into(), at: Vector2::new(1.5, -2.0), speed: 0.1 };
//! let text = serde_godot::text::to_string(&spawn)?;
//! assert_eq!(text, "{\n\"at\": Vector2(1.5, -2),\n\"name\": \"orc\",\n\"speed\": 0.1\n}");
//! assert_eq!(serde_godot::text::from_str::<Spawn>(&text)?, spawn);
//!
//! let g3 = Options::new().version(Version::Godot3);
//! assert_eq!(g3.to_text(&spawn)?, "{\n\"at\": Vector2( 1.5, -2 ),\n\"name\": \"orc\",\n\"speed\": 0.1\n}");
//! # Ok::<(), serde_godot::Error>(())
//! ```
//!
//! **Mapping.** Serde types map exactly as in the binary form (same [`Options`]: struct form,
//! unit variants, typed containers, full objects): the value is laid out as the Variant the
//! binary form would carry, and that Variant is printed. Reading parses the text to a Variant
//! and decodes `T` from it the same way. [`variant_to_string`] and [`variant_from_str`] work on a
//! [`Variant`] directly (typed containers printed as they are).
//!
//! **Printing** is byte-identical to the engine's writer: Godot 4 is the 4.5+ writer
//! (`var_to_str`, compat mode: Grisu2 float digits, `f32`-exact values printed as `f32`,
//! `inf_neg`, `Array[int]([1])`, `Dictionary[String, int]({…})`, `{}`), Godot 3 is 3.2's
//! (`%lg` of the value cast to `f32`, `Vector2( 1, 2 )`, `[  ]`, `{\n\n}`, `Pool*Array`, an
//! empty text for an RID). Dictionary keys are sorted as the engine sorts them. Objects print as
//! `Object(Class,"prop":value)\n` (an object id as Godot's `EncodedObjectAsID` object); Godot 4
//! writes containers deeper than 100 levels as `[]` / `{}`, and so do we.
//!
//! **Reading** gives what the engine's reader gives, wherever the engine reads its own text back
//! faithfully, with these differences:
//! 1. floats are rounded correctly (Godot's `built_in_strtod` is one ulp off for about a quarter
//!    of 17-digit inputs and reads subnormals as 0);
//! 2. text after the value (other than blanks and `;` comments) is an error; the engine ignores
//!    it.
//!
//! Also, on inputs the engine never writes: `Resource(…)`, `ExtResource(…)` and `SubResource(…)`
//! are refused (Godot loads files for them), and so is Godot 3's legacy `InputEvent(…)` (a
//! Godot 2 project-file form); `Object(…)` only with
//! [`Options::full_objects`] (Godot instantiates the class and runs its script; we only record
//! the class and properties, and take any class name); a `#color` at the very end of the text
//! is read (the engine's reader fails on it); a surrogate pair written as two `\u` escapes
//! becomes one character (Godot 3 keeps two lone surrogates); a lone UTF-16 surrogate in a `\u` escape, a `-` not followed by a
//! digit (Godot 3 reads it as 0) and a `#color` of a length `Color.html` rejects (Godot prints an
//! error and gives black) are errors. Nesting deeper than [`Options::max_depth`] is an error;
//! the reader is linear in the length of the text.

mod float;
mod lex;
mod parse;
mod print;

use serde_core::{Serialize, de::DeserializeOwned};

pub(crate) use lex::{Tok, syntax};
pub(crate) use parse::Parser;
pub(crate) use print::Printer;

use crate::error::{Error, Result};
use crate::{Options, Variant, Version};

/// `value` in Godot 4's text form (what `var_to_str` prints), with the default [`Options`].
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    Options::new().to_text(value)
}

/// Reads a `T` from Godot 4's text form (what `str_to_var` reads), with the default
/// [`Options`].
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T> {
    Options::new().from_text(text)
}

/// `value` as the engine of `version` prints it (`var_to_str` / `var2str`), exactly as it is:
/// typed containers keep their types. Godot 4-only types are an error in Godot 3.
///
/// ```
/// use serde_godot::{Variant, Version, text::variant_to_string};
///
/// let v = Variant::from([("hp", Variant::from(0.1f32))]);
/// assert_eq!(variant_to_string(&v, Version::Godot4)?, "{\n\"hp\": 0.1\n}");
/// assert_eq!(variant_to_string(&Variant::from(1e20), Version::Godot3)?, "1e+20");
/// # Ok::<(), serde_godot::Error>(())
/// ```
pub fn variant_to_string(value: &Variant, version: Version) -> Result<String> {
    let mut out = String::new();
    Printer { out: &mut out, version, max_depth: Options::new().max_depth }.value(value, 0)?;
    Ok(out)
}

/// Reads one Variant from Godot's text form for `opts`' version, depth limit and full-objects
/// setting. Blanks and `;` comments may surround it; anything else after it is an error.
pub fn variant_from_str(text: &str, opts: &Options) -> Result<Variant> {
    let mut parser = Parser::new(text, opts);
    let value = parser.value()?;
    let tok = parser.lex.next()?;
    if tok != Tok::Eof {
        return Err(lex::syntax(format!("{} after the value", tok.describe()), parser.lex.start));
    }
    Ok(value)
}

/// Appends `value`'s text for `opts` to `out` (the ConfigFile writer).
pub(crate) fn write_variant(out: &mut String, value: &Variant, opts: &Options) -> Result<()> {
    Printer { out, version: opts.version, max_depth: opts.max_depth }.value(value, 0)
}

/// The Variant the binary form would carry for `value`.
pub(crate) fn to_variant<T: Serialize + ?Sized>(value: &T, opts: &Options) -> Result<Variant> {
    let bytes = opts.to_vec(value)?;
    opts.max_size(usize::MAX).from_slice(&bytes).map_err(Error::without_offset)
}

/// Decodes `T` from `value` as the binary form would.
pub(crate) fn from_variant<T: DeserializeOwned>(value: &Variant, opts: &Options) -> Result<T> {
    let inner = opts.typed_containers(true).max_size(usize::MAX);
    let bytes = inner.to_vec(value)?;
    inner.from_slice(&bytes).map_err(Error::without_offset)
}

impl Options {
    /// `value` in Godot's text form for this version (`var_to_str` in Godot 4, `var2str` in
    /// Godot 3), laid out as the binary form lays it out (see [`crate::text`]).
    ///
    /// ```
    /// use serde_godot::{Options, Version};
    /// let g3 = Options::new().version(Version::Godot3);
    /// assert_eq!(g3.to_text(&vec![1.0f64 / 3.0])?, "[ 0.333333 ]");
    /// assert_eq!(Options::new().to_text(&vec![1.0f64 / 3.0])?, "[0.3333333333333333]");
    /// # Ok::<(), serde_godot::Error>(())
    /// ```
    pub fn to_text<T: Serialize + ?Sized>(&self, value: &T) -> Result<String> {
        let v = to_variant(value, self)?;
        let mut out = String::new();
        write_variant(&mut out, &v, self)?;
        Ok(out)
    }

    /// Reads a `T` from Godot's text form for this version (`str_to_var` in Godot 4, `str2var` in
    /// Godot 3); see [`crate::text`] for the two deliberate differences from the engine.
    ///
    /// ```
    /// use serde_godot::{Options, Vector2};
    /// let v: Vec<Vector2> = Options::new().from_text("[Vector2(1, 2), Vector2(0.5, -0)] ; comment")?;
    /// assert_eq!(v, [Vector2::new(1.0, 2.0), Vector2::new(0.5, -0.0)]);
    /// # Ok::<(), serde_godot::Error>(())
    /// ```
    pub fn from_text<T: DeserializeOwned>(&self, text: &str) -> Result<T> {
        let v = variant_from_str(text, self)?;
        from_variant(&v, self)
    }
}
