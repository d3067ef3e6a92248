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
    /// The time of the last ID minted, in Unix milliseconds (the start of its tick).
    pub fn last_unix_ms(&self) -> u64 {
        self.last_tick
            .saturating_mul(self.layout.tick_ms())
            .saturating_add(self.layout.epoch_ms())
    }
}
