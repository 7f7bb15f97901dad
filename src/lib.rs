#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "flatbuf")]
#[doc(inline)]
pub use serde_flatbuf_lite as flatbuf;
#[cfg(feature = "kiprop")]
#[doc(inline)]
pub use serde_kiprop as kiprop;
