#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "brson")]
#[doc(inline)]
pub use serde_brson as brson;
