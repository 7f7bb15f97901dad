#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
