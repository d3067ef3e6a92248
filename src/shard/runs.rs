//! Each thread's run: IDs a thread reserved from its shard of a
//! [`ShardedGenerator`](super::ShardedGenerator) with one compare-and-swap, handed out one per
//! mint with no read-modify-write at all.
//!
//! A run is a block of consecutive states of one tick, reserved by the shard's fast path at a
//! clock reading on that tick: the compare-and-swap installed the run's last ID in the
//! shard's word (which holds the last ID minted, node bits and all). The thread hands out the
//! next ID of its run while the clock still reads the same, the run has IDs left, and the
//! shard's word still holds the run's last ID: compares of the generator's number, the reading
//! and the next ID against the run's end, a load of the shard's word through the address the
//! run keeps (a line the thread wrote itself when it holds the shard alone) and a compare with
//! the run's last ID (its end less a step), and one store to the thread's own memory. Any other outcome (another reading, an
//! empty run, another generator, a shard that minted since) goes to the shard, out of line, and
//! the run is never handed out again.
//!
//! # Why a run never goes below what was already returned
//!
//! The shard's word only grows (see the generator's `# Orderings`: every compare-and-swap
//! installs a greater state on its timeline, and a toggle installs one above the other
//! timeline's high-water mark, so no value comes back). So while the word still holds the
//! run's last ID, nothing has been minted from the shard since the run was reserved: not
//! by this thread (a kept [`local`](super::ShardedGenerator::local) or
//! [`shard`](super::ShardedGenerator::shard) handle, a batch), not by a thread sharing the
//! shard, not through a handle on another thread. Every ID the shard returned is then either
//! below the run or one of its own, and a clock that stepped back to the run's reading after
//! the shard minted on a later tick finds the word moved on and meets the shard's
//! [`ClockBehind`](crate::ClockBehind) policy.
//!
//! The load is `Relaxed`: it publishes nothing and decides only whether to trust the run.
//! The thread's own compare-and-swap that installed the run, and any mint that happened
//! before this one (on any thread, through any synchronisation), come before the load in
//! happens-before, so by coherence the load sees that write or a later one.
//!
//! Runs start at one ID and double each time a thread uses one up on its tick, up to the
//! handle's cap, so a thread minting one ID a tick reserves one ID a tick, and one minting
//! flat out reserves a CAS's worth of IDs per [`MAX_RUN`] mints. A run left over (the reading
//! changed, the shard minted meanwhile) is dropped: its IDs are never handed out, so none is
//! repeated, and the thread's next ID comes from its shard's later state, so its IDs keep
//! increasing. Threads that share a shard (more threads than shards) each take runs of it;
//! each reservation ends the other sharers' runs, so sharers minting at once take one ID per
//! compare-and-swap, as on a plain [`Generator`](crate::Generator).
//!
//! # A value of the run's generator's tick
//!
//! Beside the run, a thread keeps one value of a tick of the run's generator, for the type
//! that wraps the generator: a 128-bit family's first ID of a millisecond (its keyed start,
//! two 64x64->128-bit multiplies), which each of the millisecond's IDs adds its sequence to
//! ([`remembered`]). It is kept only while the run is of the generator it was computed for:
//! a run of another generator forgets it, so its key is the run's own generator number, which
//! a single mint's fast path has just compared, and what is left to check is its tick. The
//! value must be a function of the generator and the tick alone, so that an answer from
//! memory is what computing it gives.
//!
//! # Fork story
//!
//! A run is in a thread-local, so a child of `fork()` has a copy of the forking thread's run,
//! which would hand out IDs its parent hands out too. The child handler
//! ([`after_fork_in_child`]) drops it; the child's next mint goes to the shard, which fails
//! with [`Error::Forked`](crate::Error::Forked). Dropping the run forgets its value too (its
//! generator number is then 0), and a sharded generator built in the child has a number of
//! its own.

use std::cell::Cell;

use crate::fork::ChildStep;
use crate::generator::ReservedIds;
use crate::sync::{AtomicU64, Ordering};

/// The most IDs a thread reserves in one run.
pub(super) const MAX_RUN: u64 = 1024;

/// A thread's run: the IDs from `next` up to `end` in the generator's sequence steps, reserved
/// from the shard whose state word is at `word` of the generator numbered `generator`, handed
/// out while the clock reads `reading` and the word holds the run's last ID.
struct Run {
    /// The sharded generator's number ([`Claims::id`](super::claims::Claims::id)); 0 for no
    /// run.
    generator: Cell<u64>,
    reading: Cell<u64>,
    next: Cell<u64>,
    /// The ID after the run's last one: the run has IDs left while `next` is not `end`.
    end: Cell<u64>,
    /// The state word of the shard the run came from, read only while `generator` is the
    /// number of the sharded generator the caller borrows: see [`holds`].
    word: Cell<*const AtomicU64>,
    /// How many IDs the run held when it was reserved.
    size: Cell<u64>,
    /// A value of one tick of the generator numbered `generator` (a 128-bit family's first
    /// ID): the tick's state word with sequence 0 (0 for none), and the value. See
    /// [`remembered`].
    memo_tick: Cell<u64>,
    memo: Cell<u128>,
}

thread_local! {
    /// This thread's run. No destructor, so it answers during other thread-locals' destructors
    /// too.
    static RUN: Run = const {
        Run {
            generator: Cell::new(0),
            reading: Cell::new(0),
            next: Cell::new(0),
            end: Cell::new(0),
            word: Cell::new(std::ptr::null()),
            size: Cell::new(0),
            memo_tick: Cell::new(0),
            memo: Cell::new(0),
        }
    };
}

