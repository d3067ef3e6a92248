//! The lock-free generator: one `AtomicU64`, one CAS per ID.
//!
//! # Design
//!
//! The generator's whole mutable state is one `AtomicU64` holding the last minted ID: the
//! tick in the time field's bits, the timeline in the tick-tock bit (when the layout has one)
//! and the sequence in the sequence field's bits, exactly where they sit in an ID. The steps
//! below work on this *state*, the word without its node bits; a generator's own word keeps
//! the node bits in their field, so that the word is the ID (a word several processes share,
//! [`SharedWord`], holds the state alone). (A [`LocalGenerator`], which one thread owns,
//! keeps the same word in a `Cell`: the same steps, with a load and a store in place of the
//! compare-and-swap; see [`State`].) Minting is
//!
//! 1. load the state, then read the clock once (converted to ticks since the epoch);
//! 2. if the clock is ahead of the state's tick, the next state is that tick, on the state's
//!    timeline, with the first value of the generator's sequence range; if it is on the same
//!    tick, the state plus one sequence step; if the tick's range is exhausted, wait for the
//!    next tick (or fail, in the `try_` methods, or run ahead of the clock when borrowing is
//!    on);
//! 3. compare-and-swap the state; on success the ID is the new state OR the node bits; on
//!    failure start again from step 2 with the value the CAS found, *without* re-reading the
//!    clock: a tick another thread installed is a time some thread has read, so minting on it
//!    is as fresh as minting on ours. The exception is a layout with a tick-tock bit, where a
//!    toggle (see below) may have moved the state back since the reading: there a reading is
//!    only used on a state it was read after, so a CAS lost to a state on the other timeline,
//!    or to one behind the reading (a toggle there and back leaves the state on its timeline,
//!    behind the reading), sends the thread to start over and read the clock again, and a
//!    reading from before a toggle never carries a timeline past the toggle's time. Without a
//!    tick-tock bit there is one timeline, and the reading is kept.
//!
//! A batch is the same loop with a longer step: the CAS installs the *last* of `n`
//! consecutive sequence values (as many as the tick's range has left), and the caller gets
//! all of them. Borrowing (off by default) answers a full tick with the next tick even when
//! the clock has not reached it, as long as the state stays at most the configured number of
//! ticks ahead of the clock; a clock reading behind the state by no more than that is not a
//! regression but time already borrowed, and minting continues on the state's tick.
//!
//! A clock reading behind the state's tick right after the load (step 1) is a regression if a
//! precise reading ([`Clock::unix_ms_precise`]) taken then is behind too: the clock was read
//! after the state was observed, and the precise reading rules out a cached one that lags (see
//! `# Orderings`). The generator then applies its [`ClockBehind`] policy: wait, fail, or
//! (tick-tock) move to the other timeline at the earlier tick, in one CAS of the same word.
//! After a failed CAS a newer state simply wins over the older reading (step 2 takes the
//! state's tick and increments its sequence), after a back-off that doubles with each lost
//! CAS.
//!
//! The hot path is the first CAS succeeding on a new or same tick: one clock read, one load,
//! one CAS, a few shifts and compares. Most mints take a shorter one, the *confirmed step*.
//! On a layout whose tick is 1 ms and that has no tick-tock bit, the CAS that moves the word
//! to a new tick confirms it: beside the word, the generator keeps that tick's last ID. While
//! the clock reads that tick (a 1 ms tick is its reading less the epoch), the next mint
//! compares the reading with the limit's tick, compares the word with the limit and swaps the
//! word for the word plus one sequence step, which is the ID: no range check of the reading,
//! no node bits to add (see `# Orderings` for why a step is sound with any limit it reads).
//! The state word, the confirmed limit, and the read-only plan they are minted with (masks,
//! shifts, the epoch, the fork count at the build) share one 128-byte block of their own, so a
//! mint touches that block, its clock, and the process's fork count (a line written only at a
//! fork, compared in the branch that also catches a reading behind the state; a confirmed step
//! on a fork-fenced clock, such as the default one, does not read it, see below), and nothing
//! else. Waiting, clock-behind handling, counters and errors live in `#[cold]` functions and in
//! a block of their own.
//!
//! A generator built before a `fork()` fails in the child with [`Error::Forked`]: the child
//! has a copy of the state word and the node bits, and would mint the IDs its parent mints.
//! The check needs no ordering of its own: the child's one thread is the one that forked, so
//! no mint of the child is in flight across the fork. A confirmed step compares no fork count
//! when its clock is fork-fenced (a [`CachedClock`](crate::clock::CachedClock)): a CAS confirms
//! only in a process whose count matched, and such a clock never gives a forked child a reading
//! its parent's clock gave, so an inherited generator's confirmed reading never comes again in
//! the child, its step misses, and the full path compares the count and fails.
//!
//! # Orderings
//!
//! Uniqueness rests on the modification order of the one state word. Every successful CAS
//! either replaces the value it read with a strictly greater one on the same timeline (a
//! later tick, or the same tick with a greater sequence), or moves to the other timeline at a
//! tick above that timeline's high-water mark: the highest tick ever minted on it. So within
//! each timeline the states installed strictly increase, the two timelines differ in the
//! tick-tock bit, and no two mints return the same ID. Without tick-tock there is one
//! timeline and every CAS strictly increases the state. A batch CAS from `current` to `last`
//! hands out the states in `(current, last]` on one tick; the next CAS starts from `last`, so
//! the runs handed out are disjoint intervals of that one order.
//!
//! A confirm is one store (`Release`) of the limit, made after its CAS by the thread that
//! made it, so a step (`Acquire`) may read a limit stored late, after newer ones. It is sound
//! with any of them where the word only rises and never repeats (a generator confirms nothing
//! on a layout with a tick-tock bit, where a toggle lowers the word). The CAS that installed
//! the limit's tick happens before the loaded limit, so it comes before the step's own CAS in
//! the word's order; if the step's CAS succeeds, the word it replaces is at or past that CAS's
//! value and below the limit: on the limit's tick, with room, so the word plus one step is a
//! new ID of that tick. The step also requires the reading to be that tick's, so an ID it
//! mints is on its reading's tick, as the full path's would be. A miss (another tick's
//! reading, a full tick, a lost CAS) goes on to the full path with the word and reading it
//! has, and that path's CAS confirms the reading's tick again if it was not the confirmed
//! one.
//!
//! The high-water marks live in two more atomics touched only on the cold tick-tock path. A
//! thread leaving a timeline raises that timeline's mark to the state's tick with `fetch_max`
//! (`AcqRel`) *before* its CAS (`AcqRel`) installs the state on the other timeline; a thread
//! about to enter a timeline reads its mark (`Acquire`) *after* loading (`Acquire`) the state
//! it will replace. Every write to the state is a read-modify-write, so that load
//! synchronizes with every CAS before it, and the reader sees every mark raised before the
//! timeline was left. A mark can only be stale for a timeline the state is on, and nobody
//! enters the timeline the state is on.
//!
//! The state is loaded with `Acquire` and swapped with `AcqRel` for a second property too: for a
//! clock whose readings are memory published with `Release` and read with `Acquire` (such as
//! [`ManualClock`](crate::clock::ManualClock)), a reading taken after observing a state is at least
//! the reading that produced it, so "the clock reads behind the state" means a regression, never a
//! stale cache line. A hardware counter is outside the memory model: the default clock's readings
//! are monotonic across cores, but an unfenced counter read may execute a few nanoseconds before
//! the load that precedes it, so right at a tick boundary a reading could land one tick behind a
//! state another core just installed. So a reading behind the state is never counted as a
//! regression at once: the generator reads again with [`Clock::unix_ms_precise`] (a second counter
//! read for the default clock, the source for a [`CachedClock`](crate::clock::CachedClock)) and
//! applies its [`ClockBehind`] policy only if that reading is behind too. Uniqueness never depends
//! on any of this: it rests on the state word alone, whatever the clock reads. On x86-64 these
//! orderings cost nothing over `Relaxed`.
//!
//! The precise reading is also the one a full tick waits on: a thread that finds its tick
//! full reads `unix_ms_precise` before it waits or borrows, so a cached reading that lags
//! (its refresh thread starved of a core) never holds a generator on a tick the source has
//! left, and never costs capacity.
//!
//! [`Clock::unix_ms_precise`]: crate::clock::Clock::unix_ms_precise
//! [`Error::Forked`]: crate::Error::Forked

mod builder;
mod hot;
#[cfg(all(unix, not(snowmint_loom)))]
mod mapping;
mod minter;
mod policy;
mod process;
mod slow;
mod snapshot;
mod state;

pub use builder::GeneratorBuilder;
#[cfg(all(unix, not(snowmint_loom)))]
pub use mapping::SharedMapping;
pub(crate) use minter::ReservedIds;
pub use minter::{Generator, LocalGenerator};
pub use policy::{ClockBehind, Event, Stats};
pub use process::{ProcessShared, SharedWord};
pub use snapshot::Snapshot;
pub use state::{LocalState, SharedState, State};
