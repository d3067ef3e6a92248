//! The cached clock: one word a background thread keeps fresh, read with one load.
//!
//! Values of the word from [`FIRST_READING`] up are readings; the values below it are
//! sentinels ([`STALE`], [`PARKED`], [`UNCACHED`]) that say why there is no reading to serve,
//! each written with a generation no other sentinel write repeats. Every write of a reading is
//! a compare-and-swap from the value loaded before the source was read. The word's states, why
//! this publishing lets the cache follow its source back, the orderings, and what a child of
//! `fork()` does: [the internals page](crate::docs::internals#the-cached-clock).
//!
//! [`FIRST_READING`]: sentinel::FIRST_READING
//! [`STALE`]: sentinel::STALE
//! [`PARKED`]: sentinel::PARKED
//! [`UNCACHED`]: sentinel::UNCACHED

/// The process-wide clock: its `static` word cannot be a loom atomic.
#[cfg(not(snowmint_loom))]
mod global;
mod handle;
#[cfg(snowmint_test_hooks)]
pub(super) mod hooks;
mod refresher;
mod sentinel;
mod words;

pub use handle::{CachedClock, Global, Home, Private};
#[cfg(snowmint_test_hooks)]
pub use refresher::Step;
pub(crate) use sentinel::FIRST_READING;
