#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "brson")]
#[doc(inline)]
pub use serde_brson as brson;
#[cfg(feature = "flatbuf")]
#[doc(inline)]
pub use serde_flatbuf_lite as flatbuf;
#[cfg(feature = "godot")]
#[doc(inline)]
pub use serde_godot as godot;
#[cfg(feature = "kiprop")]
#[doc(inline)]
pub use serde_kiprop as kiprop;
#[cfg(feature = "o3de")]
#[doc(inline)]
pub use serde_o3de as o3de;
