//! The one place snowmint takes its atomics and spin hints from.
//!
//! Under `cfg(snowmint_loom)` everything here comes from [loom](https://docs.rs/loom), so the model
//! checker in `loom-tests/` can explore every interleaving of the mint path, of the cached
//! clock's refresher and of the monotonic clock's re-anchor; otherwise it comes from `core`
//! and `std`. No other module imports `core::sync::atomic` directly.

#[cfg(all(snowmint_loom, snowmint_test_hooks))]
pub(crate) use loom::thread::current;
#[cfg(snowmint_loom)]
pub(crate) use loom::{
    sync::atomic::{AtomicU64, Ordering, fence},
    sync::{Arc, Mutex},
    thread::{Thread, yield_now},
};

#[cfg(not(snowmint_loom))]
pub(crate) use core::sync::atomic::{AtomicU64, Ordering, fence};
#[cfg(not(snowmint_loom))]
pub(crate) use std::sync::{Arc, Mutex};
#[cfg(all(not(snowmint_loom), snowmint_test_hooks))]
pub(crate) use std::thread::current;
#[cfg(not(snowmint_loom))]
pub(crate) use std::thread::{Thread, yield_now};

/// Starts a thread named `name` running `body`, and returns its handle.
///
/// Under loom no thread is started (a model runs the threads it spawns itself): the error
/// says so, and the caller goes on without the thread.
#[cfg(not(snowmint_loom))]
pub(crate) fn spawn(name: &str, body: impl FnOnce() + Send + 'static) -> std::io::Result<Thread> {
    let handle = std::thread::Builder::new().name(name.into()).spawn(body)?;
    Ok(handle.thread().clone())
}

#[cfg(snowmint_loom)]
pub(crate) fn spawn(_name: &str, _body: impl FnOnce() + Send + 'static) -> std::io::Result<Thread> {
    Err(std::io::Error::other(
        "loom models start no threads of their own",
    ))
}

/// Exponential backoff for the waits of the cold paths (sequence overflow, clock behind):
/// `snooze`.
///
/// Outside loom this is crossbeam's [`Backoff`](crossbeam_utils::Backoff): `snooze` doubles its
/// run of `spin_loop` hints up to 64, then yields. Under loom every step yields to the model's
/// scheduler, so a waiting thread lets the thread it waits for run.
#[cfg(not(snowmint_loom))]
pub(crate) use crossbeam_utils::Backoff;

/// The wait of a thread whose tick is full, until the clock reaches the next tick: sleeps
/// (of at most 10 ms each) through all but the last millisecond of a longer wait; then spin
/// hints between looks at the clock, doubling up to [`TickWait::MAX_SPINS`], and after that
/// naps of [`TickWait::NAP`]; never a yield. A tick fills in microseconds, and a thread that
/// yields leaves its core to whichever thread runs next for the rest of that thread's time
/// slice, a few milliseconds, and misses the next tick's start when every core is busy; a
/// thread that naps is woken when its nap ends, ahead of the threads that used their share of
/// the core, and while it sleeps leaves the core to the other threads of its process (more
/// threads than cores, each with a generator of its own), which spinning through the whole
/// wait would take from them (BENCHMARKS.md, the saturation targets and the scaling tables).
/// Under loom, a yield to the model's scheduler.
pub(crate) struct TickWait {
    /// The spin hints of the next wait (unread under loom).
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    spins: core::cell::Cell<u32>,
}

impl TickWait {
    /// The most spin hints between two looks at the clock.
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    pub(crate) const MAX_SPINS: u32 = 64;
    /// A nap, once the spins reached [`MAX_SPINS`](Self::MAX_SPINS): the kernel's timer slack
    /// (50 µs by default on Linux) comes on top.
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    pub(crate) const NAP: std::time::Duration = std::time::Duration::from_micros(50);
    /// The longest sleep between two looks at the clock, in milliseconds.
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    const MAX_NAP_MS: u64 = 10;

    pub(crate) fn new() -> Self {
        TickWait {
            spins: core::cell::Cell::new(1),
        }
    }

    /// Waits before the next look at the clock, which reads `ms_left` whole milliseconds
    /// before the tick waited for (at least 1).
    #[cfg(not(snowmint_loom))]
    pub(crate) fn snooze(&self, ms_left: u64) {
        if ms_left > 1 {
            // In slices, so that a clock set forward by hand (a test's) is seen soon.
            let nap = (ms_left - 1).min(Self::MAX_NAP_MS);
            std::thread::sleep(std::time::Duration::from_millis(nap));
            return;
        }
        let spins = self.spins.get();
        if spins > Self::MAX_SPINS {
            std::thread::sleep(Self::NAP);
            return;
        }
        for _ in 0..spins {
            core::hint::spin_loop();
        }
        self.spins.set(spins * 2);
    }

