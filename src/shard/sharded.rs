//! [`ShardedGenerator`]: k generators, each thread minting from a shard of its own.

use std::fmt;

use super::claims::Claims;
use super::runs;
use crate::clock::{Clock, DefaultClock};
use crate::error::Result;
use crate::generator::{Generator, GeneratorBuilder, Stats};
use crate::id::Id;
use crate::layout::Layout;
use crate::mint::{Attempt, OnFull};
use crate::sync::Ordering;
// `std`'s `Arc` under loom too: the shards' shared clock is read-only to them, outside the
// atomics that make IDs unique.
use std::sync::Arc;

/// A generator made of k independent shards, each a [`Generator`] on its own cache lines; each
/// thread that mints from it holds a shard of its own while there are free shards.
///
/// Threads on different cores then never write the same cache line, so minting scales with
/// cores instead of bouncing one line between them. IDs are unique across shards: the shards
/// split one node ID's sequence, or each has its own node ID ([`Shards`](super::Shards)).
///
/// # Ordering
///
/// - Each thread's IDs strictly increase (under the `Wait` and `Error`
///   [`ClockBehind`](crate::ClockBehind) policies): those it mints through the generator and
///   those it mints from its own shard ([`local`](Self::local), a handle kept from it, the
///   batch methods), in any mix, and in its thread-local destructors too. A thread takes its
///   shard's IDs in runs: one compare-and-swap reserves a run of the shard's next IDs on the
///   tick the clock reads, and the thread hands them out one per mint, with no
///   read-modify-write, while the clock reads the same and the shard has minted nothing since
///   (through any handle, on any thread). A run starts at one ID and doubles each time the
///   thread uses one up, up to an eighth of the shard's tick (at most 1,024 IDs); what is
///   left when the reading changes or the shard mints is never handed out. A shard reached by
///   index ([`shard`](Self::shard), [`shards`](Self::shards)) that is not the thread's own is
///   a generator of its own: its IDs are outside the thread's order.
/// - Across threads, IDs are ordered by time to the tick: an ID minted after another one was
///   returned (on any thread) carries a tick at least as late, for a clock that never reads
///   backwards (the default clock, over a [`MonotonicClock`](crate::clock::MonotonicClock)). A
///   clock that steps back is met by each shard's [`ClockBehind`](crate::ClockBehind) policy
///   against that shard's own last tick: a thread's run is never handed out below an ID its
///   shard already returned, but another shard, which minted nothing on the later tick, mints
///   on the earlier one. Within a tick, the order across shards is by node ID or sequence
///   range, and the order between threads sharing a shard by run, not by minting time.
///   With [`borrow_ahead(n)`](GeneratorBuilder::borrow_ahead), a shard that borrowed runs up to
///   `n` ticks ahead of the others, so the order across shards holds to within `n` ticks.
/// - Tasks of an async runtime move between threads, so between shards: a task's IDs are
///   unique but need not increase. A task that needs its own IDs in order mints from a shared
///   [`Generator`], whose every ID is above all it returned before, on any thread.
///
/// # Which thread mints from which shard
///
/// The first time a thread mints from a sharded generator it claims that generator's lowest
/// free shard, keeps it while it lives (so its IDs keep increasing), and gives it back when
/// it exits (a thread-local destructor that mints after that shares the shard whose last ID
/// is the highest, so its IDs still increase). So up to k threads that mint from the
/// generator at once (say one per core) each have a shard to itself, whatever other sharded
/// generators they or other threads mint from. A thread that finds every shard taken shares one, round robin over the shards, and
/// keeps it; sharers still get unique IDs, with the usual compare-and-swap between them.
/// [`shard`](Self::shard) reaches a shard by index, for thread-per-core runtimes that know
/// their core.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::Shards};
/// use std::collections::HashSet;
/// use std::thread;
///
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 7)
///     .build_sharded(Shards::SplitSequence(2))?;
/// let ids: Vec<_> = thread::scope(|s| {
///     let workers: Vec<_> = (0..2)
///         .map(|_| s.spawn(|| (0..1000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>()))
///         .collect();
///     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
/// });
/// assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 2000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct ShardedGenerator<C = DefaultClock> {
    /// `claims`' id, the key of each thread's run, kept here so the hot path reads it without
    /// following the `Arc`.
    id: u64,
    /// The shards' clock, read on the hot path to tell whether a thread's run is current.
    clock: Arc<C>,
    /// The most IDs a thread reserves in one run (see `runs`).
    run_cap: u64,
    /// One sequence step, in ID coordinates: the same in every shard, which share the layout
    /// (see `runs::take`).
    step: u64,
    shards: Box<[Generator<Arc<C>>]>,
    /// Which thread holds which shard.
    claims: Arc<Claims>,
}

