//! Configuring a generator: [`GeneratorBuilder`], from [`Generator::builder`] and
//! [`Generator::resume`].

use std::num::NonZeroU64;
use std::ops::RangeInclusive;
use std::sync::mpsc::SyncSender;

use super::minter::{Cold, Generator, LocalGenerator, Plan};
use super::policy::{ClockBehind, Event};
use super::process::{ProcessShared, SharedWord};
use super::snapshot::Snapshot;
use super::state::State;
use super::state::sealed::Fresh;
use crate::clock::cached::FIRST_READING;
use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, Result};
use crate::fork;
use crate::layout::{FixedLayout, Layout};

/// Configures a [`Generator`]: node fields, clock and clock-behind policy.
///
/// Setters record values; [`build`](Self::build) validates them all once.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Generator, Layout, clock::ManualClock};
///
/// let generator = Generator::builder(Layout::DISCORD)
///     .node("worker", 3)
///     .node("process", 4)
///     .on_clock_behind(ClockBehind::Error)
///     .clock(ManualClock::new(1_700_000_000_000))
///     .build()?;
/// let parts = generator.decode(generator.mint()?)?;
/// assert_eq!((parts.node("worker"), parts.node("process")), (Some(3), Some(4)));
///
/// let err = Generator::builder(Layout::DISCORD).node("shard", 1).build().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layout discord has no node field \"shard\"; its node fields are: worker, process"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct GeneratorBuilder<C = DefaultClock> {
    layout: Layout,
    nodes: Vec<(String, u64)>,
    /// Node fields not given are 0 ([`GeneratorBuilder::default_nodes`]) instead of an error.
    default_nodes: bool,
    on_behind: ClockBehind,
    sequence: Option<RangeInclusive<u64>>,
    borrow_ticks: u64,
    resume: Option<Snapshot>,
    events: Option<SyncSender<Event>>,
    clock: C,
}

impl Generator {
    /// Starts configuring a generator for `layout`, with no node field set yet (set each with
    /// [`node`](GeneratorBuilder::node)), the process-wide
    /// [`CachedClock`](crate::clock::CachedClock) and [`ClockBehind::default`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 5).build()?;
    /// assert_eq!(generator.decode(generator.mint()?)?.node("machine"), Some(5));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn builder(layout: Layout) -> GeneratorBuilder {
        GeneratorBuilder {
            layout,
            nodes: Vec::new(),
            default_nodes: false,
            on_behind: ClockBehind::default(),
            sequence: None,
            borrow_ticks: 0,
            resume: None,
            events: None,
            clock: DefaultClock::default(),
        }
    }

    /// Starts configuring a generator that continues from `snapshot`: its layout, node fields,
    /// sequence range, last minted state and high-water marks. Set the clock and policy as for
    /// [`builder`](Self::builder); see [`Snapshot`] for an example.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let old = Generator::builder(Layout::TWITTER).node("machine", 5).build()?;
    /// let last = old.mint()?;
    /// let new = Generator::resume(&old.snapshot()).build()?;
    /// assert!(new.mint()? > last);
    /// assert_eq!(new.snapshot().nodes, [("machine", 5)]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn resume(snapshot: &Snapshot) -> GeneratorBuilder {
        let mut builder = Generator::builder(snapshot.layout);
        for &(name, value) in &snapshot.nodes {
            builder = builder.node(name, value);
        }
        builder.sequence = Some(snapshot.sequence_range.clone());
        builder.resume = Some(snapshot.clone());
        builder
    }
}

