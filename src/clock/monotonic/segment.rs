//! The line readings follow between two re-anchors, the two slots it is published in, and
//! the writer lock beside them: the only state a reading loads.

use crate::sync::{AtomicU64, Ordering, fence};

/// The writer lock's free flag: set while free, the bits below it then count releases; clear
/// while taken, the word then being the counter time it was taken at.
pub(super) const FREE: u64 = 1 << 63;

/// The fractional bits of a segment's skew.
const SKEW_SHIFT: u32 = 63;

/// A line readings follow from one re-anchor to the next (see
/// [segments](crate::docs::internals#segments)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Segment {
    /// The counter time the segment starts at.
    pub(super) start: u64,
    /// The reading at `start`.
    pub(super) base: u64,
    /// The gain per counter nanosecond over the first interval, in units of `2^-SKEW_SHIFT`:
    /// within `[-2^62, 2^62]`, half the counter's rate either way.
    pub(super) skew: i64,
}

impl Segment {
    /// A segment from `base` at `start` that gains exactly `error` (at most half of
    /// `interval` either way) over `interval`.
    pub(super) fn slewing(start: u64, base: u64, error: i64, interval: u64) -> Self {
        let skew = if error == 0 {
            0
        } else {
            // Rounded up, so the gain at `interval` floors to `error` exactly; within
            // [-2^62, 2^62] since |error| <= interval / 2.
            let scaled = i128::from(error) << SKEW_SHIFT;
            let divisor = i128::from(interval);
            let quotient = scaled / divisor;
            (quotient + i128::from(scaled % divisor > 0)) as i64
        };
        Segment { start, base, skew }
    }

    /// The counter time from which a reading re-anchors.
    #[inline]
    pub(super) fn due(&self, interval: u64) -> u64 {
        self.start.saturating_add(interval)
    }

    /// The reading at counter time `now`: never decreasing in `now`, as the skew is at least
    /// -1/2.
    #[inline]
    pub(super) fn at(&self, now: u64, interval: u64) -> u64 {
        let d = now.saturating_sub(self.start);
        let line = self.base.saturating_add(d);
        if self.skew == 0 {
            return line;
        }
        let gain = (i128::from(self.skew) * i128::from(d.min(interval))) >> SKEW_SHIFT;
        // |gain| <= d.min(interval) / 2: it fits.
        line.saturating_add_signed(gain as i64)
    }

    /// The reading at `now` while a re-anchor elected at counter time `elected` replaces this
    /// segment: on it up to `elected`, at half the counter's rate after.
    pub(super) fn at_stopped(&self, now: u64, elected: u64, interval: u64) -> u64 {
        if now <= elected {
            self.at(now, interval)
        } else {
            self.at(elected, interval)
                .saturating_add((now - elected) / 2)
        }
    }
}

/// The segment readings follow, double-buffered, and the lock its writers take.
#[derive(Debug)]
pub(super) struct Segments {
    /// How many segments were published; its low bit names the slot in use.
    pub(super) generation: AtomicU64,
    pub(super) slots: [Slot; 2],
    /// `FREE` and a count of releases, or the counter time the holder took it at.
    pub(super) writer: AtomicU64,
}

/// One buffer of a [`Segment`].
#[derive(Debug)]
pub(super) struct Slot {
    start: AtomicU64,
    base: AtomicU64,
    /// The skew's bits.
    skew: AtomicU64,
}

/// The free value of the writer lock after `free`: one more release, equal to no earlier free
/// value.
pub(super) fn released(free: u64) -> u64 {
    free.wrapping_add(1) | FREE
}

/// The slot `generation` uses.
#[inline]
pub(super) fn slot(generation: u64) -> usize {
    usize::from(generation & 1 == 1)
}

impl Segments {
    pub(super) fn new(segment: Segment) -> Self {
        Segments {
            generation: AtomicU64::new(0),
            slots: [Slot::new(segment), Slot::new(segment)],
            writer: AtomicU64::new(FREE),
        }
    }

    /// The segment in use and its generation; `None` when a re-anchor published during the
    /// read.
    #[inline]
    pub(super) fn load(&self) -> Option<(u64, Segment)> {
        // Acquire: pairs with the publish of this generation, so its slot reads as written.
        let generation = self.generation.load(Ordering::Acquire);
        let segment = self.slots[slot(generation)].load();
        // Acquire: if a load above saw a later holder's store, the reload sees the generation
        // published before that holder took the lock.
        fence(Ordering::Acquire);
        // Relaxed: ordered by the fence.
        (self.generation.load(Ordering::Relaxed) == generation).then_some((generation, segment))
    }

    /// Holding the writer lock: writes `segment` to the slot `generation` does not use and
    /// publishes it as `generation + 1`.
    pub(super) fn publish(&self, generation: u64, segment: Segment) {
        // Release: pairs with a reader's Acquire fence, so a reader whose loads see the stores
        // below also sees the generation published before this holder took the lock.
        fence(Ordering::Release);
        self.slots[slot(generation + 1)].store(segment);
        // Release: a reader that loads the new generation sees the slot written above.
        self.generation.store(generation + 1, Ordering::Release);
    }
}

impl Slot {
    pub(super) fn new(segment: Segment) -> Self {
        Slot {
            start: AtomicU64::new(segment.start),
            base: AtomicU64::new(segment.base),
            skew: AtomicU64::new(segment.skew as u64),
        }
    }

    /// Relaxed loads: [`Segments::load`] checks the generation around them, and a holder
    /// reads a slot no one else writes.
    #[inline]
    pub(super) fn load(&self) -> Segment {
        Segment {
            start: self.start.load(Ordering::Relaxed),
            base: self.base.load(Ordering::Relaxed),
            skew: self.skew.load(Ordering::Relaxed) as i64,
        }
    }

    /// Relaxed stores: ordered by the fence before them and the publish after them.
    fn store(&self, segment: Segment) {
        self.start.store(segment.start, Ordering::Relaxed);
        self.base.store(segment.base, Ordering::Relaxed);
        self.skew.store(segment.skew as u64, Ordering::Relaxed);
    }
}
