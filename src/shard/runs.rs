//! Each thread's run: IDs a thread reserved from its shard of a
//! [`ShardedGenerator`](super::ShardedGenerator) with one compare-and-swap, handed out one per
//! mint with no atomic operation at all.
//!
//! A run is a block of consecutive states of one tick, reserved by the shard's fast path at a
//! clock reading on that tick. The thread hands out the next ID of its run while the clock
//! still reads the same and the run has IDs left, which costs a compare of the reading, a
//! check of the count left, and two stores, all in the thread's own memory: what
//! a [`LocalGenerator`](crate::LocalGenerator) pays, behind a handle that any number of
//! threads share. Any other outcome (another reading, an empty run, another generator) goes to
//! the shard, out of line.
//!
//! Runs start at one ID and double each time a thread uses one up on its tick, up to the
//! handle's cap, so a thread minting one ID a tick reserves one ID a tick, and one minting
//! flat out reserves a CAS's worth of IDs per [`MAX_RUN`] mints. A run left over when the
//! reading changes is dropped: its IDs are never handed out, so none is repeated, and the
//! thread's next ID comes from its shard's later state, so its IDs keep increasing. Threads
//! that share a shard (more threads than shards) each take runs of it: each thread's IDs
//! increase, and within a tick the sharers' IDs interleave by run.
//!
//! # Fork story
//!
//! A run is in a thread-local, so a child of `fork()` has a copy of the forking thread's run,
//! which would hand out IDs its parent hands out too. The child handler
//! ([`after_fork_in_child`]) drops it; the child's next mint goes to the shard, which fails
//! with [`Error::Forked`](crate::Error::Forked).

use std::cell::Cell;

/// The most IDs a thread reserves in one run.
pub(super) const MAX_RUN: u64 = 1024;

/// A thread's run: `left` IDs from `next` in steps of `step`, minted by the generator
/// numbered `generator`, handed out while the clock reads `reading`.
struct Run {
    /// The sharded generator's number ([`Claims::id`](super::claims::Claims::id)); 0 for no
    /// run.
    generator: Cell<u64>,
    reading: Cell<u64>,
    next: Cell<u64>,
    left: Cell<u64>,
    step: Cell<u64>,
    /// How many IDs the run held when it was reserved.
    size: Cell<u64>,
}

thread_local! {
    /// This thread's run. No destructor, so it answers during other thread-locals' destructors
    /// too.
    static RUN: Run = const {
        Run {
            generator: Cell::new(0),
            reading: Cell::new(0),
            next: Cell::new(0),
            left: Cell::new(0),
            step: Cell::new(0),
            size: Cell::new(0),
        }
    };
}

/// The next ID of this thread's run in the generator numbered `generator`, if the clock reads
/// `reading`, the reading the run was reserved at, and the run has one left.
#[inline(always)]
pub(super) fn take(generator: u64, reading: u64) -> Option<u64> {
    RUN.with(|run| {
        let left = run.left.get();
        if run.generator.get() == generator && run.reading.get() == reading && left != 0 {
            let id = run.next.get();
            run.left.set(left - 1);
            // Past the last ID this may wrap; with no IDs left it is never handed out.
            run.next.set(id.wrapping_add(run.step.get()));
            Some(id)
        } else {
            None
        }
    })
}

/// How many IDs this thread's next run in the generator numbered `generator` should hold:
/// twice the last run's size if the thread used it up, else one; at most `cap`.
pub(super) fn next_size(generator: u64, cap: u64) -> u64 {
    RUN.with(|run| {
        let used_up = run.generator.get() == generator && run.left.get() == 0;
        if used_up {
            (run.size.get() * 2).min(cap)
        } else {
            1
        }
    })
    .max(1)
}

/// Starts this thread's run in the generator numbered `generator`: the `size` IDs from
/// `first` in steps of `step`, of which the caller hands out `first` itself, the rest while the
/// clock reads `reading`. A `reading` of `None` (the IDs were not reserved on the tick of a
/// reading the caller can compare) starts an empty run of that size.
pub(super) fn start(generator: u64, first: u64, size: u64, step: u64, reading: Option<u64>) {
    RUN.with(|run| {
        run.generator.set(generator);
        run.size.set(size);
        run.step.set(step);
        match reading {
            Some(reading) => {
                run.reading.set(reading);
                // `first` is the run's first ID and `size` at least 1: its last ID is in the
                // layout, so the second is only computed when there is one.
                run.next.set(first.wrapping_add(step));
                run.left.set(size - 1);
            }
            // Used up: the next run may be as large as this one allowed.
            None => run.left.set(0),
        }
    });
}

/// Drops this thread's run in the generator numbered `generator`, if it has one: the thread
/// is about to mint from a shard directly, and its IDs must keep increasing.
#[inline]
pub(super) fn drop_run(generator: u64) {
    RUN.with(|run| {
        if run.generator.get() == generator {
            run.generator.set(0);
        }
    });
}

/// Drops the forking thread's run in a child of `fork()`; see the module's fork story. Runs in
/// the child handler, in a child with one thread: stores to a thread-local, no lock, no
/// allocation.
pub(crate) fn after_fork_in_child() {
    // `try_with`: a fork from inside a thread-local's destructor finds no run to drop.
    let _ = RUN.try_with(|run| run.generator.set(0));
}
