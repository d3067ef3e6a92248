//! The "Database types" section of snowmint's guide `docs::text_and_paging`
//! (`src/docs/database_types.md`, which the guide includes outside doctests): its examples are
//! this crate's doctests (`cargo test --doc`), with the clients only this crate builds.

#![doc = include_str!("../../src/docs/database_types.md")]
