//! Helpers shared by the loom models.
//!
//! Every test file includes this module, and not all of them use every helper.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};
use std::fmt::Debug;
use std::ops::RangeInclusive;

use snowmint::{Clock, Generator, Id, Layout};

/// Runs `f` under loom, bounding preemptions at 3 unless `LOOM_MAX_PREEMPTIONS` says otherwise.
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}

/// The clock's start: a few ticks past the epoch, since generators never mint in its tick.
pub const START_TICK: u64 = 10;

/// Where a model's `finish` moves the clock: ahead of every tick a model uses.
pub const AFTER_TICK: u64 = 30;

/// The machine every generator of the race models carries.
pub const MACHINE: u64 = 1;

/// An epoch in 2023: a clock reading a few ticks past it is past snowmint's `FIRST_READING`
/// (2^40 ms, 2004), the least reading a generator's fast path takes, so the models run the
/// fast path's compare-and-swap and not only the slow path's.
pub const EPOCH_MS: u64 = 1_672_531_200_000;

/// `2^sequence_bits` IDs per tick: time, a 2-bit machine field, the sequence; 1 ms ticks from
/// [`EPOCH_MS`].
pub fn tiny(sequence_bits: u8) -> Layout {
    Layout::builder("tiny", 64)
        .time(62 - sequence_bits)
        .node("machine", 2)
        .sequence(sequence_bits)
        .epoch_ms(EPOCH_MS)
        .build()
        .expect("valid layout")
}

/// An ID and its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minted {
    pub id: u64,
    pub tick: u64,
    /// 0 for a layout without a tick-tock bit.
    pub timeline: u64,
    pub sequence: u64,
}

/// Decodes `id` under `layout`, checking it carries [`MACHINE`].
pub fn minted(layout: &Layout, id: u64) -> Minted {
    let parts = layout.decode(Id::from_u64(id)).expect("id fits the layout");
    assert_eq!(parts.node("machine"), Some(MACHINE), "id {id}: {parts:?}");
    Minted {
        id,
        tick: parts.ticks(),
        timeline: parts.timeline().unwrap_or(0),
        sequence: parts.sequence(),
    }
}

/// Setup: mints `n` IDs with `try_mint`, each of which must succeed, and returns them in order.
pub fn setup_mints<C: Clock>(generator: &Generator<C>, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| generator.try_mint().expect("setup mint").to_u64())
        .collect()
}

/// The checks every race shares, call by call and then over all the IDs: a model walks its
/// threads' calls in order, opening each thread with [`Tally::thread`], handing each run of
/// IDs a call returned to [`Tally::run`] and each tick a `try_` call gave up on to
/// [`Tally::exhausted`], then closes with [`Tally::check`].
pub struct Tally<'a> {
    layout: &'a Layout,
    /// The generator's sequence range (the whole field for a generator without one).
    range: RangeInclusive<u64>,
    /// The race's calls, for the messages.
    calls: &'a dyn Debug,
    /// Each thread's IDs, in order.
    per_thread: Vec<Vec<u64>>,
    /// The tick of each `SequenceExhausted`.
    exhausted: Vec<u64>,
}

/// What [`Tally::check`] accepted.
#[derive(Debug)]
pub struct Checked {
    /// Every ID of the race, threads in order.
    pub race: Vec<Minted>,
    /// Every ID of the setup and of the race.
    pub all: Vec<Minted>,
    /// The tick of each `SequenceExhausted`.
    pub exhausted: Vec<u64>,
}

impl<'a> Tally<'a> {
    /// A tally of a race of `calls` (their `Debug` goes into every message) on a generator
    /// under `layout` confined to `range`.
    pub fn new(layout: &'a Layout, range: RangeInclusive<u64>, calls: &'a dyn Debug) -> Self {
        Tally {
            layout,
            range,
            calls,
            per_thread: Vec::new(),
            exhausted: Vec::new(),
        }
    }

    /// The calls that follow are the next thread's.
    pub fn thread(&mut self) {
        self.per_thread.push(Vec::new());
    }