    #[cfg(snowmint_loom)]
    pub(crate) fn snooze(&self, _: u64) {
        loom::thread::yield_now();
    }
}

#[cfg(snowmint_loom)]
pub(crate) struct Backoff;

#[cfg(snowmint_loom)]
impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff
    }

    pub(crate) fn snooze(&self) {
        loom::thread::yield_now();
    }
}

/// Backoff after a lost compare-and-swap on a word many threads write: a random number of
/// spin hints, from one up to a bound that starts at one and doubles with each loss, up to
/// [`CasBackoff::MAX_SPINS`].
///
/// Random, because threads that lost the same compare-and-swap and wait alike retry together
/// and lose together again; a bound that grows, because the more threads contend, the longer
/// each must stay off the line for the winner to mint from its own cache. On 16 cores
/// (BENCHMARKS.md, "Scaling, 16 cores") a shared generator kept 89% of its one-thread IDs/s on
/// 16 threads with this backoff, against 45% with crossbeam's fixed doubling (two steps per
/// loss, up to 64 spins each), and the two agreed within the rounds' spread on one and two
/// threads. Under loom each loss is one spin hint.
pub(crate) struct CasBackoff {
    /// The most spin hints the next loss waits (unread under loom: one hint per loss).
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    bound: core::cell::Cell<u32>,
}

impl CasBackoff {
    /// The most spin hints one loss waits.
    #[cfg_attr(snowmint_loom, allow(dead_code))]
    pub(crate) const MAX_SPINS: u32 = 1024;

    pub(crate) fn new() -> Self {
        CasBackoff {
            bound: core::cell::Cell::new(1),
        }
    }

    /// Waits after a lost compare-and-swap; how many spin hints it waited.
    #[cfg(not(snowmint_loom))]
    pub(crate) fn lost(&self) -> u32 {
        let bound = self.bound.get();
        // `bound` is a power of two: the low bits of a random word are uniform below it.
        let spins = (random() as u32 & (bound - 1)) + 1;
        for _ in 0..spins {
            core::hint::spin_loop();
        }
        self.bound.set((bound * 2).min(Self::MAX_SPINS));
        spins
    }

    #[cfg(snowmint_loom)]
    pub(crate) fn lost(&self) -> u32 {
        loom::hint::spin_loop();
        1
    }
}

/// A random word from the calling thread's xorshift generator, seeded from the address of its
/// state (distinct in every live thread): jitter for [`CasBackoff`], nothing more. A forked
/// child's thread draws on from its parent thread's state: the same waits, never an ID.
#[cfg(not(snowmint_loom))]
fn random() -> u64 {
    thread_local! {
        /// The generator's state; 0 until the thread's first call seeds it.
        static STATE: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
    }
    STATE
        .try_with(|state| {
            let mut x = state.get();
            if x == 0 {
                // An odd multiple of the golden ratio's: never 0 for a nonzero address.
                x = (state as *const _ as u64 | 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            state.set(x);
            x
        })
        // A thread-local destructor's mint, after this thread's state is gone: no jitter.
        .unwrap_or(0)
}

/// `std`'s atomics, under loom too, for the shard claims of sharded generators: a claim
/// decides only which shard a thread mints from, never whether an ID is unique, and claims are
/// given back by thread-local destructors and counted in a `static`, where loom's atomics
/// cannot be.
pub(crate) mod plain {
    pub(crate) use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
}

#[cfg(all(test, not(snowmint_loom)))]
mod tests {
    use super::*;

    #[test]
    fn cas_backoff_waits_at_most_a_bound_that_doubles_to_its_cap() {
        let backoff = CasBackoff::new();
        let mut longest = 0;
        for loss in 0..40 {
            let bound = 1u32
                .checked_shl(loss)
                .unwrap_or(u32::MAX)
                .min(CasBackoff::MAX_SPINS);
            let spins = backoff.lost();
            assert!((1..=bound).contains(&spins), "loss {loss}: {spins} spins");
            longest = longest.max(spins);
        }
        // Thirty losses at the cap: one of them waits more than half of it, but for 2^-30.
        assert!(longest > CasBackoff::MAX_SPINS / 2, "{longest}");
    }

    #[test]
    fn each_thread_draws_its_own_jitter() {
        let here: Vec<u64> = (0..4).map(|_| random()).collect();
        let there: Vec<u64> = std::thread::spawn(|| (0..4).map(|_| random()).collect())
            .join()
            .unwrap();
        assert_ne!(here, there);
        assert!(here.iter().all(|&x| x != 0));
    }
}