impl<C> GeneratorBuilder<C> {
    /// Sets the node field called `name` (`machine`, `worker`, `process`, `shard`,
    /// `generator`, or a custom layout's own) to `value`.
    ///
    /// Every node field of the layout must be set, 0 included: none defaults to 0, since two
    /// processes that both forgot it would mint the same IDs. Checked by
    /// [`build`](Self::build): an unknown name, a name set twice, a value the field cannot hold
    /// or a field left unset is an error there.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1023).build()?;
    /// assert_eq!(generator.decode(generator.mint()?)?.node("machine"), Some(1023));
    /// assert!(Generator::builder(Layout::TWITTER).node("machine", 1024).build().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn node(mut self, name: &str, value: u64) -> Self {
        self.nodes.push((name.to_owned(), value));
        self
    }

    /// Accepts 0 for every node field not set with [`node`](Self::node), instead of failing
    /// to build: for tests, examples and a single process that owns the whole node space.
    /// Two processes that both rely on it share node 0 and mint the same IDs.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::DISCORD)
    ///     .node("worker", 3)
    ///     .default_nodes()
    ///     .build()?;
    /// let parts = generator.decode(generator.mint()?)?;
    /// assert_eq!((parts.node("worker"), parts.node("process")), (Some(3), Some(0)));
    ///
    /// let err = Generator::builder(Layout::DISCORD).build().unwrap_err();
    /// assert!(err.to_string().starts_with(
    ///     "layout discord needs node field worker (0..=31) and node field process (0..=31) set"
    /// ));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn default_nodes(mut self) -> Self {
        self.default_nodes = true;
        self
    }

    /// Sets what to do when the clock reads behind the last minted tick.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, Error, Generator, Layout, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// assert!(matches!(generator.mint(), Err(Error::ClockBehind { behind_ms: 1_000, .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.on_behind = policy;
        self
    }

    /// Confines the generator to the sequence values in `range` (inclusive): each tick starts
    /// at `range.start()` and holds at most `range.end() - range.start() + 1` IDs.
    ///
    /// Generators with the same layout and node fields and disjoint ranges never mint the same ID,
    /// so several generators (processes, or the shards of a
    /// [`ShardedGenerator`](crate::shard::ShardedGenerator)) can share one node ID.
    /// [`SequenceRanges`](crate::shard::SequenceRanges) splits a range into disjoint parts. Checked
    /// by [`build`](Self::build): an empty range or one past the layout's sequence field is
    /// [`Error::InvalidSequenceRange`]. The whole field by default.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let builder = Generator::builder(Layout::TWITTER).node("machine", 1);
    /// let low = builder.clone().sequence_range(0..=1023).clock(&clock).build()?;
    /// let high = builder.clone().sequence_range(1024..=4095).clock(&clock).build()?;
    /// assert_eq!(Layout::TWITTER.decode(low.mint()?)?.sequence(), 0);
    /// assert_eq!(Layout::TWITTER.decode(high.mint()?)?.sequence(), 1024);
    ///
    /// let err = builder.sequence_range(4000..=4096).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "sequence range 4000..=4096 for layout twitter ends past the sequence field; \
    ///      expected a non-empty range within 0..=4095"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn sequence_range(mut self, range: RangeInclusive<u64>) -> Self {
        self.sequence = Some(range);
        self
    }

    /// Lets a full tick borrow from the future: instead of waiting for the clock, the
    /// generator moves on to the next tick, as long as that keeps it at most `ticks` ticks
    /// ahead of the clock. Off (0) by default.
    ///
    /// Bursts above the layout's ceiling then do not stall until the borrowed ticks are used
    /// up; IDs stay unique and increasing, and their times run up to `ticks` ticks ahead of the
    /// clock until minting slows down and the clock catches up.
    /// [`Stats::borrows`](crate::generator::Stats::borrows) and
    /// [`Stats::max_ahead_ticks`](crate::generator::Stats::max_ahead_ticks) show how often and
    /// how far ahead the generator ran. A clock reading at most `ticks` behind the last minted
    /// tick is time already borrowed, not a regression.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .borrow_ahead(2)
    ///     .build()?;
    /// let ids: Vec<_> = (0..3 * 4096).map(|_| generator.try_mint()).collect::<Result<_, _>>()?;
    /// let last = Layout::TWITTER.decode(ids[3 * 4096 - 1])?;
    /// assert_eq!(last.unix_ms(), 1_700_000_000_002); // two ticks ahead of the clock
    /// assert!(generator.try_mint().is_err()); // and no further
    /// assert_eq!(generator.stats().max_ahead_ticks, 2);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn borrow_ahead(mut self, ticks: u64) -> Self {
        self.borrow_ticks = ticks;
        self
    }

    /// Sends an [`Event`] to `events` when a thread stalls on a full tick and when a regression
    /// is handled, at most once per tick for each kind, from the cold paths only.
    ///
    /// Minting never waits for the receiver: events are sent with `try_send`, and one that does
    /// not fit in the channel is dropped and counted in
    /// [`Stats::events_dropped`](crate::generator::Stats::events_dropped).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, Generator, Layout, clock::ManualClock, generator::Event};
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::sync_channel(16);
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(clock.clone())
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .notify(tx)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_990);
    /// assert!(generator.mint().is_err());
    /// assert!(matches!(rx.try_recv(), Ok(Event::Regression { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn notify(mut self, events: SyncSender<Event>) -> Self {
        self.events = Some(events);
        self
    }

    /// Uses `clock` instead of the process-wide [`CachedClock`](crate::clock::CachedClock).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// assert_eq!(generator.decode(generator.mint()?)?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> GeneratorBuilder<D> {
        self.swap_clock(clock).0
    }

    /// The layout being configured.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The sequence range set, if any.
    pub(crate) fn range(&self) -> Option<RangeInclusive<u64>> {
        self.sequence.clone()
    }

    /// Whether the builder continues from a snapshot.
    pub(crate) fn resumes(&self) -> bool {
        self.resume.is_some()
    }

    /// Splits the builder into its configuration, on the default clock, and its clock.
    pub(crate) fn take_clock(self) -> (GeneratorBuilder, C) {
        self.swap_clock(DefaultClock::default())
    }

    /// The same configuration on `clock`, and the clock it replaces.
    fn swap_clock<D>(self, clock: D) -> (GeneratorBuilder<D>, C) {
        let builder = GeneratorBuilder {
            layout: self.layout,
            nodes: self.nodes,
            default_nodes: self.default_nodes,
            on_behind: self.on_behind,
            sequence: self.sequence,
            borrow_ticks: self.borrow_ticks,
            resume: self.resume,
            events: self.events,
            clock,
        };
        (builder, self.clock)
    }

    /// Validates the configuration and pre-shifts the layout.
    fn plan(&self) -> Result<Plan> {
        let layout = &self.layout;
        let nodes: Vec<(&str, u64)> = self
            .nodes
            .iter()
            .map(|(name, value)| (name.as_str(), *value))
            .collect();
        let node_bits = layout.node_bits(&nodes)?;
        let tick_mask = layout.tick_tock_field().map_or(0, |f| f.mask());
        if tick_mask == 0 && matches!(self.on_behind, ClockBehind::TickTock { .. }) {
            return Err(Error::TickTockUnsupported {
                layout: layout.name(),
            });
        }
        let unset: Vec<(&'static str, u64)> = layout
            .node_fields()
            .filter(|field| !nodes.iter().any(|&(name, _)| name == field.name()))
            .map(|field| (field.name(), field.max()))
            .collect();
        // Node fields not given are 0 in `node_bits`: with `default_nodes`, that is the value.
        if !unset.is_empty() && !self.default_nodes {
            return Err(Error::NodeNotSet {
                layout: layout.name(),
                fields: unset,
            });
        }
        let range = match &self.sequence {
            Some(range) => layout.check_sequence_range(range)?,
            None => 0..=layout.max_sequence(),
        };
        let sequence = layout.sequence_field();
        let seq_shift = sequence.shift();
        Ok(Plan {
            time_shift: layout.time_field().shift(),
            tick_mask,
            seq_one: 1 << seq_shift,
            seq_shift,
            seq_mask: sequence.mask(),
            seq_first: range.start() << seq_shift,
            seq_last: range.end() << seq_shift,
            node_bits,
            epoch_ms: layout.epoch_ms(),
            min_ms: layout.epoch_ms().max(FIRST_READING),
            tick_ms: NonZeroU64::new(layout.tick_ms()).unwrap_or(NonZeroU64::MIN),
            max_ticks: layout.max_ticks(),
            forks: fork::watch(),
            steps: layout.tick_ms() == 1 && tick_mask == 0,
        })
    }

    /// The initial state word and high-water marks: fresh, or from the snapshot resumed.
    fn start(&self, plan: &Plan) -> Result<(u64, [u64; 2])> {
        // Tick 0 with its sequence exhausted, below every state a mint installs: the generator
        // never mints in tick 0 (`ticks` rejects it), so the first mint always starts a fresh
        // tick and needs no flag to know it is the first.
        let Some(snapshot) = &self.resume else {
            return Ok((plan.seq_mask, [0, 0]));
        };
        let layout = &self.layout;
        let invalid = |reason: String| Error::InvalidSnapshot {
            layout: layout.name(),
            reason,
        };
        let max_timeline = u64::from(plan.tick_mask != 0);
        if snapshot.last_tick > layout.max_ticks()
            || snapshot.other_timeline_tick > layout.max_ticks()
        {
            return Err(invalid(format!(
                "last tick {} or other timeline's tick {} is past the layout's last tick {}",
                snapshot.last_tick,
                snapshot.other_timeline_tick,
                layout.max_ticks()
            )));
        }
        if snapshot.sequence > layout.max_sequence() {
            return Err(invalid(format!(
                "sequence {} is out of range (0..={})",
                snapshot.sequence,
                layout.max_sequence()
            )));
        }
        if snapshot.timeline > max_timeline {
            return Err(invalid(format!(
                "timeline {} is out of range (0..={max_timeline})",
                snapshot.timeline
            )));
        }
        let timeline_bit = if snapshot.timeline == 1 {
            plan.tick_mask
        } else {
            0
        };
        // A sequence below the range (the snapshot of a generator with another range) would
        // continue below it, into a range another generator may own: count the tick as full.
        let sequence =
            if snapshot.last_tick == 0 || snapshot.sequence << plan.seq_shift < plan.seq_first {
                plan.seq_mask
            } else {
                snapshot.sequence << plan.seq_shift
            };
        let state = snapshot.last_tick << plan.time_shift | timeline_bit | sequence;
        let mut high_water = [0; 2];
        high_water[snapshot.timeline as usize] = snapshot.last_tick;
        high_water[1 - snapshot.timeline as usize] = snapshot.other_timeline_tick;
        Ok((state, high_water))
    }
}