impl<C: Clock> ShardedGenerator<C> {
    /// The sharded generator over `builders`, one shard each, sharing `clock`: the builders
    /// [`shard_builders`] makes, for [`GeneratorBuilder::build_sharded`].
    pub(super) fn from_builders(builders: Vec<GeneratorBuilder>, clock: C) -> Result<Self> {
        // Before any thread can hold a run of this generator's IDs.
        runs::IN_CHILD.register();
        let clock = Arc::new(clock);
        let shards = builders
            .into_iter()
            .map(|builder| {
                let shard = builder.clock(Arc::clone(&clock)).build()?;
                Ok(shard.named("ShardedGenerator"))
            })
            .collect::<Result<Vec<_>>>()?;
        let claims = Arc::new(Claims::new(shards.len()));
        // An eighth of the smallest shard's tick: a run a thread leaves over when its reading
        // changes is capacity its shard's sharers cannot use on that tick.
        let run_cap = shards
            .iter()
            .map(|shard| shard.ids_per_tick() / 8)
            .min()
            .unwrap_or(1)
            .clamp(1, runs::MAX_RUN);
        Ok(ShardedGenerator {
            id: claims.id(),
            clock,
            run_cap,
            step: shards.first().map_or(1, Generator::sequence_step),
            claims,
            shards: shards.into_boxed_slice(),
        })
    }

    /// The sharded generator, named `kind` in [`Error::Forked`]: for the types that wrap one.
    /// The shards are renamed where they are: their box is never replaced (see `runs::holds`).
    pub(crate) fn named(mut self, kind: &'static str) -> Self {
        for shard in self.shards.iter_mut() {
            shard.rename(kind);
        }
        self
    }
}

impl<C: Clock> ShardedGenerator<C> {
    /// Mints the next ID from the calling thread's shard, waiting for the next tick if that
    /// shard's is full. See [`Generator::mint`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a); // one thread, one shard: increasing
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<Id> {
        self.next_id(OnFull::Wait)
    }

    /// Mints the next ID from the calling thread's shard, or fails if that shard's tick is
    /// full. See [`Generator::try_mint`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::try_mint`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for _ in 0..2048 {
    ///     generator.try_mint()?; // this thread's shard holds half of each tick
    /// }
    /// assert!(generator.try_mint().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<Id> {
        self.next_id(OnFull::Fail)
    }

    /// Mints the next ID from the calling thread's shard if that needs no wait, or says how
    /// long to wait: never waits. See [`Generator::mint_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Layout, clock::ManualClock, shard::Shards};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for _ in 0..2048 {
    ///     assert!(generator.mint_or_wait()?.minted().is_some()); // the shard's half of the tick
    /// }
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(1)));
    /// clock.advance(1);
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<Id>> {
        match self.take_from_run() {
            Some(id) => Ok(Attempt::Minted(Id::from_u64(id))),
            None => self.next_run_or_wait(),
        }
    }

    /// The next ID of the calling thread's run, or of a new run from its shard.
    #[inline(always)]
    fn next_id(&self, on_full: OnFull) -> Result<Id> {
        match self.take_from_run() {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.next_run(on_full),
        }
    }

    /// The next ID of the calling thread's run, if the run is still good to hand out (see
    /// `runs`): the clock reads what it read when the run was reserved, and the run's shard
    /// has minted nothing since.
    #[inline(always)]
    fn take_from_run(&self) -> Option<u64> {
        let reading = self.clock.unix_ms_or_stale(crate::clock::seal::Token);
        // `self` is the generator numbered `self.id`, borrowed for the call.
        runs::take(self.id, reading, self.step)
    }

    /// Reserves the calling thread's next run from its shard and hands out its first ID.
    #[cold]
    #[inline(never)]
    fn next_run(&self, on_full: OnFull) -> Result<Id> {
        self.run_from_shard(on_full).map(Attempt::waited)
    }

    /// [`next_run`](Self::next_run) for [`mint_or_wait`](Self::mint_or_wait): never waits.
    #[cold]
    #[inline(never)]
    fn next_run_or_wait(&self) -> Result<Attempt<Id>> {
        self.run_from_shard(OnFull::Answer)
    }

    /// Reserves the calling thread's next run from its shard and hands out its first ID, or
    /// (under [`OnFull::Answer`] only) says how long to wait.
    #[inline(always)]
    fn run_from_shard(&self, on_full: OnFull) -> Result<Attempt<Id>> {
        let size = runs::next_size(self.id, self.run_cap);
        let shard = self.local();
        Ok(shard.reserve_ids(size, on_full)?.map(|reserved| {
            runs::start(
                self.id,
                shard.state_word(),
                shard.sequence_step(),
                &reserved,
            );
            Id::from_u64(reserved.first)
        }))
    }

    /// `value(tick)` plus the bits of `word` under `sequence_mask`, where `tick` is `word`
    /// with those bits clear: remembered beside the calling thread's run of this generator
    /// (after a single mint, one compare of the tick), computed otherwise. For a 128-bit
    /// family's first IDs: `value` must be a function of this generator and the tick alone
    /// (of what the one family generator that owns this one fixed at build).
    #[inline(always)]
    pub(crate) fn remembered(
        &self,
        word: u64,
        sequence_mask: u64,
        value: impl FnOnce(u64) -> u128,
    ) -> u128 {
        // The number `take_from_run` checks the run against, read from the same field.
        runs::remembered(self.id, word, sequence_mask, value)
    }

    /// Mints up to `out.len()` IDs from the calling thread's shard with one compare-and-swap.
    /// See [`Generator::mint_batch`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_batch`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 64];
    /// let n = generator.mint_batch(&mut ids)?;
    /// assert!(n >= 1 && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.local().mint_batch(out)
    }

    /// [`mint_batch`](Self::mint_batch) from the calling thread's shard, failing instead of
    /// waiting when that shard's tick is full. See [`Generator::try_mint_batch`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::try_mint_batch`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 4096];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 2048); // the shard's half of the tick
    /// assert!(generator.try_mint_batch(&mut ids).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.local().try_mint_batch(out)
    }

    /// [`mint_batch`](Self::mint_batch) from the calling thread's shard if that needs no
    /// wait, or how long to wait: never waits. See [`Generator::mint_batch_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_batch_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Id, Layout, clock::ManualClock, shard::Shards};
    /// use std::time::Duration;
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 4096];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(2048));
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Wait(Duration::from_millis(1)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch_or_wait(&self, out: &mut [Id]) -> Result<Attempt<usize>> {
        self.local().mint_batch_or_wait(out)
    }

    /// Mints exactly `n` IDs from the calling thread's shard into a new `Vec`. See
    /// [`Generator::mint_many`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_many`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let ids = generator.mint_many(3_000)?;
    /// assert_eq!(ids.len(), 3_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<Id>> {
        self.local().mint_many(n)
    }
}

