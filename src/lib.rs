#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "o3de")]
#[doc(inline)]
pub use serde_o3de as o3de;
