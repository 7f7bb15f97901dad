//! Store: a serde `Serializer` that writes O3DE JSON.
//!
//! * Defaults are stripped like O3DE's store with `keepDefaults` off: a struct field equal to the
//!   matching part of the default object (`T::default()`, serialized once into a small tree) is
//!   omitted, a struct whose fields are all default is `{}`, an empty container is omitted. Inside
//!   containers, where O3DE compares with a fresh default element, values equal to their type's zero
//!   (0, `false`, `""`, an empty container, a zero vector, the identity quaternion, a nil uuid, an enum
//!   at 0) are written as `{}`; structs there are written in full because their default is unknown.
//! * `f32` is widened to `f64` and written with rapidjson's number layout; strings are escaped like
//!   rapidjson.
//! * Maps are objects when every key comes out as a string (or `{}`), otherwise arrays of
//!   `{"Key": k, "Value": v}`; with [`Options::sort_maps`](crate::Options::sort_maps) (the default)
//!   entries are sorted like O3DE sorts `unordered_map`, so `HashMap` output is deterministic.
//!
//! Output is written compactly into a buffer (maps may be rewritten once they are complete);
//! pretty output re-indents it like rapidjson's `PrettyWriter`.
//!
//! The store's parts: `store.rs` holds [`Serializer`] and the steps of a value, `write.rs` serde's
//! `Serializer` over them, `compound.rs` the states of containers, structs and variants, `sort.rs`
//! the sorting of what was written, `poly.rs` `$type` values, `native.rs` this crate's own types and raw JSON,
//! and `build.rs` with `tree.rs` the default object as a tree. This file holds the entry point.

use serde_core::ser::Serialize;

use crate::error::Result;
use crate::report::ResultCode;

/// Implements the element-wise compound traits by forwarding every element to `push`.
macro_rules! element_wise {
    ($t:ty, $ok:ty, $finish:expr; $($tr:ident :: $method:ident),*) => {$(
        impl ser::$tr for $t {
            type Ok = $ok;
            type Error = Error;

            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }

            fn end(self) -> Result<$ok> {
                #[allow(clippy::redundant_closure_call)]
                Ok(($finish)(self))
            }
        }
    )*};
}

mod build;
mod compound;
mod native;
mod poly;
mod sort;
mod store;
mod tree;
mod write;

pub(crate) use self::build::default_tree;
pub use self::compound::{Map, Seq, Struct, Tuple, Variant};
pub use self::poly::PolyMap;
pub use self::store::Serializer;
pub(crate) use self::store::StoreSettings;
use self::tree::DNode;

/// Serializes `value` compactly against `default` (or none); returns the text and result code.
pub(crate) fn store<T: ?Sized + Serialize>(
    value: &T,
    default: Option<&DNode>,
    settings: StoreSettings,
    out: Vec<u8>,
) -> Result<(Vec<u8>, ResultCode)> {
    let mut ser = Serializer::with(default, settings, out);
    value.serialize(&mut ser)?;
    let result = ser.result();
    Ok((ser.out, result))
}