crate::mint::mint_by_inherent!(impl[C: Clock] Mint<Id = Id> for ShardedGenerator<C>);

impl<C> ShardedGenerator<C> {
    /// The calling thread's shard: the same every time on this thread, and one no other thread
    /// mints from while no more threads than shards mint from this generator (see [Which
    /// thread mints from which shard](Self#which-thread-mints-from-which-shard)).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let local = generator.local();
    /// assert!(generator.shards().iter().any(|shard| std::ptr::eq(shard, local)));
    /// assert!(std::ptr::eq(local, generator.local())); // the same shard every time on this thread
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn local(&self) -> &Generator<Arc<C>> {
        &self.shards[self.index_of_this_thread()]
    }

    /// The index of the calling thread's shard (see `claims`).
    #[inline]
    fn index_of_this_thread(&self) -> usize {
        Claims::shard_of_this_thread(&self.claims, self.id, || self.highest_shard())
    }

    /// The shard whose last ID is the highest, for a thread that no longer knows its own (its
    /// claims were given back while its thread-local destructors run): every ID any shard
    /// handed out is at most its shard's last ID, so that shard's next ID is above every ID
    /// the thread minted from this generator, whichever shard it minted them from.
    #[cold]
    fn highest_shard(&self) -> usize {
        (0..self.shards.len())
            .max_by_key(|&i| {
                let shard = &self.shards[i];
                // The shard's last ID. Relaxed: the word only grows, and the caller's own
                // mints came before this.
                shard.state_word().load(Ordering::Relaxed)
            })
            .unwrap_or(0)
    }

    /// The shard at `index`, if there is one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let second = generator.shard(1).unwrap();
    /// assert_eq!(second.decode(second.mint()?)?.sequence(), 2048);
    /// assert!(generator.shard(2).is_none());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn shard(&self, index: usize) -> Option<&Generator<Arc<C>>> {
        self.shards.get(index)
    }

    /// All the shards, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .build_sharded(Shards::NodeBlock { field: "machine", values: 4..=6 })?;
    /// let nodes: Vec<u64> = generator.shards().iter().map(|shard| shard.node_bits() >> 12).collect();
    /// assert_eq!(nodes, [4, 5, 6]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn shards(&self) -> &[Generator<Arc<C>>] {
        &self.shards
    }

    /// How many shards there are (at least one).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(3))?;
    /// assert_eq!(generator.len(), 3);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.shards.len()
    }

    /// Always `false`: a sharded generator has at least one shard.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(1))?;
    /// assert!(!generator.is_empty());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shards.is_empty()
    }

    /// The shards' layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::DISCORD).node("worker", 1).node("process", 2)
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// assert_eq!(generator.layout(), &Layout::DISCORD);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        self.shards[0].layout()
    }

    /// The shards' counters, summed; `max_ahead_ticks` is the largest of theirs.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for shard in generator.shards() {
    ///     while shard.try_mint().is_ok() {}
    /// }
    /// assert_eq!(generator.stats().overflows, 2); // one per shard
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn stats(&self) -> Stats {
        self.shards
            .iter()
            .map(Generator::stats)
            .fold(Stats::default(), |total, shard| Stats {
                overflows: total.overflows + shard.overflows,
                waits: total.waits + shard.waits,
                regressions: total.regressions + shard.regressions,
                toggles: total.toggles + shard.toggles,
                borrows: total.borrows + shard.borrows,
                max_ahead_ticks: total.max_ahead_ticks.max(shard.max_ahead_ticks),
                events_dropped: total.events_dropped + shard.events_dropped,
            })
    }
}

impl<C> fmt::Debug for ShardedGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardedGenerator")
            .field("shards", &self.shards)
            .finish()
    }
}
