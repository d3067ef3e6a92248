//! Where a [`MonotonicClock`](super::MonotonicClock) reads time: quanta's counter, the wall
//! clock, and the measurement that pairs them at a re-anchor.

use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(snowmint_loom)]
use crate::sync::{AtomicU64, Ordering};

/// How long a re-anchor may wait for `SystemTime::now` between its two counter readings
/// before it tries again: the measurement error is at most half of it.
const GOOD_WINDOW_NS: u64 = 20_000;

/// How many times a re-anchor measures the wall clock before it keeps the best of its tries.
pub(super) const MEASUREMENTS: usize = 3;

/// Reads the wall clock between two counter readings, and returns the counter reading at the
/// middle and the wall clock.
///
/// Tries again when the two counter readings are more than [`GOOD_WINDOW_NS`] apart (a
/// preemption, an interrupt), and keeps the narrowest of [`MEASUREMENTS`] tries.
pub(super) fn measure(counter: &Counter, wall: &Wall) -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..MEASUREMENTS {
        let before = counter.ns();
        let wall = wall.unix_ns();
        let window = counter.ns().saturating_sub(before);
        if window < best.0 {
            best = (window, before + window / 2, wall);
        }
        if window <= GOOD_WINDOW_NS {
            break;
        }
    }
    (best.1, best.2)
}

/// Where counter time comes from: nanoseconds since the clock was created.
#[derive(Debug, Clone)]
pub(super) enum Counter {
    /// quanta's counter, and its raw reading when the clock was created.
    Quanta { clock: quanta::Clock, start: u64 },
    #[cfg(test)]
    Fake(super::tests::Source),
    #[cfg(snowmint_loom)]
    Driven(DrivenSource),
}

impl Counter {
    /// quanta's counter, counting from now.
    pub(super) fn quanta() -> Self {
        // The first `quanta::Clock::new` of a process calibrates the counter (about half a
        // millisecond) inside quanta's once-cell: a section, so that no fork leaves the cell
        // running in a child, whose every clock would then wait for it forever.
        let _section = crate::fork::enter();
        let clock = quanta::Clock::new();
        let start = clock.raw();
        Counter::Quanta { clock, start }
    }

    /// Nanoseconds since the start.
    #[inline]
    pub(super) fn ns(&self) -> u64 {
        match self {
            // 0 when the counter reads at or before the start; after it the counter is
            // monotonic.
            Counter::Quanta { clock, start } => clock.delta_as_nanos(*start, clock.raw()),
            #[cfg(test)]
            Counter::Fake(source) => source.read(),
            #[cfg(snowmint_loom)]
            Counter::Driven(source) => source.read(),
        }
    }
}

/// Where wall time comes from: nanoseconds since the Unix epoch.
#[derive(Debug, Clone)]
pub(super) enum Wall {
    System,
    #[cfg(test)]
    Fake(super::tests::Source),
    #[cfg(snowmint_loom)]
    Driven(DrivenSource),
}

impl Wall {
    pub(super) fn unix_ns(&self) -> u64 {
        match self {
            Wall::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            #[cfg(test)]
            Wall::Fake(source) => source.read(),
            #[cfg(snowmint_loom)]
            Wall::Driven(source) => source.read(),
        }
    }
}

/// A loom model's time source, for [`MonotonicClockBuilder::build_driven`]: nanoseconds in a
/// loom atomic, shared by the source's clones, that the model moves with
/// [`advance`](Self::advance) and [`set`](Self::set). Each read returns the time and moves it
/// on by the source's step. A wall clock [following](Self::following) a counter reads the
/// counter's time plus its own, an offset: it moves on with the counter, and steps when the
/// model sets the offset.
///
/// Every access but [`get`](Self::get) is an `AcqRel` read-modify-write, so the counter's reads
/// happen in one order, and each synchronises with the ones before it. That is what [the
/// orderings](crate::docs::internals#the-monotonic-clocks-orderings) assume of the real
/// counter: a thread that reads it after another has seen what the other saw before its
/// reading.
#[cfg(snowmint_loom)]
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct DrivenSource {
    ns: crate::sync::Arc<AtomicU64>,
    step: u64,
    /// The counter a wall clock follows, `ns` then being its offset from it.
    counter: Option<crate::sync::Arc<AtomicU64>>,
}

#[cfg(snowmint_loom)]
impl DrivenSource {
    /// A source at `ns` that moves on by `step` after each read.
    pub fn new(ns: u64, step: u64) -> Self {
        DrivenSource {
            ns: crate::sync::Arc::new(AtomicU64::new(ns)),
            step,
            counter: None,
        }
    }

    /// A wall clock reading `counter`'s time plus `offset`, the offset moving on by `step`
    /// after each read (without moving the counter).
    pub fn following(counter: &DrivenSource, offset: u64, step: u64) -> Self {
        DrivenSource {
            counter: Some(crate::sync::Arc::clone(&counter.ns)),
            ..DrivenSource::new(offset, step)
        }
    }

    /// The time (a follower's offset) as it stands, without reading it: `Relaxed`, a model's
    /// bound that orders nothing, and may miss another thread's latest read.
    pub fn get(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }

    /// Moves the time (a follower's offset) on by `ns`.
    pub fn advance(&self, ns: u64) {
        self.ns.fetch_add(ns, Ordering::AcqRel);
    }

    /// Sets the time (a follower's offset) to `ns`.
    pub fn set(&self, ns: u64) {
        self.ns.swap(ns, Ordering::AcqRel);
    }

    fn read(&self) -> u64 {
        let ns = self.ns.fetch_add(self.step, Ordering::AcqRel);
        match &self.counter {
            Some(counter) => ns + counter.fetch_add(0, Ordering::AcqRel),
            None => ns,
        }
    }
}
