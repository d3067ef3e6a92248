//! The "Database types" section of snowmint's guide `docs::text_and_paging`, copied here by
//! `build.rs`: its examples are this crate's doctests (`cargo test --doc`).

#![doc = include_str!(concat!(env!("OUT_DIR"), "/database_types.md"))]
