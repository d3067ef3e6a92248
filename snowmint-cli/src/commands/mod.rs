//! The subcommands, each written once over [`IdKind`](crate::id_kind::IdKind): `main.rs` calls
//! one, which resolves `--layout` and runs over the kind of ID it names.

pub(crate) mod bounds;
pub(crate) mod completions;
pub(crate) mod convert;
pub(crate) mod inspect;
pub(crate) mod mask;
pub(crate) mod mint;
