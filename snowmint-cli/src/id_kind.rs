//! The one trait the commands are written over: a kind of ID, as `--layout` names it (the 64-bit
//! IDs of a layout, sno's, UUIDv7s, ULIDs), and what `mint` runs on.
//!
//! `mint`, `inspect`, `convert` and `bounds` each take an [`IdKind`] and ask it for what
//! differs: its text forms, its parts, its times and its generators. Each kind implements the
//! trait in a file of its own under `kinds/`; `layout.rs` resolves `--layout` to one and hands
//! it to the command ([`OverKind`]).

use std::fmt;

use serde::Serialize;

use crate::args::{MintArgs, TextForm};
use crate::failure::Failure;

/// A kind of ID: how its IDs are read, written, decoded, bounded in time and minted.
pub(crate) trait IdKind {
    /// The ID.
    type Id: Copy + Default;
    /// A text form the kind's IDs are read and written in.
    type Form: Copy;
    /// An ID decoded into its parts, as `inspect` prints it: a line of text, or a JSON object.
    type Decoded<'k>: fmt::Display + Serialize
    where
        Self: 'k;

    /// The layout's name, as `bounds --json` and messages give it.
    fn name(&self) -> &str;

    /// The text form that `flag` (`--format`, `--from`, `--to`) names; `None` for the kind's
    /// own (decimal for a 64-bit layout, a UUIDv7's or a ULID's own text).
    fn form(flag: &str, form: Option<TextForm>) -> Result<Self::Form, Failure>;

    /// Reads an ID written in `form`.
    fn read(form: Self::Form, text: &str) -> Result<Self::Id, Failure>;

    /// `id` written in `form`.
    fn write(form: Self::Form, id: Self::Id) -> impl fmt::Display;

    /// `id`'s parts, with the ID echoed in `form`; an ID that does not fit the kind (an unused
    /// bit set) is an error.
    fn decode(&self, form: Self::Form, id: Self::Id) -> Result<Self::Decoded<'_>, Failure>;

    /// The times the kind's IDs hold.
    fn times(&self) -> Times;

    /// The least ID of the tick holding `first_ms` and the greatest of the tick holding
    /// `last_ms`, both within [`times`](Self::times).
    fn bounds(&self, first_ms: u64, last_ms: u64) -> Result<(Self::Id, Self::Id), Failure>;

    /// The generator for `mint` with these flags: fresh, resumed from `--snapshot`, or on a
    /// node ID leased with `--etcd`. Flags that do not apply to the kind are usage errors.
    fn minter(&self, args: &MintArgs) -> Result<Box<dyn Minter<Self::Id>>, Failure>;
}

/// The times a kind's IDs hold, in Unix milliseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Times {
    /// The first millisecond: the layout's epoch.
    pub(crate) epoch_ms: u64,
    /// The length of a tick.
    pub(crate) tick_ms: u64,
    /// The start of the last tick.
    pub(crate) last_ms: u64,
}

/// A generator set up for one `mint` run, with what the run holds: a snapshot file, a lease.
pub(crate) trait Minter<Id> {
    /// Mints up to `out.len()` IDs into `out`, in increasing order; returns how many.
    fn mint_batch(&mut self, out: &mut [Id]) -> Result<usize, Failure>;

    /// Ends the run, whose minting ended as `minted`: saves the snapshot's exact state,
    /// releases the lease. A generator that holds nothing returns `minted`.
    fn finish(self: Box<Self>, minted: Result<(), Failure>) -> Result<(), Failure> {
        minted
    }
}

/// A generator of the library's, alone: nothing to save or release at the end.
pub(crate) struct Plain<G>(pub(crate) G);

impl<G: snowmint::Mint> Minter<G::Id> for Plain<G> {
    fn mint_batch(&mut self, out: &mut [G::Id]) -> Result<usize, Failure> {
        Ok(self.0.mint_batch(out)?)
    }
}

/// A command written once over every kind of ID: `layout.rs` calls it with the kind
/// `--layout` names.
pub(crate) trait OverKind {
    /// Runs the command over `kind`.
    fn run<K: IdKind>(self, kind: &K) -> Result<(), Failure>;
}