    /// `op`, asking for `want` IDs, returned `run`: between 1 and `want` IDs, consecutive on
    /// one tick, in the range, strictly increasing, carrying the machine, and fewer than
    /// `want` only when the run ends at the range's last value. Records them as the current
    /// thread's and returns them decoded.
    pub fn run(&mut self, op: &dyn Debug, want: usize, run: &[u64]) -> Vec<Minted> {
        let (layout, calls, range) = (self.layout, self.calls, &self.range);
        assert!(
            (1..=want).contains(&run.len()),
            "{op:?} returned {} ids: {calls:?}",
            run.len()
        );
        let run: Vec<Minted> = run.iter().map(|&id| minted(layout, id)).collect();
        let tick = run[0].tick;
        for (i, m) in run.iter().enumerate() {
            assert!(
                m.tick == tick && m.sequence == run[0].sequence + i as u64,
                "{op:?}'s run is not consecutive on one tick: {run:?}"
            );
            assert!(
                range.contains(&m.sequence),
                "{m:?} is outside the sequence range {range:?}: {calls:?}"
            );
        }
        assert!(
            run.windows(2).all(|w| w[0].id < w[1].id),
            "{op:?}'s run does not strictly increase: {run:?}"
        );
        if run.len() < want {
            assert_eq!(
                run[run.len() - 1].sequence,
                *range.end(),
                "{op:?} was cut short before the tick's end: {run:?}"
            );
        }
        self.per_thread
            .last_mut()
            .expect("a thread opened with `thread`")
            .extend(run.iter().map(|m| m.id));
        run
    }

    /// A `try_` call gave up on `tick` with `SequenceExhausted`.
    pub fn exhausted(&mut self, tick: u64) {
        self.exhausted.push(tick);
    }

    /// The checks over all the IDs, given the `setup`'s: each thread's IDs strictly increase;
    /// no ID repeats across the setup and the race; each tick holds the first values of the
    /// range, none skipped, and a tick reported exhausted all of them.
    pub fn check(self, setup: &[u64]) -> Checked {
        let (layout, calls) = (self.layout, self.calls);
        let (first_seq, last_seq) = (*self.range.start(), *self.range.end());

        for (thread, ids) in self.per_thread.iter().enumerate() {
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "thread {thread}'s ids do not strictly increase: {calls:?}"
            );
        }

        let race: Vec<u64> = self.per_thread.iter().flatten().copied().collect();
        let mut seen = HashSet::new();
        for &id in setup.iter().chain(&race) {
            assert!(
                seen.insert(id),
                "id {:?} minted twice: setup {:?}, race {calls:?}",
                minted(layout, id),
                setup
            );
        }

        let all: Vec<Minted> = setup
            .iter()
            .chain(&race)
            .map(|&id| minted(layout, id))
            .collect();
        let mut by_tick: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for m in &all {
            by_tick.entry(m.tick).or_default().push(m.sequence);
        }
        for (tick, sequences) in &mut by_tick {
            sequences.sort_unstable();
            let expected: Vec<u64> = (first_seq..first_seq + sequences.len() as u64).collect();
            assert_eq!(
                *sequences, expected,
                "tick {tick} skipped a sequence value: {all:?}"
            );
        }
        for tick in &self.exhausted {
            assert_eq!(
                by_tick.get(tick).map_or(0, Vec::len) as u64,
                last_seq - first_seq + 1,
                "tick {tick} reported exhausted but not full: {all:?}"
            );
        }

        Checked {
            race: race.iter().map(|&id| minted(layout, id)).collect(),
            all,
            exhausted: self.exhausted,
        }
    }
}

/// Every ID of the `setup` and then those of the race, decoded under `layout`.
pub fn setup_and(layout: &Layout, setup: &[u64], race: &[Minted]) -> Vec<Minted> {
    let mut all: Vec<Minted> = setup.iter().map(|&id| minted(layout, id)).collect();
    all.extend(race);
    all
}

/// 41 bits of time, the tick-tock bit, 10 of machine, 12 of sequence; 1 ms ticks from
/// [`EPOCH_MS`] (so the clock's readings take the fast path).
pub fn tt() -> Layout {
    Layout::builder("tt", 64)
        .time(41)
        .tick_tock()
        .node("machine", 10)
        .sequence(12)
        .epoch_ms(EPOCH_MS)
        .build()
        .expect("valid layout")
}
