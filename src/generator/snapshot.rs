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
    /// This is how a high-water mark becomes a starting point: a
    /// [`HighWaterFile`](crate::persist::HighWaterFile) and an etcd lease resume from it, and a
    /// tool that writes its state ahead of minting can store it as a `Snapshot`.
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
    /// assert!(layout.decode(generator.mint()?)?.timestamp_ms() > mark);
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
}
