// The guides' one-line summary is the doc comment on `pub mod docs` in lib.rs.
//!
//! How the parts fit together, for the questions one item's docs cannot answer. This module
//! holds documentation only: each guide states what the generators do and guarantee in one
//! situation, links to the items that do it, and runs its examples as doctests. Performance
//! figures are in `BENCHMARKS.md` at the repository's root, with the machine, date, commit and
//! command that made them.
//!
//! - [`clocks`]: where time comes from, clock faults and the [`ClockBehind`] policies,
//!   restarts (snapshots and the mark file), counters and notifications.
//! - [`throughput`]: one generator shared by every thread and task (`Arc`, a `static`), and
//!   past one cache line and one tick: sequence ranges, per-core shards, one generator per
//!   thread, batches and borrowing.
//! - [`fleets`]: distinct node IDs across machines: where they come from, and leases from
//!   etcd.
//! - `processes` (Unix): several processes of one host minting from one state word in shared
//!   memory: pre-fork servers, worker pools, PostgreSQL's backends.
//! - [`text_and_paging`]: IDs as text, in JSON, in database columns, and paging by ID.
//! - [`sno`]: sno's 80-bit IDs.
//! - `public_ids` (feature `mask`): the sortable ID in the database, an opaque one at the API.
//! - [`internals`]: how the fork protocol, the monotonic clock and the cached clock work
//!   inside, for a reader of the code; not part of the stability guarantees.
//!
//! [`ClockBehind`]: crate::ClockBehind
//! [`clocks`]: crate::docs::clocks
//! [`fleets`]: crate::docs::fleets
//! [`internals`]: crate::docs::internals
//! [`sno`]: crate::docs::sno
//! [`text_and_paging`]: crate::docs::text_and_paging
//! [`throughput`]: crate::docs::throughput

pub mod clocks;
pub mod fleets;
pub mod internals;
#[cfg(unix)]
pub mod processes;
#[cfg(all(feature = "mask", feature = "serde"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "mask", feature = "serde"))))]
pub mod public_ids;
pub mod sno;
pub mod text_and_paging;
pub mod throughput;
