//! The mark: IDs that survive a crash without repeating.
//!
//! A mark is a Unix-millisecond time above every ID a generator returned, written durably
//! ahead of minting. A [`MarkedGenerator`] returns an ID only once its [`MarkStore`] holds a
//! mark above the ID's time, and a generator restarted from the mark starts above it. The
//! stores: a [`MarkFile`] on local disk (as a [`MarkFileStore`]; its guarantee and cost are
//! documented on [`MarkFile`]) and stores of other crates' own (`snowmint-etcd` keeps one in
//! etcd), built on [`MarkStore`] with [`ForkCheck`] and [`minted_end`].
//!
//! The file's write, [`replace_durably`], is public: a file of the caller's own (a state
//! written ahead of minting, as the `snowmint` tool's `--snapshot` file is) is replaced the
//! same way.

mod durable;
mod file;
mod file_store;
mod hold;
mod marked;
mod read;
mod store;

pub use crate::fork::ForkCheck;
pub use durable::replace_durably;
pub use file::MarkFile;
pub use file_store::MarkFileStore;
pub use marked::{MarkedGenerator, minted_end};
pub use store::MarkStore;
