//! Where a generator keeps its one word of state: an atomic for a generator any thread may
//! mint from, a plain cell for a generator one thread owns.
//!
//! The generator's algorithm is the same for both: load the word, compute the next state,
//! compare-and-swap it. [`SharedState`] does that with an `AtomicU64`. [`LocalState`] does it
//! with a `Cell<u64>`: a load and a store, no locked instruction, and the type system keeps
//! every other thread out (a `Cell` is not `Sync`, so neither is a generator built on one).

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use crate::layout::{AnyLayout, LayoutKind};
use crate::pause::{self, Point};
use crate::sync::{AtomicU64, Ordering};

/// The storage of a generator's state word: [`SharedState`] (the default) or [`LocalState`].
///
/// Sealed: snowmint's generator relies on exactly these two.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, Generator, Layout, generator::State};
///
/// /// Works on a shared generator and on a per-thread one.
/// fn increasing<C: Clock, S: State>(generator: &Generator<C, S>) -> snowmint::Result<bool> {
///     Ok(generator.mint()? < generator.mint()?)
/// }
///
/// let shared = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
/// let local = Generator::builder(Layout::TWITTER).node("machine", 2).build_local()?;
/// assert!(increasing(&shared)? && increasing(&local)?);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait State: sealed::Word {}

pub(crate) mod sealed {
    use crate::sync::AtomicU64;

    /// A word the generator creates itself, holding its start.
    pub(crate) trait Fresh: Word {
        /// A word holding `state`, for a generator whose IDs carry `node_bits`.
        fn new(state: u64, node_bits: u64) -> Self;
    }

    /// The operations a generator performs on its state word.
    pub trait Word {
        /// What [`Error::Forked`](crate::Error::Forked) calls a generator on this word.
        const GENERATOR: &'static str;

        /// Whether one thread owns the word: then nothing writes it between that thread's
        /// load and store, and the fast path may load it after reading the clock.
        const OWNED: bool;

        /// Whether generators reading other clocks write the word too (a word several
        /// processes share): then a state another generator installed is not a time this
        /// generator's clock has shown, and a lost swap to a state past its reading starts over
        /// from a fresh reading instead of minting on that state.
        const OTHER_CLOCKS: bool = false;

        /// The tick-tock high-water marks the generator keeps with this word: `own`, the
        /// generator's, unless the word keeps its own beside it (a [`SharedWord`](super::SharedWord),
        /// whose marks every process minting into it must see).
        #[inline(always)]
        fn high_water<'a>(&'a self, own: &'a [AtomicU64; 2]) -> &'a [AtomicU64; 2] {
            own
        }

        /// The current state. `Acquire` on an atomic (see the generator's `# Orderings`).
        fn load(&self) -> u64;

        /// Replaces `current` with `next` if the word still holds `current` (and may fail
        /// spuriously, as `compare_exchange_weak` may); `Err` carries the value found.
        fn swap_if(&self, current: u64, next: u64) -> Result<u64, u64>;

        /// [`swap_if`](Self::swap_if) without spurious failures.
        fn swap_if_strong(&self, current: u64, next: u64) -> Result<u64, u64>;

        /// Whether the word keeps a confirmed tick (see [`confirm`](Self::confirm)), so that a
        /// single mint tries its step first: [`step_confirmed`](Self::step_confirmed) for a
        /// word one thread owns, [`step_confirmed_from`](Self::step_confirmed_from) for the
        /// others.
        const CONFIRMS: bool = false;

        /// The next state on the tick the last [`confirm`](Self::confirm) vouched for,
        /// installed, if the clock still reads `reading` (the confirmed reading) and the tick
        /// has room, returned as its ID (with the node bits); `one` is one sequence step.
        /// `None` otherwise, and for a word that keeps no confirmed reading.
        #[inline(always)]
        fn step_confirmed(&self, reading: u64, one: u64) -> Option<u64> {
            let _ = (reading, one);
            None
        }

        /// The word as stored (`Acquire`, as [`load`](Self::load)): the state, with the node
        /// bits for a word that keeps them (see [`state_of`](Self::state_of)).
        #[inline(always)]
        fn load_word(&self) -> u64 {
            self.load()
        }

        /// The state a value of the word as stored holds.
        #[inline(always)]
        fn state_of(&self, word: u64) -> u64 {
            word
        }

        /// [`step_confirmed`](Self::step_confirmed) for a word other threads may write, from
        /// `word`, its value as stored, loaded after the clock read `reading`, with the layout's
        /// epoch and time shift: the ID, or the word as last seen (after a lost swap, the value
        /// the swap found) and whether `reading` is the confirmed tick's, for the mint to go on
        /// from. Always a miss for a word that keeps no confirmed tick.
        #[inline(always)]
        fn step_confirmed_from(
            &self,
            word: u64,
            reading: u64,
            one: u64,
            epoch_ms: u64,
            time_shift: u32,
        ) -> Result<u64, (u64, bool)> {
            let _ = (reading, one, epoch_ms, time_shift);
            Err((word, false))
        }

