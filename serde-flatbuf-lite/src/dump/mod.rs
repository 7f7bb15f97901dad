//! Annotated dumps of FlatBuffers buffers, for snapshot tests and for looking at what is in a buffer.
//!
//! [`dump_with_schema`] reads the buffer through a parsed `.fbs` [`Schema`] and writes one line per
//! meaningful span: the offset (hex), up to 8 bytes of hex, and what they mean. First the header (the
//! size prefix when [`Options::size_prefixed`], the root uoffset, the file identifier), then the root
//! table: its soffset to its vtable, the vtable (its size, the table size, each slot's offset, with the
//! field's name), then every present field by name in slot order, following uoffsets: sub-tables,
//! strings (length, bytes, terminator), vectors (length, elements), structs field by field, unions by
//! member name, enums by value name. Nested values are indented. A vtable shared by many tables is
//! annotated once (later tables point back to it). Long spans wrap; very long ones show their first 24
//! bytes and a count of the rest. Lines follow the walk (depth first, in field order), not the offsets.
//!
//! The text is stable (a change to it is a change to the crate), so it suits
//! `insta::assert_snapshot!`:
//!
//! ```
//! use serde_flatbuf_lite::{Options, dump, fbs::Schema};
//!
//! let schema = Schema::parse_str("m.fbs", r#"
//!     enum Color : ubyte { Red, Green, Blue }
//!     table Monster { name:string; hp:short = 100; color:Color = Blue; }
//!     root_type Monster;
//!     file_identifier "MONS";
//! "#)?;
//! let bytes = schema.json_to_buffer(r#"{"name": "Orc", "hp": 80, "color": "Red"}"#, None)?;
//! let d = dump::dump_with_schema(&bytes, &schema, None, &Options::new());
//! assert!(d.error().is_none());
//! assert_eq!(d.to_string(), "\
//! 00000000  14 00 00 00              root table uoffset 20 (to 0x14)
//! 00000004  4d 4f 4e 53              file identifier \"MONS\" (the schema's)
//! 00000014  0a 00 00 00              root table Monster: soffset 10 (vtable at 0xa)
//! 0000000a  0a 00                      vtable: 10 bytes
//! 0000000c  0c 00                        table size 12
//! 0000000e  08 00                        slot 0 name: at table+8
//! 00000010  06 00                        slot 1 hp: at table+6
//! 00000012  05 00                        slot 2 color: at table+5
//! 0000001c  04 00 00 00                name: string, uoffset
//! 00000020  03 00 00 00                  length 3
//! 00000024  4f 72 63                     \"Orc\"
//! 00000027  00                           terminator
//! 0000001a  50 00                      hp: short 80
//! 00000019  00                         color: Color 0 (Red)
//! 00000028                           end
//! ");
//! # Ok::<(), serde_flatbuf_lite::Error>(())
//! ```
//!
//! Without a `.fbs` file, [`dump`] reads the buffer as a Rust type: it traces the type's schema the way
//! [`crate::Schema::trace`] does (the `.fbs` lite would print for it) and dumps through that, with the
//! type's field and type names.
//!
//! A buffer that does not verify still gives a dump: every line up to the error, then a line naming
//! the error (also returned by [`Dump::error`]); the error is the one
//! [`Schema::buffer_to_json_with`] returns. The walk uses the crate's verifier and its limits
//! ([`Options`]: depth, table count, apparent size), so it is linear in the buffer and never panics,
//! and the text is at most 16 KiB plus 32 characters per byte of buffer (a longer dump is cut with a
//! line saying so).

use std::fmt::{self, Display};

use serde_core::Deserialize;

use crate::error::Error;
use crate::fbs::Schema;
use crate::options::Options;
use gamefmt_dump::Out;

/// An annotated dump: its text (`Display`) and the error it stopped at, if any.
#[derive(Debug)]
pub struct Dump {
    text: String,
    error: Option<Error>,
}

impl Dump {
    /// The dump's text (the same as `to_string()`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The error that stopped the walk (the text ends with a line naming it), or `None` when the
    /// whole buffer verified.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The text if the whole buffer verified, else the error.
    pub fn into_result(self) -> Result<String, Error> {
        match self.error {
            None => Ok(self.text),
            Some(e) => Err(e),
        }
    }
}

impl Display for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The annotated dump of `bytes`, a buffer holding a `T` as lite writes it with `opts`: the schema is
/// traced from `T` ([`crate::Schema::trace`], with `opts`' inline structs and file identifier) and the
/// buffer dumped through it, as [`dump_with_schema`] does with a parsed `.fbs`.
///
/// The dump shows what the traced schema reads (flatc would read the same with the printed `.fbs`);
/// [`Options::from_slice`] may still refuse a buffer whose values `T` cannot hold (an enum value `T` has
/// no variant for, for example). A type that cannot be traced gives a one-line dump naming the error.
pub fn dump<'de, T: Deserialize<'de>>(bytes: &[u8], opts: &Options) -> Dump {
    let schema = crate::schema::Schema::trace::<T>(opts).and_then(|s| Schema::parse_str("traced.fbs", &s.to_fbs()));
    match schema {
        Ok(schema) => dump_with_schema(bytes, &schema, None, opts),
        Err(e) => Dump { text: format!("error: {e}\n"), error: Some(e) },
    }
}

/// The annotated dump of `bytes`, a buffer whose root is the schema's `root_type` (or `root_type` when
/// given, like flatc's `--root-type`), read with `opts` (its limits and size prefix).
pub fn dump_with_schema(bytes: &[u8], schema: &Schema, root_type: Option<&str>, opts: &Options) -> Dump {
    let mut out = Out::new(bytes.len());
    let walked =
        schema.root_table(root_type).and_then(|root| crate::fbs::dump::walk(&mut out, schema, root, bytes, opts));
    // The walk checks what the schema reader checks; the reader has the last word.
    let error = match walked {
        Err(e) => Some(e),
        Ok(()) => schema.buffer_to_json_with(bytes, root_type, opts, None).err(),
    };
    match &error {
        Some(e) => out.note(e.offset().unwrap_or(bytes.len()), 0, format_args!("error: {e}")),
        None => out.note(bytes.len(), 0, "end"),
    }
    Dump { text: out.finish(), error }
}