/// The next ID of this thread's run in the generator numbered `generator`, if the clock reads
/// `reading`, the reading the run was reserved at, the run has one left, and the run's shard
/// still holds the last ID its reservation installed. `step` is one sequence step, in ID
/// coordinates.
///
/// The caller borrows the sharded generator numbered `generator` for the whole call.
#[inline(always)]
pub(super) fn take(generator: u64, reading: u64, step: u64) -> Option<u64> {
    RUN.with(|run| {
        let (id, end) = (run.next.get(), run.end.get());
        if run.generator.get() == generator
            && run.reading.get() == reading
            && id != end
            // The run's last ID, which its reservation installed in the word.
            && holds(run, end.wrapping_sub(step))
        {
            // Past the last ID this may wrap, to `end` (computed the same way); `next` then
            // equals `end` and is never handed out.
            run.next.set(id.wrapping_add(step));
            Some(id)
        } else {
            None
        }
    })
}

/// Whether the run's shard still holds `last`, the ID the run's reservation installed. Only
/// for a run of the generator the caller borrows (`take` checks the number first).
#[inline(always)]
fn holds(run: &Run, last: u64) -> bool {
    // SAFETY: `word` was set by `start` to the state word of a shard of the sharded generator
    // numbered `run.generator`, and `take` calls this only when that is the generator its
    // caller borrows: numbers are never reused in a process (`Claims::new`), so that generator
    // is alive for the whole call, and its shards sit in a boxed slice that is never replaced,
    // whose elements do not move when the generator does. So the pointer is to a live
    // `AtomicU64`, which is only ever read through a shared reference.
    #[allow(unsafe_code)]
    let word = unsafe { &*run.word.get() };
    // Relaxed: see the module's `# Why a run never goes below what was already returned`.
    word.load(Ordering::Relaxed) == last
}

/// How many IDs this thread's next run in the generator numbered `generator` should hold:
/// twice the last run's size if the thread used it up, else one; at most `cap`.
pub(super) fn next_size(generator: u64, cap: u64) -> u64 {
    RUN.with(|run| {
        let used_up = run.generator.get() == generator && run.next.get() == run.end.get();
        if used_up {
            (run.size.get() * 2).min(cap)
        } else {
            1
        }
    })
    .max(1)
}

/// Starts this thread's run in the generator numbered `generator` from what its shard, whose
/// state word is `word`, `reserved` (IDs `step` apart), of which the caller hands out the first
/// ID itself. A reservation with no reading starts an empty run of that size.
pub(super) fn start(generator: u64, word: &AtomicU64, step: u64, reserved: &ReservedIds) {
    RUN.with(|run| {
        if run.generator.replace(generator) != generator {
            // The value of another generator's tick.
            run.memo_tick.set(0);
        }
        run.size.set(reserved.count);
        run.word.set(word);
        match reserved.reading {
            Some(reading) => {
                run.reading.set(reading);
                // `first` is the run's first ID and `count` at least 1. Past the last ID
                // these may wrap, alike: the run's IDs are the `count - 1` from `next` on.
                run.next.set(reserved.first.wrapping_add(step));
                run.end.set(
                    reserved
                        .first
                        .wrapping_add(reserved.count.wrapping_mul(step)),
                );
            }
            // Used up: the next run may be as large as this one allowed.
            None => run.end.set(run.next.get()),
        }
    });
}

/// `value(tick)` plus the bits of `word` under `sequence_mask`, where `tick` is `word` with
/// those bits clear and `value` a function of the generator numbered `generator` and the tick
/// alone: remembered beside this thread's run while the run is that generator's (see the
/// module's `# A value of the run's generator's tick`), computed otherwise.
#[inline(always)]
pub(super) fn remembered(
    generator: u64,
    word: u64,
    sequence_mask: u64,
    value: impl FnOnce(u64) -> u128,
) -> u128 {
    RUN.with(|run| {
        let sequence = word.wrapping_sub(run.memo_tick.get());
        // Tick 0 for none: no generator mints in it, so its value is never asked for. On a
        // single mint's fast path, `take` compared the same number a moment ago.
        if run.generator.get() == generator && sequence <= sequence_mask {
            return run.memo.get() + u128::from(sequence);
        }
        remember(run, generator, word, sequence_mask, value)
    })
}

/// [`remembered`] for a tick whose value is not in memory: computed, and kept if this
/// thread's run is of `generator`.
#[cold]
#[inline(never)]
fn remember(
    run: &Run,
    generator: u64,
    word: u64,
    sequence_mask: u64,
    value: impl FnOnce(u64) -> u128,
) -> u128 {
    let tick = word & !sequence_mask;
    let memo = value(tick);
    if run.generator.get() == generator {
        run.memo_tick.set(tick);
        run.memo.set(memo);
    }
    memo + u128::from(word & sequence_mask)
}

/// [`after_fork_in_child`], registered with the fork handlers by every sharded generator
/// before it is used.
pub(super) static IN_CHILD: ChildStep = ChildStep::new(after_fork_in_child);

/// Drops the forking thread's run in a child of `fork()`; see the module's fork story. Runs in
/// the child handler, in a child with one thread: stores to a thread-local, no lock, no
/// allocation.
fn after_fork_in_child() {
    // `try_with`: a fork from inside a thread-local's destructor finds no run to drop.
    let _ = RUN.try_with(|run| run.generator.set(0));
}
