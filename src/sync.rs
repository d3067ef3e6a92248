//! The one place snowmint takes its atomics and spin hints from.
//!
//! Under `cfg(loom)` everything here comes from [loom](https://docs.rs/loom), so the model
//! checker in `loom-tests/` can explore every interleaving of the mint path, of the cached
//! clock's refresher and of the monotonic clock's re-anchor; otherwise it comes from `core`
//! and `std`. No other module imports `core::sync::atomic` directly.

#[cfg(loom)]
pub(crate) use loom::{
    sync::atomic::{AtomicU64, Ordering, fence},
    sync::{Arc, Mutex},
    thread::{Thread, current, yield_now},
};

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicU64, Ordering, fence};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Mutex};
#[cfg(not(loom))]
pub(crate) use std::thread::{Thread, current, yield_now};

/// Exponential backoff: `spin` after a lost compare-and-swap, `snooze` in the waits of the cold
/// paths (sequence overflow, clock behind).
///
/// Outside loom this is crossbeam's [`Backoff`](crossbeam_utils::Backoff): `spin` doubles its
/// run of `spin_loop` hints up to 64; `snooze` does the same, then yields. Under loom every
/// step yields to the model's scheduler, so a waiting thread lets the thread it waits for run.
#[cfg(not(loom))]
pub(crate) use crossbeam_utils::Backoff;

#[cfg(loom)]
pub(crate) struct Backoff;

#[cfg(loom)]
impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff
    }

    pub(crate) fn snooze(&self) {
        loom::thread::yield_now();
    }

    pub(crate) fn spin(&self) {
        loom::hint::spin_loop();
    }
}

/// `std`'s atomics, under loom too, for the shard claims of sharded generators: a claim
/// decides only which shard a thread mints from, never whether an ID is unique, and claims are
/// given back by thread-local destructors and counted in a `static`, where loom's atomics
/// cannot be.
pub(crate) mod plain {
    pub(crate) use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
}
