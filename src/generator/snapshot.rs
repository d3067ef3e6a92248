//! A generator's state, saved to resume from: [`Snapshot`].

use std::ops::RangeInclusive;

use crate::layout::Layout;

/// A generator's state, to save when it stops and resume from after a restart.
///
/// Taken with [`Generator::snapshot`](crate::Generator::snapshot) (when minting has stopped: a
/// snapshot of a generator in use is stale at once) and resumed with
/// [`Generator::resume`](crate::Generator::resume). A resumed generator never repeats an ID
/// minted before the snapshot, even when the host's clock is now behind the snapshot's last
/// tick: its [`ClockBehind`](crate::ClockBehind) policy decides whether it waits, fails, or
/// moves to the other timeline.
///
/// Its fields are public to read and to set; new ones may be added, so a `Snapshot` is made by
/// a generator's `snapshot`, by [`Snapshot::at_mark`] (with `None`: a generator that has minted
/// nothing, whose fields can then be set) or, with the `serde` feature, by deserializing one.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Generator, Layout, clock::ManualClock};
///
/// let layout = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12)
///     .epoch_ms(1_288_834_974_657).build()?;
/// let before = ManualClock::new(1_700_000_010_000);
/// let old = Generator::builder(layout).node("machine", 9).clock(before).build()?;
/// let last = old.mint()?;
/// let snapshot = old.snapshot();
/// assert_eq!(snapshot.last_tick, 1_700_000_010_000 - layout.epoch_ms());
///
/// // Restarted on a host whose clock is 10 s behind.
/// let after = ManualClock::new(1_700_000_000_000);
/// let new = Generator::resume(&snapshot)
///     .clock(after)
///     .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
///     .build()?;
/// let next = layout.decode(new.mint()?)?;
/// assert_eq!(next.timeline(), Some(1)); // the other timeline: no repeat possible
/// assert_eq!(next.node("machine"), Some(9));
/// assert_ne!(next.id(), last);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Snapshot {
    /// The generator's layout.
    pub layout: Layout,
    /// Its node fields, by name.
    pub nodes: Vec<(&'static str, u64)>,
    /// The last tick minted, counted from the epoch; 0 if nothing was minted.
    pub last_tick: u64,
    /// The sequence of the last ID minted.
    pub sequence: u64,
    /// The timeline of the last ID minted: the tick-tock bit, 0 without one.
    pub timeline: u64,
    /// The highest tick minted on the other timeline; 0 if none.
    pub other_timeline_tick: u64,
    /// The generator's sequence range
    /// ([`GeneratorBuilder::sequence_range`](crate::GeneratorBuilder::sequence_range)): a
    /// resumed generator keeps it, so it never strays into a range another generator owns.
    pub sequence_range: RangeInclusive<u64>,
}