impl<C: Clock> GeneratorBuilder<C> {
    /// Validates the configuration and builds the generator.
    ///
    /// # Errors
    ///
    /// The errors of [`Layout::node_bits`] for a bad node field ([`Error::UnknownNodeField`],
    /// [`Error::DuplicateNodeField`], [`Error::NodeOutOfRange`]), [`Error::NodeNotSet`] for a
    /// node field left unset, [`Error::TickTockUnsupported`] for the tick-tock policy on a
    /// layout without the bit, and [`Error::InvalidSnapshot`] for a resumed snapshot that does
    /// not fit the layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// assert!(generator.mint().is_ok());
    /// let err = Generator::builder(Layout::TWITTER).node("machine", 5000).build().unwrap_err();
    /// assert!(matches!(err, Error::NodeOutOfRange { .. }));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build(self) -> Result<Generator<C>> {
        self.build_on()
    }

    /// Validates the configuration and builds a generator on `word`, a state word other
    /// processes mint from too (each with a generator of its own, built alike): see
    /// [`SharedWord`]. The first generator built on a word claims it for this configuration
    /// (layout, node, sequence range); every later one must match it. A resumed snapshot
    /// ([`Generator::resume`], a [`MarkFile`](crate::mark::MarkFile)'s `resume`) raises the
    /// word to its start (never lowers it): resume the word's first generator, before any
    /// other process mints from it.
    ///
    /// Minting is what a [`Generator`] does, on the shared word: each ID is unique among every
    /// process's, and each process's IDs increase (under the `Wait` and `Error` policies; under
    /// `TickTock`, within each timeline, whose marks the word keeps for all). Each process reads
    /// its own clock: a process whose clock reads behind the tick another installed applies its
    /// [`ClockBehind`] policy, unless it borrows ([`borrow_ahead`](Self::borrow_ahead)), which
    /// takes a few ticks of skew between the processes' clocks without waiting.
    ///
    /// **Fork.** A generator built before a `fork()` refuses to mint in the child with
    /// [`Error::Forked`], as every generator does: it cannot tell whether the memory its word
    /// is in was shared with the child or copied. The child builds a generator of its own on
    /// the same word, which continues after every ID the parent minted, if the word is in
    /// shared memory (a [`SharedMapping`](super::SharedMapping) mapped before the fork).
    ///
    /// # Errors
    ///
    /// [`Error::SharedWordClaimed`] when the word was claimed by a generator of another layout,
    /// node or sequence range, and those of [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Generator, Layout, generator::SharedWord};
    ///
    /// let word = SharedWord::new();
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&word)?;
    /// assert!(generator.mint().is_ok());
    /// let other = Generator::builder(Layout::TWITTER).node("machine", 2).build_process_shared(&word);
    /// assert!(matches!(other, Err(Error::SharedWordClaimed { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_process_shared(
        self,
        word: &SharedWord,
    ) -> Result<Generator<C, ProcessShared<'_>>> {
        let plan = self.plan()?;
        let (state, high_water) = self.start(&plan)?;
        word.join(&plan, state, high_water)?;
        // The generator's own marks are unused: the word's are.
        Ok(Generator::assemble(
            self.layout,
            plan,
            self.on_behind,
            ProcessShared::new(word),
            Cold::new::<ProcessShared<'_>>([0, 0], self.borrow_ticks, self.events),
            self.clock,
        ))
    }

    /// Validates the configuration and builds a [`LocalGenerator`]: a generator for one
    /// thread, which mints without a locked instruction.
    ///
    /// # Errors
    ///
    /// As for [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, LocalGenerator};
    ///
    /// let generator: LocalGenerator = Generator::builder(Layout::TWITTER).node("machine", 1).build_local()?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_local(self) -> Result<LocalGenerator<C>> {
        self.build_on()
    }

    /// Validates the configuration and builds a [`LocalGenerator`] whose type fixes its
    /// layout, `L`: it mints the IDs [`build_local`](Self::build_local)'s would, with the
    /// layout's sequence step as a constant of its code (see [`FixedLayout`]).
    ///
    /// # Errors
    ///
    /// [`Error::LayoutMismatch`] when the builder's layout is not `L::LAYOUT`, and those of
    /// [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::layout::Twitter;
    /// use snowmint::{Error, Generator, Layout, LocalGenerator};
    ///
    /// let generator: LocalGenerator<_, Twitter> =
    ///     Generator::builder(Layout::TWITTER).node("machine", 1).build_local_fixed()?;
    /// assert!(generator.mint()? < generator.mint()?);
    /// let err = Generator::builder(Layout::DISCORD).default_nodes().build_local_fixed::<Twitter>();
    /// assert!(matches!(err, Err(Error::LayoutMismatch { expected: "twitter", found: "discord" })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_local_fixed<L: FixedLayout>(self) -> Result<LocalGenerator<C, L>> {
        self.layout_is::<L>()?;
        self.build_on()
    }

    /// `Ok` if the builder's layout is `L`'s, [`Error::LayoutMismatch`] otherwise.
    pub(crate) fn layout_is<L: FixedLayout>(&self) -> Result<()> {
        if self.layout == L::LAYOUT {
            Ok(())
        } else {
            Err(Error::LayoutMismatch {
                expected: L::LAYOUT.name(),
                found: self.layout.name(),
            })
        }
    }

    /// Builds a generator on a state word `S` of its own.
    pub(crate) fn build_on<S: State + Fresh>(self) -> Result<Generator<C, S>> {
        let plan = self.plan()?;
        let (state, high_water) = self.start(&plan)?;
        Ok(Generator::assemble(
            self.layout,
            plan,
            self.on_behind,
            S::new(state, plan.node_bits),
            Cold::new::<S>(high_water, self.borrow_ticks, self.events),
            self.clock,
        ))
    }
}