        /// Vouches that the state just installed is on the tick of the clock reading `reading`,
        /// in a process that may mint (not a forked child), and that `limit` is that tick's last
        /// state. Nothing for a word that keeps no confirmed tick. A word other threads may
        /// write is confirmed only on a layout whose ticks are 1 ms and whose word only rises
        /// (`Plan::steps`), and keeps the limit alone: its tick is the reading's.
        #[inline(always)]
        fn confirm(&self, reading: u64, limit: u64) {
            let _ = (reading, limit);
        }
    }
}

/// A state word any thread may mint from: one `AtomicU64`, advanced by compare-and-swap. A
/// generator on it is `Sync`.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::CachedClock, generator::SharedState};
///
/// let generator: Generator<CachedClock, SharedState> =
///     Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
/// let ids: Vec<_> = std::thread::scope(|s| {
///     let workers: Vec<_> = (0..2).map(|_| s.spawn(|| generator.mint().unwrap())).collect();
///     workers.into_iter().map(|w| w.join().unwrap()).collect()
/// });
/// assert_ne!(ids[0], ids[1]);
/// # Ok::<(), snowmint::Error>(())
/// ```
///
/// The word holds the state with the generator's node bits in their field: the last ID
/// minted, as a [`LocalState`]'s does. Beside it, it keeps the last ID of the tick a fast mint
/// last confirmed: on a layout whose tick is 1 ms, that tick is its clock reading less the
/// epoch, so while the clock reads it, a mint is a compare of the reading with the limit's
/// tick, a compare of the word against the limit and the compare-and-swap, with no range check
/// of the reading and no node bits to add (see `step_confirmed_from`).
pub struct SharedState {
    /// The state with the node bits: the last ID minted.
    word: AtomicU64,
    /// The last ID of a confirmed tick (0: none, which no ID is below).
    limit: AtomicU64,
    node_bits: u64,
}

impl State for SharedState {}

impl SharedState {
    /// The word itself, which holds the last ID minted: for a sharded generator's per-thread
    /// run, which keeps its address to compare the word with the last ID of its reservation
    /// (see `shard::runs`).
    pub(crate) fn word(&self) -> &AtomicU64 {
        &self.word
    }

    /// A swap's outcome, with the states its values of the word hold.
    #[inline(always)]
    fn states_of(&self, swapped: Result<u64, u64>) -> Result<u64, u64> {
        use sealed::Word;
        swapped
            .map(|found| self.state_of(found))
            .map_err(|found| self.state_of(found))
    }
}

impl sealed::Fresh for SharedState {
    fn new(state: u64, node_bits: u64) -> Self {
        SharedState {
            word: AtomicU64::new(state | node_bits),
            limit: AtomicU64::new(0),
            node_bits,
        }
    }
}

impl sealed::Word for SharedState {
    const GENERATOR: &'static str = "Generator";
    const OWNED: bool = false;
    const CONFIRMS: bool = true;

    #[inline(always)]
    fn load(&self) -> u64 {
        self.state_of(self.load_word())
    }

    #[inline(always)]
    fn swap_if(&self, current: u64, next: u64) -> Result<u64, u64> {
        let bits = self.node_bits;
        // AcqRel on success publishes the tick this thread read; Acquire on failure, as for
        // the load (see the generator's `# Orderings`).
        let swapped = self.word.compare_exchange_weak(
            current | bits,
            next | bits,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        self.states_of(swapped)
    }

    fn swap_if_strong(&self, current: u64, next: u64) -> Result<u64, u64> {
        let bits = self.node_bits;
        let swapped = self.word.compare_exchange(
            current | bits,
            next | bits,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        self.states_of(swapped)
    }

    #[inline(always)]
    fn load_word(&self) -> u64 {
        self.word.load(Ordering::Acquire)
    }

    #[inline(always)]
    fn state_of(&self, word: u64) -> u64 {
        // Every value stored holds exactly the node bits in their field.
        word ^ self.node_bits
    }

    /// Sound with any limit a confirm stored, however late, because the word is confirmed
    /// only where its values only rise (no tick-tock bit, whose toggle installs a lower state)
    /// and never repeat. A confirm's store is `Release` and this load `Acquire`, so the swap
    /// that installed the limit's tick comes before this thread's swap in the word's order.
    /// If this swap succeeds, `word` is the word's value just before it: at or past the ID that
    /// swap installed, on the limit's tick, and below the limit, so on the limit's tick with
    /// room, and `word + one` is an ID of that tick no mint installed before. That tick is the
    /// reading's (a tick of 1 ms is its reading less the epoch, which this compares; the limit
    /// is 0 until a confirm, and no reading passes both compares with it), so the step
    /// neither lags the reading nor runs ahead of it, and the reading is one the confirm's
    /// swap range-checked.
    #[inline(always)]
    fn step_confirmed_from(
        &self,
        word: u64,
        reading: u64,
        one: u64,
        epoch_ms: u64,
        time_shift: u32,
    ) -> Result<u64, (u64, bool)> {
        let limit = self.limit.load(Ordering::Acquire);
        if reading.wrapping_sub(epoch_ms) != limit >> time_shift {
            return Err((word, false));
        }
        if word >= limit {
            return Err((word, true));
        }
        pause::point(Point::Mint);
        let next = word + one;
        // Orderings as in `swap_if`.
        match self
            .word
            .compare_exchange_weak(word, next, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(next),
            Err(found) => Err((found, true)),
        }
    }

    #[inline(always)]
    fn confirm(&self, _: u64, limit: u64) {
        self.limit.store(limit | self.node_bits, Ordering::Release);
    }
}

impl fmt::Debug for SharedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SharedState").field(&self.word).finish()
    }
}

