//! A state word several processes mint from: a [`SharedWord`] in memory they all map, and
//! [`ProcessShared`], the generator's view of it.
//!
//! Every process builds its own generator on the one word
//! ([`GeneratorBuilder::build_process_shared`](super::GeneratorBuilder::build_process_shared)),
//! reads its own clock, and mints with the same load and compare-and-swap as a
//! [`SharedState`](super::SharedState): the word's modification order is one for all of them,
//! so no two mints anywhere return the same ID (see the generator's `# Orderings`). The
//! tick-tock high-water marks live in the word's block too, so a toggle in one process sees
//! the timelines every other process minted on.

use std::fmt;

use super::minter::Plan;
use super::state::{State, sealed};
use crate::error::{Error, Result};
use crate::sync::{AtomicU64, Ordering};

/// One generator's state word in memory that several processes map: the state, the tick-tock
/// high-water marks, and the fingerprint of the generator configuration that claimed it.
///
/// `#[repr(C)]`, 64 bytes, aligned to 64, and all zeros is a fresh word: a block of shared
/// memory the operating system hands out zeroed (a shared anonymous mapping, a new file
/// mapped shared, a database server's shared memory segment) can be viewed as a `SharedWord`
/// as it is. [`SharedMapping`](super::SharedMapping) maps one safely.
///
/// **The memory must be shared, not copied.** Processes mint from the same word only if they
/// see the same memory: a `SharedWord` in a `static` or on the heap is copied into a child by
/// `fork()`, and a generator the child builds on its copy would mint its parent's IDs. Within
/// one process (threads only) any memory will do, as for a
/// [`Generator`](crate::Generator).
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, generator::SharedWord};
///
/// let word = SharedWord::new();
/// let a = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&word)?;
/// let b = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&word)?;
/// let first = a.mint()?;
/// assert!(b.mint()? > first); // one word: b continues after a
/// # Ok::<(), snowmint::Error>(())
/// ```
#[repr(C, align(64))]
pub struct SharedWord {
    /// The last state minted, without node bits.
    state: AtomicU64,
    /// The tick-tock high-water marks (see the generator's `# Orderings`).
    high_water: [AtomicU64; 2],
    /// The fingerprint of the configuration that claimed the word; 0 while unclaimed.
    claim: AtomicU64,
    /// Unused, zero: the block's size stays 64 bytes whatever is added.
    _reserved: [AtomicU64; 4],
}

/// A word of zeros: the body of `SharedWord::new`, `const` except under loom.
macro_rules! fresh_word {
    () => {
        SharedWord {
            state: AtomicU64::new(0),
            high_water: [AtomicU64::new(0), AtomicU64::new(0)],
            claim: AtomicU64::new(0),
            _reserved: [
                AtomicU64::new(0),
                AtomicU64::new(0),
                AtomicU64::new(0),
                AtomicU64::new(0),
            ],
        }
    };
}

impl SharedWord {
    /// The size of a word's block in bytes, for a caller reserving shared memory for one.
    pub const SIZE: usize = 64;

    /// A fresh word, unclaimed: for threads of one process, or to place in memory the caller
    /// shares in a way of its own. For processes, see [`SharedMapping`](super::SharedMapping).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::generator::SharedWord;
    ///
    /// static WORD: SharedWord = SharedWord::new();
    /// assert_eq!(std::mem::size_of::<SharedWord>(), SharedWord::SIZE);
    /// ```
    #[cfg(not(snowmint_loom))]
    pub const fn new() -> Self {
        fresh_word!()
    }

    /// A fresh word (loom's atomics are not `const`).
    #[cfg(snowmint_loom)]
    pub fn new() -> Self {
        fresh_word!()
    }

