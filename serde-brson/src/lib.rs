#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod budget;
pub mod codec;
pub mod container;
mod de;
pub mod dump;
mod error;
pub mod json;
pub mod lenient;
pub mod model;
mod options;
mod path;
mod payload;
mod reader;
mod ser;
pub mod url;
mod writer;

pub use bson;
pub use container::{Compression, Extension, Header};
pub use de::{Deserializer, decompress, from_reader, from_slice};
pub use error::{Error, ErrorKind, Position, Result};
pub use options::Options;
pub use payload::Payload;
pub use ser::{to_vec, to_writer};
