#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "kiprop")]
#[doc(inline)]
pub use serde_kiprop as kiprop;