/// A state word one thread owns: a `Cell<u64>`, advanced by a load and a store.
/// A generator on it is `Send` (it can move to the thread that will own it) but not `Sync`.
///
/// The swap still compares before it stores, so a clock that mints from the same generator
/// inside its own reading (re-entrancy, the one way a second mint can start before the first
/// finishes) makes the outer mint start over instead of repeating an ID.
///
/// Beside the word it keeps the clock reading its last fast mint was made at and the last
/// state of that tick: while the clock reads the same, the next mint on the tick is a compare
/// of the reading and of the state against that limit, and one store, with no conversion of
/// the reading to ticks (each conversion and range check was done for that reading already).
/// Every swap withdraws the limit (sets it to 0, which no ID is below), so a
/// state the slow path installs (a borrowed tick, a tick-tock toggle) is never stepped on
/// with another tick's limit. The word holds the state with the generator's node bits in
/// their field (the last ID minted), and so does the limit: such a mint is the ID itself,
/// with no node bits to add.
///
/// `L` is the layout as the compiler knows it: [`AnyLayout`] (the default) for a layout given
/// at run time, or a [`FixedLayout`](crate::layout::FixedLayout) type, whose sequence step is then a constant of the mint
/// (see [`GeneratorBuilder::build_local_fixed`](super::GeneratorBuilder::build_local_fixed)).
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::CachedClock, generator::LocalState};
///
/// let generator: Generator<CachedClock, LocalState> =
///     Generator::builder(Layout::TWITTER).node("machine", 1).build_local()?;
/// let owner = std::thread::spawn(move || generator.mint()); // moved to the thread that owns it
/// assert!(owner.join().unwrap().is_ok());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct LocalState<L: LayoutKind = AnyLayout> {
    /// The state with the node bits: the last ID minted.
    word: Cell<u64>,
    /// The reading the current tick was confirmed at.
    reading: Cell<u64>,
    /// The confirmed tick's last ID; 0 when none is confirmed.
    limit: Cell<u64>,
    node_bits: u64,
    layout: PhantomData<fn() -> L>,
}

impl<L: LayoutKind> State for LocalState<L> {}

impl<L: LayoutKind> sealed::Fresh for LocalState<L> {
    fn new(state: u64, node_bits: u64) -> Self {
        LocalState {
            word: Cell::new(state | node_bits),
            reading: Cell::new(0),
            limit: Cell::new(0),
            node_bits,
            layout: PhantomData,
        }
    }
}

impl<L: LayoutKind> sealed::Word for LocalState<L> {
    const GENERATOR: &'static str = "LocalGenerator";
    const OWNED: bool = true;
    const CONFIRMS: bool = true;

    #[inline(always)]
    fn load(&self) -> u64 {
        // Every value stored holds exactly the node bits in their field.
        self.word.get() ^ self.node_bits
    }

    #[inline(always)]
    fn swap_if(&self, current: u64, next: u64) -> Result<u64, u64> {
        let found = self.load();
        if found == current {
            self.word.set(next | self.node_bits);
            self.limit.set(0);
            Ok(found)
        } else {
            Err(found)
        }
    }

    fn swap_if_strong(&self, current: u64, next: u64) -> Result<u64, u64> {
        self.swap_if(current, next)
    }

    #[inline(always)]
    fn step_confirmed(&self, reading: u64, one: u64) -> Option<u64> {
        let one = match L::SEQUENCE_STEP {
            0 => one,
            step => step,
        };
        // Loaded after the reading: a clock that minted from this generator inside the
        // reading left a state this step follows (or a withdrawn limit). While a limit is
        // confirmed, the word and the limit differ in the sequence field alone (every swap
        // withdraws it), so comparing the IDs compares the sequences.
        let current = self.word.get();
        if reading == self.reading.get() && current < self.limit.get() {
            let next = current + one;
            self.word.set(next);
            Some(next)
        } else {
            None
        }
    }

    #[inline(always)]
    fn confirm(&self, reading: u64, limit: u64) {
        self.reading.set(reading);
        self.limit.set(limit | self.node_bits);
    }
}

impl<L: LayoutKind> fmt::Debug for LocalState<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LocalState")
            .field(&sealed::Word::load(self))
            .finish()
    }
}
