#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "godot")]
#[doc(inline)]
pub use serde_godot as godot;