impl Snapshot {
    /// The state of a generator for `layout` and `nodes` that may have minted any ID with a
    /// time below `mark_ms` (Unix milliseconds): its last tick is the tick holding the mark
    /// (clamped to the layout's ticks), its sequence is exhausted, and with a tick-tock bit both
    /// timelines are there. A generator resumed from it mints only IDs of later ticks. Without a
    /// mark (`None`), the state of a generator that has minted nothing.
    ///
    /// This is how a mark becomes a starting point: a [`MarkFile`](crate::mark::MarkFile) and
    /// an etcd lease resume from it, and a tool that writes its state ahead of minting can
    /// store it as a `Snapshot`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, Snapshot, clock::ManualClock};
    ///
    /// let layout = Layout::TWITTER;
    /// let mark = 1_700_000_000_500;
    /// let snapshot = Snapshot::at_mark(layout, &[("machine", 5)], Some(mark));
    /// assert_eq!(snapshot.last_unix_ms(), mark);
    /// assert_eq!(snapshot.sequence, layout.max_sequence());
    ///
    /// // Resumed, the generator cannot mint in the mark's tick: it is full.
    /// let clock = ManualClock::new(mark);
    /// let generator = Generator::resume(&snapshot).clock(clock.clone()).build()?;
    /// assert!(generator.try_mint().is_err());
    /// clock.advance(1);
    /// assert!(layout.decode(generator.mint()?)?.unix_ms() > mark);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn at_mark(
        layout: Layout,
        nodes: &[(&'static str, u64)],
        mark_ms: Option<u64>,
    ) -> Snapshot {
        let last_tick = mark_ms.map_or(0, |mark| layout.tick_holding(mark));
        let tick_tock = layout.tick_tock_field().is_some();
        Snapshot {
            layout,
            nodes: nodes.to_vec(),
            last_tick,
            sequence: if last_tick == 0 {
                0
            } else {
                layout.max_sequence()
            },
            timeline: 0,
            other_timeline_tick: if tick_tock { last_tick } else { 0 },
            sequence_range: 0..=layout.max_sequence(),
        }
    }

    /// The state of a generator that may have minted every ID either `self`'s or `other`'s
    /// generator minted: on each timeline, the later of the two (a tick both reached counts as
    /// full unless both stopped at the same place in it). The layout, nodes, sequence range and
    /// current timeline are `self`'s; `other` is read as a state of the same layout.
    ///
    /// This is the rule for a state saved ahead of minting (the CLI's `--snapshot` file): each
    /// write is `resumed.merged(&Snapshot::at_mark(..))`, the state the run resumed from raised
    /// to the new mark, so no write lowers a timeline below what an earlier run minted on it,
    /// even when this run mints on the other timeline, below the last run's tick.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, Snapshot, clock::ManualClock};
    ///
    /// let layout = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12)
    ///     .epoch_ms(1_288_834_974_657).build()?;
    /// // The last run minted on timeline 0, 5 s ahead of this run's clock.
    /// let last_run = Generator::builder(layout).node("machine", 9)
    ///     .clock(ManualClock::new(1_700_000_005_000)).build()?;
    /// last_run.mint()?;
    /// let resumed = last_run.snapshot();
    /// // This run mints on timeline 1 at 1_700_000_000_000 and writes a mark 100 ms ahead.
    /// let ahead = Snapshot::at_mark(layout, &[("machine", 9)], Some(1_700_000_000_100));
    /// let written = resumed.merged(&ahead);
    /// assert_eq!((written.last_tick, written.sequence), (resumed.last_tick, 0)); // not lowered
    /// assert_eq!(written.other_timeline_tick, ahead.other_timeline_tick); // raised
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[must_use]
    pub fn merged(&self, other: &Snapshot) -> Snapshot {
        let full = self.layout.max_sequence();
        // Each side's reach on timeline `t`: (last tick, sequence in it), a tick left on the
        // other timeline counting as full (a generator toggling back mints only past it).
        let reach = |s: &Snapshot, t: u64| {
            if s.timeline == t {
                (s.last_tick, s.sequence)
            } else {
                (s.other_timeline_tick, full)
            }
        };
        let this = self.timeline;
        let (last_tick, sequence) = match (reach(self, this), reach(other, this)) {
            (a, b) if a.0 == b.0 => (a.0, a.1.max(b.1)),
            (a, b) => a.max(b),
        };
        let other_timeline_tick = if self.layout.tick_tock_field().is_some() {
            reach(self, this ^ 1).0.max(reach(other, this ^ 1).0)
        } else {
            0
        };
        Snapshot {
            layout: self.layout,
            nodes: self.nodes.clone(),
            last_tick,
            sequence: if last_tick == 0 { 0 } else { sequence },
            timeline: this,
            other_timeline_tick,
            sequence_range: self.sequence_range.clone(),
        }
    }

    /// The time of the last ID minted, in Unix milliseconds (the start of its tick).
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
    /// generator.mint()?;
    /// assert_eq!(generator.snapshot().last_unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn last_unix_ms(&self) -> u64 {
        self.last_tick
            .saturating_mul(self.layout.tick_ms())
            .saturating_add(self.layout.epoch_ms())
    }

    /// Whether a generator in this state can only mint IDs whose time is after `mark_ms`: it was
    /// resumed from [`Snapshot::at_mark`] with that mark (or a later one), or has minted past
    /// it. The check a [`MarkStore`](crate::mark::MarkStore) makes in its `start` before it
    /// keeps the mark ahead of a generator.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, Snapshot, clock::ManualClock};
    ///
    /// let mark = 1_700_000_000_500;
    /// let above = Generator::resume(&Snapshot::at_mark(Layout::TWITTER, &[("machine", 5)], Some(mark)))
    ///     .clock(ManualClock::new(mark))
    ///     .build()?;
    /// assert!(above.snapshot().starts_above_mark(mark));
    ///
    /// let fresh = Generator::builder(Layout::TWITTER).node("machine", 5).clock(ManualClock::new(mark)).build()?;
    /// assert!(!fresh.snapshot().starts_above_mark(mark)); // could still mint in the mark's tick
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn starts_above_mark(&self, mark_ms: u64) -> bool {
        let layout = self.layout;
        let needed = layout.tick_holding(mark_ms);
        let full = self.last_tick > needed
            || self.last_tick == needed && (needed == 0 || self.sequence == layout.max_sequence());
        let other = layout.tick_tock_field().is_none() || self.other_timeline_tick >= needed;
        full && other
    }
}