    /// Whether a generator was ever built on this word.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, generator::SharedWord};
    ///
    /// let word = SharedWord::new();
    /// assert!(!word.is_claimed());
    /// Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&word)?;
    /// assert!(word.is_claimed());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_claimed(&self) -> bool {
        self.claim.load(Ordering::Acquire) != 0
    }

    /// Claims the word for a generator planned as `plan` (or finds it claimed by one planned
    /// alike), then raises it to the generator's start: `state` and the `high_water` marks, as
    /// the builder computed them (fresh, or from a resumed snapshot). Never lowers the word.
    pub(super) fn join(&self, plan: &Plan, state: u64, high_water: [u64; 2]) -> Result<()> {
        let fingerprint = plan.fingerprint();
        // AcqRel: a process that finds the claim sees everything the claimer did before it.
        match self
            .claim
            .compare_exchange(0, fingerprint, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {}
            Err(found) if found == fingerprint => {}
            Err(found) => {
                return Err(Error::SharedWordClaimed {
                    found,
                    expected: fingerprint,
                });
            }
        }
        // The marks before the state: a thread that loads the raised state and then reads a
        // mark (a toggle does, in that order) sees the mark raised.
        for (mark, tick) in self.high_water.iter().zip(high_water) {
            mark.fetch_max(tick, Ordering::AcqRel);
        }
        let start_timeline = state & plan.tick_mask;
        let mut current = self.state.load(Ordering::Acquire);
        loop {
            let timeline = current & plan.tick_mask;
            // On the start's timeline, the start; on the other, that timeline's mark from the
            // start, with its sequence exhausted (minting there resumes on a later tick).
            let target = if timeline == start_timeline {
                state
            } else {
                let mark = high_water[usize::from(timeline != 0)];
                mark << plan.time_shift | timeline | plan.seq_mask
            };
            // On one timeline the words order as their ticks, then their sequences.
            if current >= target {
                return Ok(());
            }
            match self.state.compare_exchange_weak(
                current,
                target,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(()),
                Err(found) => current = found,
            }
        }
    }
}

impl Default for SharedWord {
    fn default() -> Self {
        SharedWord::new()
    }
}

impl fmt::Debug for SharedWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedWord")
            .field("state", &self.state.load(Ordering::Relaxed))
            .field("claim", &self.claim.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// The state word of a generator built on a [`SharedWord`] that other processes (or other
/// generators of this one) mint from too: see
/// [`GeneratorBuilder::build_process_shared`](super::GeneratorBuilder::build_process_shared).
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::CachedClock};
/// use snowmint::generator::{ProcessShared, SharedWord};
///
/// let word = SharedWord::new();
/// let generator: Generator<CachedClock, ProcessShared<'_>> =
///     Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&word)?;
/// assert!(generator.mint().is_ok());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct ProcessShared<'w>(&'w SharedWord);

impl<'w> ProcessShared<'w> {
    pub(super) fn new(word: &'w SharedWord) -> Self {
        ProcessShared(word)
    }
}

impl State for ProcessShared<'_> {}

impl sealed::Word for ProcessShared<'_> {
    const GENERATOR: &'static str = "process-shared Generator";
    const OWNED: bool = false;
    const OTHER_CLOCKS: bool = true;

    #[inline(always)]
    fn high_water<'a>(&'a self, _: &'a [AtomicU64; 2]) -> &'a [AtomicU64; 2] {
        &self.0.high_water
    }

    #[inline(always)]
    fn load(&self) -> u64 {
        self.0.state.load(Ordering::Acquire)
    }

    #[inline(always)]
    fn swap_if(&self, current: u64, next: u64) -> Result<u64, u64> {
        // As for `SharedState`.
        self.0
            .state
            .compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire)
    }

    fn swap_if_strong(&self, current: u64, next: u64) -> Result<u64, u64> {
        self.0
            .state
            .compare_exchange(current, next, Ordering::AcqRel, Ordering::Acquire)
    }
}

impl fmt::Debug for ProcessShared<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ProcessShared").field(self.0).finish()
    }
}

impl Plan {
    /// A fingerprint of everything that gives a state word its meaning and an ID its bits: the
    /// fields' positions, the epoch and tick, the sequence range and the node bits. The same
    /// in every process and build (FNV-1a over the values), never 0 (an unclaimed word).
    pub(super) fn fingerprint(&self) -> u64 {
        let values = [
            u64::from(self.time_shift),
            self.tick_mask,
            self.seq_one,
            self.seq_mask,
            self.seq_first,
            self.seq_last,
            self.node_bits,
            self.epoch_ms,
            self.tick_ms.get(),
            self.max_ticks,
        ];
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in values.iter().flat_map(|v| v.to_le_bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash.max(1)
    }
}
