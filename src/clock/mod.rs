//! Where generators read the time.
//!
//! [`Clock`] is one method: the current time in Unix milliseconds (and a second, precise one
//! that a clock with a cache overrides). The default clock of every generator is
//! [`CachedClock::global`], read with one load ([`CachedClock`] says how it stays fresh).
//! [`MonotonicClock`] is its source: quanta's counter anchored to the wall clock, for users
//! who want no thread at all.
//! [`CachedClock::new`] caches a clock of your own, and [`ManualClock`] is set by hand, for
//! tests and simulations. [`Rfc3339`] writes a Unix-millisecond time as text.
//!
//! # Choosing a clock
//!
//! How each clock behaves. `I` is the anchored clock's recheck interval (1 s by default), `ρ`
//! the counter's rate error against the wall clock (a few parts per million, at most about
//! 500), and the step threshold 10 ms by default
//! ([`MonotonicClockBuilder::step_threshold`]). The figures of what a reading costs are in
//! `BENCHMARKS.md` (`benches/clocks.rs`).
//!
//! | clock | a reading costs | freshness | wall clock steps back | counter drift | idle | after `fork()` | starved refresher |
//! |---|---|---|---|---|---|---|---|
//! | [`CachedClock::global`] (the default) | one load from a `static` | the source's millisecond, from just after it begins (the refresher wakes then), lagging by the refresher's wake-up latency | followed: the first precise reading (a full tick, a reading behind the last tick) publishes the new time, and every reading after it is of the new time; the source reports steps above the threshold, so a generator's policy sees them | as its source's (slewed) | the refresher parks 5 ms after the last read and wakes at most 10 times a second; the next read reads the source and wakes it | the child's first read reads the source and starts a refresher of its own; a generator built in the child mints at the child's time, through inherited clock handles and new ones (one built before the fork fails there with [`Error::Forked`](crate::Error::Forked)); a fork during the clock's first initialisation or a refresher's start waits for it ([after `fork()`](crate::docs::clocks#after-fork)) | readings lag by as long as it waits for a core; a full tick and a reading behind the last tick read the source, so a lag never costs capacity or counts as a regression, but IDs carry the lagging time until a tick fills |
//! | [`CachedClock::new`] over a source `C` | one load (the handle holds its address) | once a millisecond, not aligned to the source's millisecond | as the global one, for whatever `C` reports | as `C`'s | as the global one; the refresher ends within 100 ms of the last clone's drop | as the global one | as the global one |
//! | [`MonotonicClock`] (`Report`, its default) | a counter read and five loads (and a multiply while slewing) | exact to the counter | a step back above the threshold is reported at the next re-anchor, at most `I` later; smaller ones are slewed over one interval | slewed: the rate changes over the next interval, never a step back | no thread, nothing to wake | correct: the counter and the anchor are inherited, and a fork during the clock's construction or a re-anchor waits for it, so the child re-anchors as the parent would | no thread |
//! | [`MonotonicClock`] with [`WallClockBack::Slew`] | as `Report`, plus a load and a `fetch_max` on a word every reader writes | as `Report` | never goes back: runs at half speed until the wall clock catches up (`2·D` for a step of `D`) | as `Report` | as `Report` | as `Report` | no thread |
//! | [`MonotonicClock`] anchored once ([`MonotonicClockBuilder::anchor_once`]) | a counter read and five loads | drifts from the wall clock without bound (`ρ` × the uptime, plus every step) | ignored | ignored | as `Report` | as `Report` | no thread |
//! | [`ManualClock`] | one load | what it was set to | whatever it is set to: a generator's [`ClockBehind`](crate::ClockBehind) policy sees it | none | nothing runs | inherited | no thread |

pub(crate) mod cached;
mod interface;
mod manual;
mod monotonic;
mod rfc3339;

pub use cached::{CachedClock, Global, Home, Private};
/// The cached clock's tuning and its refresher's steps, for snowmint's own tests.
#[cfg(snowmint_test_hooks)]
#[doc(hidden)]
pub use cached::{
    Step,
    hooks::{FIRST_READING, IDLE_PARK, PROBE_EVERY},
};
pub use interface::Clock;
pub(crate) use interface::seal;
pub use manual::ManualClock;
#[cfg(snowmint_loom)]
#[doc(hidden)]
pub use monotonic::DrivenSource;
pub use monotonic::{MonotonicClock, MonotonicClockBuilder, WallClockBack};
pub use rfc3339::Rfc3339;

/// The clock a generator reads unless it is given another: the process-wide
/// [`CachedClock::global`] (under loom, which cannot model a `static` word, a
/// [`MonotonicClock`]).
#[cfg(not(snowmint_loom))]
pub(crate) type DefaultClock = CachedClock;
/// The clock a generator reads unless it is given another (under loom, which cannot model the
/// process-wide cached clock's `static` word).
#[cfg(snowmint_loom)]
pub(crate) type DefaultClock = MonotonicClock;
