//! `LocalGenerator`: the generator on a `Cell` instead of an `AtomicU64`, and its per-thread
//! shards.
//!
//! A `Generator` and a `LocalGenerator` built alike, each on its own `ManualClock` moved in
//! lockstep, answer every call alike: the same IDs, the same errors, the same snapshots,
//! counters and `Debug` output (a proptest over random call sequences, and named scenarios),
//! and so does a third, a `LocalGenerator` whose type fixes its layout (`build_local_fixed`),
//! also when their clock mints from the generator inside its own reading. A call that would
//! wait for a tick the test never sets fails instead of hanging. The generators of
//! `build_local_shards`, moved to eight threads (on two cores), never collide; and the shard
//! plans it cannot build fail with `InvalidShards`, saying what was wrong.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::ops::RangeInclusive;
use std::rc::Rc;
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
mod common;

use snowmint::layout::{FixedLayout, Twitter};
use snowmint::{
    Clock, ClockBehind, Error, Generator, GeneratorBuilder, Id, Layout, LocalGenerator,
    clock::{ManualClock, MonotonicClock},
    generator::{State, Stats},
    shard::Shards,
};

use common::checks::{assert_increasing, assert_unique_and_increasing};
use common::clocks::{T0, built_on_manual_clock};
use common::layouts::TT;

const TWITTER: Layout = Layout::TWITTER;

/// 4 IDs per 4 ms tick, with a tick-tock bit: ticks fill after a few calls, and a reading can
/// fall inside a tick.
const TINY_TT: Layout = Layout::builder("tiny-tt", 64)
    .unused(1)
    .time(41)
    .tick_tock()
    .node("machine", 19)
    .sequence(2)
    .tick_ms(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

/// 8 IDs per 2 ms tick, the sequence above the node field (as in Sonyflake): one sequence step
/// is not 1.
const TINY_LOW_NODE: Layout = Layout::builder("tiny-low-node", 64)
    .unused(1)
    .time(41)
    .sequence(3)
    .node("machine", 19)
    .tick_ms(2)
    .epoch_ms(1_288_834_974_657)
    .build_const();

const LAYOUTS: [Layout; 4] = [TWITTER, TT, TINY_TT, TINY_LOW_NODE];

/// The layouts as types, for the third of the triplets: a generator whose type fixes its layout.
enum TtFixed {}
impl FixedLayout for TtFixed {
    const LAYOUT: Layout = TT;
}
enum TinyTtFixed {}
impl FixedLayout for TinyTtFixed {
    const LAYOUT: Layout = TINY_TT;
}
enum TinyLowNodeFixed {}
impl FixedLayout for TinyLowNodeFixed {
    const LAYOUT: Layout = TINY_LOW_NODE;
}

/// A `LocalGenerator` whose type fixes one of [`LAYOUTS`].
enum Fixed {
    Twitter(LocalGenerator<Watched, Twitter>),
    Tt(LocalGenerator<Watched, TtFixed>),
    TinyTt(LocalGenerator<Watched, TinyTtFixed>),
    TinyLowNode(LocalGenerator<Watched, TinyLowNodeFixed>),
}

/// `$body` with `$g` bound to the generator a [`Fixed`] holds.
macro_rules! on_fixed {
    ($fixed:expr, |$g:ident| $body:expr) => {
        match $fixed {
            Fixed::Twitter($g) => $body,
            Fixed::Tt($g) => $body,
            Fixed::TinyTt($g) => $body,
            Fixed::TinyLowNode($g) => $body,
        }
    };
}

impl Fixed {
    /// The generator `builder` (a builder of `layout`) builds, of the type that fixes it.
    fn build(layout: &Layout, builder: GeneratorBuilder<Watched>) -> Fixed {
        match layout.name() {
            "twitter" => Fixed::Twitter(builder.build_local_fixed().unwrap()),
            "twitter-tt" => Fixed::Tt(builder.build_local_fixed().unwrap()),
            "tiny-tt" => Fixed::TinyTt(builder.build_local_fixed().unwrap()),
            _ => Fixed::TinyLowNode(builder.build_local_fixed().unwrap()),
        }
    }
}

const HOUR: u64 = 3_600_000;
/// What a batch buffer holds before the call: no generator here mints it (every layout here
/// has an unused top bit).
const UNWRITTEN: Id = Id::from_u64(u64::MAX);

/// How both generators of a pair are built.
#[derive(Debug, Clone)]
struct Config {
    layout: Layout,
    policy: ClockBehind,
    borrow: u64,
    range: Option<RangeInclusive<u64>>,
}

impl Config {
    fn new(layout: Layout) -> Self {
        Config {
            layout,
            policy: ClockBehind::Error,
            borrow: 0,
            range: None,
        }
    }

    fn policy(mut self, policy: ClockBehind) -> Self {
        self.policy = policy;
        self
    }

    fn borrow(mut self, ticks: u64) -> Self {
        self.borrow = ticks;
        self
    }

    fn range(mut self, range: RangeInclusive<u64>) -> Self {
        self.range = Some(range);
        self
    }

    /// The builder both generators come from, on `clock`.
    fn builder<C: Clock>(&self, clock: C) -> GeneratorBuilder<C> {
        let builder = Generator::builder(self.layout)
            .node("machine", 7)
            .on_clock_behind(self.policy)
            .borrow_ahead(self.borrow)
            .clock(clock);
        match &self.range {
            Some(range) => builder.sequence_range(range.clone()),
            None => builder,
        }
    }
}

/// One call to a generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Mint,
    TryMint,
    MintBatch(usize),
    TryMintBatch(usize),
    MintMany(usize),
}

/// What a call returned: the IDs (one for a mint) or the error, and for a batch the whole
/// buffer, written or not.
type Answer = (Result<Vec<Id>, Error>, Vec<Id>);

fn perform<C: Clock, S: State>(generator: &Generator<C, S>, call: Call) -> Answer {
    match call {
        Call::Mint => (generator.mint().map(|id| vec![id]), Vec::new()),
        Call::TryMint => (generator.try_mint().map(|id| vec![id]), Vec::new()),
        Call::MintBatch(len) | Call::TryMintBatch(len) => {
            let mut buffer = vec![UNWRITTEN; len];
            let written = if matches!(call, Call::MintBatch(_)) {
                generator.mint_batch(&mut buffer)
            } else {
                generator.try_mint_batch(&mut buffer)
            };
            let ids = written.map(|n| buffer[..n].to_vec());
            (ids, buffer)
        }
        Call::MintMany(n) => (generator.mint_many(n), Vec::new()),
    }
}

/// Reads per call past which a generator is taken to be waiting for a clock that only the
/// test moves: a call reads it once or a few times per tick it mints in.
const MAX_READS: u32 = 10_000;

/// A `ManualClock` that fails the test when one call reads it too often, instead of letting a
/// generator that waits for a later tick hang the test.
#[derive(Debug, Clone)]
struct Watched {
    clock: ManualClock,
    reads: Rc<Cell<u32>>,
}

impl Watched {
    fn new(unix_ms: u64) -> Self {
        Watched {
            clock: ManualClock::new(unix_ms),
            reads: Rc::new(Cell::new(0)),
        }
    }
}

impl Clock for Watched {
    fn unix_ms(&self) -> u64 {
        let reads = self.reads.get() + 1;
        self.reads.set(reads);
        assert!(
            reads < MAX_READS,
            "one call read the clock {reads} times: it waits for a tick nobody sets"
        );
        self.clock.unix_ms()
    }
}

/// A `Generator` and a `LocalGenerator` built alike on two manual clocks that always read the
/// same, and every ID they minted.
struct Twins {
    config: Config,
    shared_clock: Watched,
    local_clock: Watched,
    fixed_clock: Watched,
    shared: Generator<Watched>,
    local: LocalGenerator<Watched>,
    fixed: Fixed,
    unix_ms: u64,
    seen: HashSet<Id>,
    /// The last ID minted on each timeline.
    last_on: [Option<Id>; 2],
}

impl Twins {
    fn new(config: Config) -> Self {
        let (shared_clock, local_clock) = (Watched::new(T0), Watched::new(T0));
        let fixed_clock = Watched::new(T0);
        let shared = config.builder(shared_clock.clone()).build().unwrap();
        let local = config.builder(local_clock.clone()).build_local().unwrap();
        let fixed = Fixed::build(&config.layout, config.builder(fixed_clock.clone()));
        let twins = Twins {
            config,
            shared_clock,
            local_clock,
            fixed_clock,
            shared,
            local,
            fixed,
            unix_ms: T0,
            seen: HashSet::new(),
            last_on: [None, None],
        };
        twins.check();
        twins
    }

    fn layout(&self) -> Layout {
        self.config.layout
    }

    fn set(&mut self, unix_ms: u64) {
        self.unix_ms = unix_ms;
        self.shared_clock.clock.set(unix_ms);
        self.local_clock.clock.set(unix_ms);
        self.fixed_clock.clock.set(unix_ms);
    }

    /// The clock at the start of tick `tick`, plus `ms` (within the tick).
    fn set_tick(&mut self, tick: u64, ms: u64) {
        let layout = self.layout();
        self.set(layout.epoch_ms() + tick * layout.tick_ms() + ms % layout.tick_ms());
    }

    fn tick(&self) -> u64 {
        self.layout().ticks_at(self.unix_ms).unwrap()
    }

    /// How many IDs the generators can mint now without waiting for the clock (which only
    /// this test moves): what is left of the state's tick and of the ticks borrowing reaches.
    fn room(&self) -> u64 {
        let snapshot = self.shared.snapshot();
        let range = &snapshot.sequence_range;
        let size = range.end() - range.start() + 1;
        let (now, last, borrow) = (self.tick(), snapshot.last_tick, self.config.borrow);
        if now.saturating_add(borrow) < last {
            // A regression: an error, or a toggle to a fresh tick on the other timeline.
            size
        } else if now > last {
            size * (1 + borrow)
        } else {
            range.end().saturating_sub(snapshot.sequence) + size * (now + borrow - last)
        }
    }

    /// `call` on both generators; the answers must be the same. A call that would wait for the
    /// clock (which nobody moves) is made in the form that does not wait.
    fn call(&mut self, call: Call) -> Result<Vec<Id>, Error> {
        let room = self.room();
        let call = match call {
            Call::Mint if room == 0 => Call::TryMint,
            Call::MintBatch(n) if n > 0 && room == 0 => Call::TryMintBatch(n),
            Call::MintMany(n) => Call::MintMany(n.min(room as usize)),
            call => call,
        };
        let before = self.shared.snapshot();
        self.shared_clock.reads.set(0);
        let shared = perform(&self.shared, call);
        self.local_clock.reads.set(0);
        let local = perform(&self.local, call);
        assert_eq!(
            shared, local,
            "{call:?} at {} ms: the Generator (left) and the LocalGenerator (right) differ; \
             state before {before:?}, {:?}",
            self.unix_ms, self.config
        );
        self.fixed_clock.reads.set(0);
        let fixed = on_fixed!(&self.fixed, |g| perform(g, call));
        assert_eq!(
            shared, fixed,
            "{call:?} at {} ms: the Generator (left) and the LocalGenerator of a fixed layout \
             (right) differ; state before {before:?}, {:?}",
            self.unix_ms, self.config
        );
        self.check();
        let (result, _) = shared;
        if let Ok(ids) = &result {
            for &id in ids {
                self.record(id);
            }
        }
        result
    }

    /// Records a minted ID: never seen before, above the last of its timeline.
    fn record(&mut self, id: Id) {
        let layout = self.layout();
        let parts = layout.decode(id).unwrap();
        assert_eq!(parts.node("machine"), Some(7), "{parts:?}");
        assert!(self.seen.insert(id), "{parts:?} minted twice");
        let timeline = parts.timeline().unwrap_or(0) as usize;
        if let Some(last) = self.last_on[timeline] {
            assert!(id > last, "{parts:?} is not above {last:?}");
        }
        self.last_on[timeline] = Some(id);
    }

    /// The two generators' snapshots, counters and `Debug` output are the same.
    fn check(&self) {
        assert_eq!(self.shared.snapshot(), self.local.snapshot(), "snapshots");
        assert_eq!(self.shared.stats(), self.local.stats(), "stats");
        assert_eq!(format!("{:?}", self.shared), format!("{:?}", self.local));
        assert_eq!(self.shared.node_bits(), self.local.node_bits());
        on_fixed!(&self.fixed, |g| {
            assert_eq!(self.shared.snapshot(), g.snapshot(), "snapshots, fixed");
            assert_eq!(self.shared.stats(), g.stats(), "stats, fixed");
            assert_eq!(format!("{:?}", self.shared), format!("{g:?}"));
            assert_eq!(self.shared.node_bits(), g.node_bits());
        });
    }

    fn stats(&self) -> Stats {
        self.shared.stats()
    }

    fn try_mint(&mut self) -> Result<Id, Error> {
        self.call(Call::TryMint).map(|ids| ids[0])
    }

    fn mint(&mut self) -> Result<Id, Error> {
        self.call(Call::Mint).map(|ids| ids[0])
    }

    /// `try_mint` until it fails; the IDs and the error.
    fn fill(&mut self) -> (Vec<Id>, Error) {
        let mut ids = Vec::new();
        loop {
            match self.try_mint() {
                Ok(id) => ids.push(id),
                Err(err) => return (ids, err),
            }
            assert!(ids.len() as u64 <= (self.layout().max_sequence() + 1) * 8);
        }
    }

    /// Restarts both from their own snapshots, which must be the same, with a new policy and
    /// borrow bound.
    fn resume(&mut self, policy: ClockBehind, borrow: u64) {
        let snapshot = self.shared.snapshot();
        assert_eq!(snapshot, self.local.snapshot());
        self.shared = Generator::resume(&snapshot)
            .clock(self.shared_clock.clone())
            .on_clock_behind(policy)
            .borrow_ahead(borrow)
            .build()
            .unwrap();
        self.local = Generator::resume(&self.local.snapshot())
            .clock(self.local_clock.clone())
            .on_clock_behind(policy)
            .borrow_ahead(borrow)
            .build_local()
            .unwrap();
        let fixed_snapshot = on_fixed!(&self.fixed, |g| g.snapshot());
        let builder = Generator::resume(&fixed_snapshot)
            .clock(self.fixed_clock.clone())
            .on_clock_behind(policy)
            .borrow_ahead(borrow);
        self.fixed = Fixed::build(&self.config.layout, builder);
        (self.config.policy, self.config.borrow) = (policy, borrow);
        assert_eq!(self.shared.snapshot(), snapshot, "resume changed the state");
        self.check();
    }
}

fn decode(id: Id, layout: &Layout) -> (u64, Option<u64>, u64) {
    let parts = layout.decode(id).unwrap();
    (parts.unix_ms(), parts.timeline(), parts.sequence())
}

// Named scenarios.

#[test]
fn minting_across_ticks_gives_the_same_ids() {
    let mut twins = Twins::new(Config::new(TWITTER));
    let mut ids = Vec::new();
    for step in 0..5 {
        for _ in 0..10 {
            ids.push(twins.mint().unwrap());
        }
        twins.set(T0 + step + 1);
    }
    assert_increasing(&ids);
    assert_eq!(decode(ids[0], &TWITTER), (T0, None, 0));
    assert_eq!(decode(ids[49], &TWITTER), (T0 + 4, None, 9));
    // A clock two ticks on, then a clock that reads inside the tick just minted in.
    twins.set(T0 + 7);
    assert_eq!(decode(twins.mint().unwrap(), &TWITTER), (T0 + 7, None, 0));
    assert_eq!(twins.stats(), Stats::default());
}

#[test]
fn a_full_tick_fails_try_mint_and_batches_take_what_is_left() {
    let mut twins = Twins::new(Config::new(TWITTER));
    let tick = T0 - TWITTER.epoch_ms();
    let exhausted = Error::SequenceExhausted {
        layout: "twitter",
        tick,
        retry_after: Duration::from_millis(1),
    };
    // 4,000 single IDs, then a batch of 200 gets the 96 left, then the tick is full.
    for _ in 0..4_000 {
        twins.try_mint().unwrap();
    }
    let batch = twins.call(Call::MintBatch(200)).unwrap();
    assert_eq!(batch.len(), 96);
    assert_eq!(decode(batch[95], &TWITTER), (T0, None, 4095));
    assert_eq!(twins.try_mint(), Err(exhausted.clone()));
    assert_eq!(twins.call(Call::TryMintBatch(10)), Err(exhausted.clone()));
    // An empty batch mints nothing, full tick or not.
    assert_eq!(twins.call(Call::TryMintBatch(0)), Ok(Vec::new()));
    assert_eq!(twins.stats().overflows, 2);
    // The next tick: a batch larger than a tick gets the whole tick; then `mint_many`.
    twins.set(T0 + 1);
    assert_eq!(twins.call(Call::TryMintBatch(5_000)).unwrap().len(), 4096);
    assert_eq!(
        twins.try_mint(),
        Err(Error::SequenceExhausted {
            layout: "twitter",
            tick: tick + 1,
            retry_after: Duration::from_millis(1),
        })
    );
    twins.set(T0 + 2);
    assert_eq!(twins.call(Call::MintMany(3_000)).unwrap().len(), 3_000);
    assert_eq!(twins.stats().overflows, 3);
}

#[test]
fn borrowing_ahead_runs_the_same_number_of_ticks_ahead() {
    let mut twins = Twins::new(Config::new(TWITTER).borrow(2));
    let (ids, err) = twins.fill();
    assert_eq!(ids.len(), 3 * 4096);
    assert_eq!(decode(ids[3 * 4096 - 1], &TWITTER), (T0 + 2, None, 4095));
    assert!(
        matches!(err, Error::SequenceExhausted { retry_after, .. } if retry_after == Duration::from_millis(1))
    );
    let stats = twins.stats();
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (2, 2));
    // A clock one tick on lets the full tick borrow one more.
    twins.set(T0 + 1);
    assert_eq!(
        decode(twins.try_mint().unwrap(), &TWITTER),
        (T0 + 3, None, 0)
    );
    twins.set(T0 + 5);
    assert_eq!(
        twins.call(Call::MintMany(3 * 4096)).unwrap().len(),
        3 * 4096
    );
}

#[test]
fn a_sequence_range_confines_both_the_same_way() {
    let mut twins = Twins::new(Config::new(TWITTER).range(100..=103));
    let (ids, err) = twins.fill();
    let sequences: Vec<u64> = ids.iter().map(|&id| decode(id, &TWITTER).2).collect();
    assert_eq!(sequences, [100, 101, 102, 103]);
    assert!(matches!(err, Error::SequenceExhausted { .. }));
    twins.set(T0 + 1);
    let batch = twins.call(Call::MintBatch(10)).unwrap();
    assert_eq!(decode(batch[0], &TWITTER), (T0 + 1, None, 100));
    assert_eq!(batch.len(), 4);
    assert_eq!(twins.shared.snapshot().sequence_range, 100..=103);
}

#[test]
fn a_clock_behind_fails_the_same_under_error_and_a_zero_wait() {
    for policy in [ClockBehind::Error, ClockBehind::Wait { max_ms: 0 }] {
        let mut twins = Twins::new(Config::new(TWITTER).policy(policy));
        twins.mint().unwrap();
        twins.set(T0 - 10);
        let behind = Error::ClockBehind {
            layout: "twitter",
            behind_ms: 10,
            max_wait_ms: 0,
        };
        assert_eq!(twins.mint(), Err(behind.clone()));
        assert_eq!(twins.try_mint(), Err(behind.clone()));
        assert_eq!(twins.call(Call::MintBatch(5)), Err(behind.clone()));
        twins.set(T0 - HOUR);
        assert!(matches!(
            twins.mint(),
            Err(Error::ClockBehind {
                behind_ms: HOUR,
                ..
            })
        ));
        assert_eq!(twins.stats().regressions, 4);
        assert_eq!(twins.stats().waits, 0);
        // Back at the last tick: the sequence continues.
        twins.set(T0);
        assert_eq!(decode(twins.mint().unwrap(), &TWITTER), (T0, None, 1));
    }
}

#[test]
fn tick_tock_toggles_the_same_way_and_then_fails_the_same_way() {
    let mut twins = Twins::new(Config::new(TT).policy(ClockBehind::TickTock { max_ms: 0 }));
    for _ in 0..3 {
        twins.mint().unwrap();
    }
    twins.set(T0 - 5);
    let toggled = twins.call(Call::MintBatch(3)).unwrap();
    assert_eq!(decode(toggled[0], &TT), (T0 - 5, Some(1), 0));
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 - 5, Some(1), 3));
    // Back again, into time timeline 0 has used: no toggle with a zero wait.
    twins.set(T0 - 10);
    assert!(matches!(
        twins.mint(),
        Err(Error::ClockBehind { behind_ms: 5, .. })
    ));
    let stats = twins.stats();
    assert_eq!((stats.regressions, stats.toggles), (2, 1));
    // Past timeline 0's last tick: minting goes on, on timeline 1.
    twins.set(T0 + 1);
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 + 1, Some(1), 0));
    let snapshot = twins.shared.snapshot();
    assert_eq!(
        (snapshot.timeline, snapshot.other_timeline_tick),
        (1, T0 - TT.epoch_ms())
    );
}

#[test]
fn a_clock_back_at_the_reading_before_a_toggle_mints_on_that_reading_s_tick() {
    // The LocalGenerator steps on the tick of the last reading it minted at while the clock
    // reads the same; a toggle in between leaves the state on another tick and timeline,
    // which a step from the old tick's limit would mint on.
    let mut twins = Twins::new(Config::new(TT).policy(ClockBehind::TickTock { max_ms: 0 }));
    for _ in 0..3 {
        twins.mint().unwrap();
    }
    twins.set(T0 - 5);
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 - 5, Some(1), 0));
    twins.set(T0);
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0, Some(1), 0));
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0, Some(1), 1));
}

#[test]
fn snapshots_and_resumes_are_the_same() {
    let mut twins = Twins::new(Config::new(TT).range(10..=19));
    assert_eq!(twins.shared.snapshot().last_tick, 0);
    twins.fill();
    twins.resume(ClockBehind::TickTock { max_ms: 0 }, 1);
    // The tick was full: the resumed pair borrows the next one.
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 + 1, Some(0), 10));
    twins.set(T0 - 100);
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 - 100, Some(1), 10));
    twins.resume(ClockBehind::Error, 0);
    twins.set(T0 - 200);
    assert!(matches!(
        twins.mint(),
        Err(Error::ClockBehind { behind_ms: 100, .. })
    ));
    twins.set(T0 + 5);
    assert_eq!(decode(twins.mint().unwrap(), &TT), (T0 + 5, Some(1), 10));
}

/// A mint from the generator a [`Reentrant`] clock belongs to.
type MintInside = Box<dyn Fn() -> Result<Id, Error>>;

/// A clock that, while armed, mints from its generator inside its own reading: the one way a
/// second mint can start on a `LocalGenerator` before the first has finished.
#[derive(Clone)]
struct Reentrant(Rc<Inner>);

struct Inner {
    unix_ms: Cell<u64>,
    /// How many of the next readings mint inside.
    armed: Cell<u32>,
    /// Mints from the generator that owns this clock (through a weak reference).
    mint: RefCell<Option<MintInside>>,
    /// The IDs minted inside readings.
    inside: RefCell<Vec<Id>>,
}

impl Reentrant {
    fn new(unix_ms: u64) -> Self {
        Reentrant(Rc::new(Inner {
            unix_ms: Cell::new(unix_ms),
            armed: Cell::new(0),
            mint: RefCell::new(None),
            inside: RefCell::new(Vec::new()),
        }))
    }
}

impl Clock for Reentrant {
    fn unix_ms(&self) -> u64 {
        let armed = self.0.armed.get();
        if armed > 0 {
            self.0.armed.set(armed - 1);
            let id = self
                .0
                .mint
                .borrow()
                .as_ref()
                .expect("a generator to mint from")();
            self.0.inside.borrow_mut().push(id.expect("the inner mint"));
        }
        self.0.unix_ms.get()
    }
}

/// A generator on a [`Reentrant`] clock that mints from it.
fn reentrant<S: State + 'static>(
    layout: Layout,
    build: impl FnOnce(GeneratorBuilder<Reentrant>) -> Generator<Reentrant, S>,
) -> (Rc<Generator<Reentrant, S>>, Reentrant) {
    let clock = Reentrant::new(T0);
    let generator = Rc::new(build(
        Generator::builder(layout)
            .node("machine", 7)
            .on_clock_behind(ClockBehind::Error)
            .clock(clock.clone()),
    ));
    let weak = Rc::downgrade(&generator);
    *clock.0.mint.borrow_mut() = Some(Box::new(move || weak.upgrade().unwrap().try_mint()));
    (generator, clock)
}

/// Mints from `generator`, arming its clock before some calls; every ID, outer and inner, in
/// the order returned.
fn mint_reentrantly<S: State>(generator: &Generator<Reentrant, S>, clock: &Reentrant) -> Vec<Id> {
    let mut ids = Vec::new();
    let mut buffer = [UNWRITTEN; 3];
    for round in 0..40u32 {
        clock.0.armed.set(1 + round % 3);
        if round % 5 == 4 {
            // A new tick: the inner mints start it, the outer one continues it.
            clock.0.unix_ms.set(clock.0.unix_ms.get() + 1);
        }
        let outer = if round % 2 == 0 {
            vec![generator.try_mint().expect("the outer mint")]
        } else {
            let n = generator
                .try_mint_batch(&mut buffer)
                .expect("the outer batch");
            buffer[..n].to_vec()
        };
        ids.append(&mut clock.0.inside.borrow_mut());
        ids.extend(outer);
    }
    ids
}

#[test]
fn a_clock_minting_inside_its_reading_never_repeats_an_id() {
    let (shared, shared_clock) = reentrant(TT, |builder| builder.build().unwrap());
    let (local, local_clock) = reentrant(TT, |builder| builder.build_local().unwrap());
    let from_shared = mint_reentrantly(&shared, &shared_clock);
    let from_local = mint_reentrantly(&local, &local_clock);
    assert_eq!(from_shared, from_local);
    assert_eq!(shared.snapshot(), local.snapshot());
    assert_eq!(shared.stats(), local.stats());
    // Each outer mint started over after the inner ones: its IDs come after theirs.
    let unique: HashSet<Id> = from_local.iter().copied().collect();
    assert_eq!(
        unique.len(),
        from_local.len(),
        "an ID repeated: {from_local:?}"
    );
    assert_increasing(&from_local);
    assert!(from_local.len() > 100);
}

// Random call sequences.

#[derive(Debug, Clone)]
enum Op {
    /// The clock `ticks` ticks on (0: the same tick), `ms` into the tick.
    Forward {
        ticks: u8,
        ms: u8,
    },
    /// The clock `ticks` ticks back, `ms` into the tick.
    Back {
        ticks: u8,
        ms: u8,
    },
    /// The clock an hour back.
    BackHour,
    Call(Call),
    /// `try_mint` until it fails.
    Fill,
    /// A restart from the snapshot, with a policy (by index) and a borrow bound.
    Resume {
        policy: u8,
        borrow: u64,
    },
}

/// The policy for an index: `Error`, `Wait { max_ms: 0 }` or `TickTock { max_ms: 0 }` (on a
/// layout without the bit, `Wait`). Only zero waits: a longer one would make the counters
/// depend on how long the thread is descheduled.
fn policy(layout: &Layout, index: u8) -> ClockBehind {
    match index % 3 {
        0 => ClockBehind::Error,
        2 if layout.tick_tock_field().is_some() => ClockBehind::TickTock { max_ms: 0 },
        _ => ClockBehind::Wait { max_ms: 0 },
    }
}

fn batch_len() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..8, 1 => 0usize..5_000]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..4, any::<u8>()).prop_map(|(ticks, ms)| Op::Forward { ticks, ms }),
        1 => (1u8..7, any::<u8>()).prop_map(|(ticks, ms)| Op::Back { ticks, ms }),
        1 => Just(Op::BackHour),
        4 => Just(Op::Call(Call::Mint)),
        4 => Just(Op::Call(Call::TryMint)),
        1 => Just(Op::Fill),
        2 => batch_len().prop_map(|n| Op::Call(Call::MintBatch(n))),
        2 => batch_len().prop_map(|n| Op::Call(Call::TryMintBatch(n))),
        1 => (0usize..300).prop_map(|n| Op::Call(Call::MintMany(n))),
        1 => (any::<u8>(), 0u64..4).prop_map(|(policy, borrow)| Op::Resume { policy, borrow }),
    ]
}

fn config() -> impl Strategy<Value = Config> {
    let range = prop_oneof![1 => Just(None), 1 => (any::<u16>(), any::<u16>()).prop_map(Some)];
    (
        0..LAYOUTS.len(),
        any::<u8>(),
        prop_oneof![2 => Just(0u64), 1 => 1u64..4],
        range,
    )
        .prop_map(|(layout, policy_index, borrow, range)| {
            let layout = LAYOUTS[layout];
            let max = layout.max_sequence();
            let range = range.map(|(start, len)| {
                let start = u64::from(start) % (max + 1);
                start..=start + u64::from(len) % (max + 1 - start)
            });
            Config {
                layout,
                policy: policy(&layout, policy_index),
                borrow,
                range,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The differential test: any sequence of calls and clock moves gets the same answers,
    /// snapshots, counters and `Debug` output from a `Generator` and a `LocalGenerator`.
    #[test]
    fn a_local_generator_answers_every_call_as_a_shared_one_does(
        config in config(),
        ops in prop::collection::vec(op(), 1..60),
    ) {
        let mut twins = Twins::new(config);
        for op in ops {
            match op {
                Op::Forward { ticks, ms } => {
                    twins.set_tick(twins.tick() + u64::from(ticks), u64::from(ms));
                }
                Op::Back { ticks, ms } => {
                    twins.set_tick(twins.tick() - u64::from(ticks), u64::from(ms));
                }
                Op::BackHour => twins.set(twins.unix_ms - HOUR),
                Op::Call(call) => {
                    twins.call(call).ok();
                }
                Op::Fill => {
                    twins.fill();
                }
                Op::Resume { policy: index, borrow } => {
                    let policy = policy(&twins.layout(), index);
                    twins.resume(policy, borrow);
                }
            }
        }
    }
}

// Per-thread shards on real clocks.

/// What one thread minted from its own shard, and the shard's counters after.
struct Minted {
    ids: Vec<Id>,
    stats: Stats,
}

/// Moves each generator to a thread of its own and mints `per_thread` IDs from it, by single
/// mints and batches of up to `batch` IDs; the IDs of each thread, in order.
fn mint_on_threads<C: Clock + Send>(
    generators: Vec<LocalGenerator<C>>,
    per_thread: usize,
    batch: usize,
) -> Vec<Minted> {
    thread::scope(|s| {
        let workers: Vec<_> = generators
            .into_iter()
            .map(|generator| {
                s.spawn(move || {
                    let mut ids = Vec::with_capacity(per_thread + batch);
                    let mut buffer = vec![UNWRITTEN; batch];
                    while ids.len() < per_thread {
                        let n = generator.mint_batch(&mut buffer).expect("mint_batch");
                        ids.extend_from_slice(&buffer[..n]);
                        for _ in 0..batch / 4 {
                            ids.push(generator.mint().expect("mint"));
                        }
                    }
                    Minted {
                        ids,
                        stats: generator.stats(),
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    })
}

/// Every ID unique across the threads, each thread's strictly increasing, each of its ticks
/// holding at most `per_tick` IDs with the node and sequence `fits` expects of thread `t`;
/// ticks crossed and filled.
fn check_threads(minted: &[Minted], per_tick: usize, fits: impl Fn(usize, u64, u64) -> bool) {
    let total: usize = minted.iter().map(|m| m.ids.len()).sum();
    let seen = assert_unique_and_increasing(minted.iter().map(|m| &m.ids));
    for (t, m) in minted.iter().enumerate() {
        let mut per_tick_count: HashMap<u64, usize> = HashMap::new();
        for &id in &m.ids {
            let parts = TWITTER.decode(id).unwrap();
            let (machine, sequence) = (parts.node("machine").unwrap(), parts.sequence());
            assert!(fits(t, machine, sequence), "thread {t} minted {parts:?}");
            *per_tick_count.entry(parts.ticks()).or_default() += 1;
        }
        let fullest = per_tick_count.values().max().copied().unwrap_or(0);
        assert!(fullest <= per_tick, "thread {t}: {fullest} IDs in one tick");
        assert!(
            per_tick_count.len() >= m.ids.len() / per_tick,
            "thread {t}: too few ticks"
        );
        assert!(
            per_tick_count.len() >= 10,
            "thread {t} crossed only a few ticks"
        );
    }
    assert_eq!(seen.len(), total);
    let overflows: u64 = minted.iter().map(|m| m.stats.overflows).sum();
    assert!(overflows > 0, "no tick was ever full");
}

const THREADS: usize = 8;

/// Eight shards of machine 378's sequence, 512 values each, on eight threads.
const SPLIT_SEQUENCE: Shards<'static> = Shards::SplitSequence(THREADS);

fn check_split_sequence<C: Clock + Send>(generators: Vec<LocalGenerator<C>>) {
    assert_eq!(generators.len(), THREADS);
    let minted = mint_on_threads(generators, 30_000, 256);
    check_threads(&minted, 512, |t, machine, sequence| {
        machine == 378 && sequence / 512 == t as u64
    });
}

/// Eight shards, machines 100 to 107, each with the whole sequence, on eight threads.
const NODE_BLOCK: Shards<'static> = Shards::NodeBlock {
    field: "machine",
    values: 100..=107,
};

fn check_node_block<C: Clock + Send>(generators: Vec<LocalGenerator<C>>) {
    assert_eq!(generators.len(), THREADS);
    let minted = mint_on_threads(generators, 60_000, 4096);
    check_threads(&minted, 4096, |t, machine, _| machine == 100 + t as u64);
}

#[test]
fn split_sequence_shards_on_eight_threads_never_collide_on_the_default_clock() {
    let builder = Generator::builder(TWITTER).node("machine", 378);
    check_split_sequence(builder.build_local_shards(SPLIT_SEQUENCE).unwrap());
}

#[test]
fn split_sequence_shards_on_eight_threads_never_collide_on_the_monotonic_clock() {
    let clock = MonotonicClock::new();
    let builder = Generator::builder(TWITTER)
        .node("machine", 378)
        .clock(clock);
    check_split_sequence(builder.build_local_shards(SPLIT_SEQUENCE).unwrap());
}

#[test]
fn node_block_shards_on_eight_threads_never_collide_on_the_default_clock() {
    let builder = Generator::builder(TWITTER);
    check_node_block(builder.build_local_shards(NODE_BLOCK).unwrap());
}

#[test]
fn node_block_shards_on_eight_threads_never_collide_on_the_monotonic_clock() {
    let clock = MonotonicClock::new();
    let builder = Generator::builder(TWITTER).clock(clock);
    check_node_block(builder.build_local_shards(NODE_BLOCK).unwrap());
}

#[test]
fn local_shards_split_the_builders_range_and_keep_its_settings() {
    let (shards, clock) = built_on_manual_clock(T0, |clock| {
        Generator::builder(TWITTER)
            .node("machine", 5)
            .sequence_range(1000..=1009)
            .borrow_ahead(1)
            .clock(clock)
            .build_local_shards(Shards::SplitSequence(3))
            .unwrap()
    });
    let ranges: Vec<_> = shards.iter().map(|s| s.snapshot().sequence_range).collect();
    assert_eq!(ranges, [1000..=1003, 1004..=1006, 1007..=1009]);
    for shard in &shards {
        // Each shard's range, then one borrowed tick of it, then full.
        let (first, last) = (shard.mint().unwrap(), shard.try_mint().unwrap());
        assert_eq!(shard.decode(first).unwrap().node("machine"), Some(5));
        assert!(first < last);
        while shard.try_mint().is_ok() {}
        assert_eq!(shard.stats().borrows, 1);
        assert_eq!(shard.snapshot().last_tick, T0 + 1 - TWITTER.epoch_ms());
    }
    // The shards share the clock given.
    clock.advance(5);
    assert_eq!(
        decode(shards[2].mint().unwrap(), &TWITTER),
        (T0 + 5, None, 1007)
    );
}

// Shard plans that cannot be built.

/// The reason of an `InvalidShards` error for the twitter layout.
fn invalid_shards<T: Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(Error::InvalidShards {
            layout: "twitter",
            reason,
        }) => reason,
        other => panic!("expected InvalidShards, got {other:?}"),
    }
}

/// `build_local_shards` on the default clock and on a manual clock, and `build_sharded`, fail
/// alike for `shards` from `builder`; the message.
fn shard_error(builder: GeneratorBuilder, shards: Shards<'_>) -> String {
    let on_default = builder
        .clone()
        .build_local_shards(shards.clone())
        .unwrap_err();
    let on_manual = builder
        .clone()
        .clock(ManualClock::new(T0))
        .build_local_shards(shards.clone())
        .unwrap_err();
    let sharded = builder.build_sharded(shards).unwrap_err();
    assert_eq!(on_default, on_manual);
    assert_eq!(on_default, sharded);
    on_default.to_string()
}

#[test]
fn zero_shards_is_invalid_shards() {
    let builder = Generator::builder(TWITTER).node("machine", 0);
    let reason = invalid_shards(builder.clone().build_local_shards(Shards::SplitSequence(0)));
    assert_eq!(
        reason,
        "cannot split the 4096 sequence values 0..=4095 into 0 non-empty ranges; \
         expected 1..=4096 parts"
    );
    assert_eq!(
        shard_error(builder, Shards::SplitSequence(0)),
        format!("invalid shards for layout twitter: {reason}")
    );
}

#[test]
fn more_shards_than_sequence_values_is_invalid_shards() {
    let builder = Generator::builder(TWITTER).node("machine", 0);
    assert_eq!(
        invalid_shards(
            builder
                .clone()
                .build_local_shards(Shards::SplitSequence(4097))
        ),
        "cannot split the 4096 sequence values 0..=4095 into 4097 non-empty ranges; \
         expected 1..=4096 parts"
    );
    shard_error(builder, Shards::SplitSequence(4097));
    // The builder's own range is what is split.
    let ranged = Generator::builder(TWITTER)
        .node("machine", 0)
        .sequence_range(10..=12);
    assert_eq!(
        shard_error(ranged.clone(), Shards::SplitSequence(4)),
        "invalid shards for layout twitter: cannot split the 3 sequence values 10..=12 into 4 \
         non-empty ranges; expected 1..=3 parts"
    );
    assert_eq!(
        ranged
            .clock(ManualClock::new(T0))
            .build_local_shards(Shards::SplitSequence(3))
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn an_empty_node_block_is_invalid_shards() {
    let empty = Shards::NodeBlock {
        field: "machine",
        values: RangeInclusive::new(9, 8),
    };
    let builder = Generator::builder(TWITTER).node("machine", 0);
    assert_eq!(
        invalid_shards(builder.clone().build_local_shards(empty.clone())),
        "the block of machine values 9..=8 is empty; expected at least one value"
    );
    shard_error(builder, empty);
}

#[test]
fn a_node_block_the_layout_cannot_hold_fails_as_build_does() {
    let builder = Generator::builder(TWITTER)
        .node("machine", 0)
        .clock(ManualClock::new(T0));
    let unknown = builder
        .clone()
        .build_local_shards(Shards::NodeBlock {
            field: "shard",
            values: 0..=1,
        })
        .unwrap_err();
    assert!(
        matches!(unknown, Error::UnknownNodeField { .. }),
        "{unknown:?}"
    );
    let too_big = builder
        .clone()
        .build_local_shards(Shards::NodeBlock {
            field: "machine",
            values: 1020..=1024,
        })
        .unwrap_err();
    assert!(
        matches!(too_big, Error::NodeOutOfRange { .. }),
        "{too_big:?}"
    );
    let twice = builder
        .node("machine", 1)
        .build_local_shards(Shards::NodeBlock {
            field: "machine",
            values: 0..=1,
        })
        .unwrap_err();
    assert!(
        matches!(twice, Error::DuplicateNodeField { .. }),
        "{twice:?}"
    );
}

#[test]
fn a_resumed_builder_is_invalid_shards() {
    let generator = Generator::builder(TWITTER)
        .node("machine", 3)
        .clock(ManualClock::new(T0))
        .build_local()
        .unwrap();
    generator.mint().unwrap();
    let snapshot = generator.snapshot();
    let expected = "a sharded generator does not resume from one generator's snapshot; resume \
                    each shard with Generator::resume and its own snapshot";
    for shards in [
        Shards::SplitSequence(2),
        Shards::NodeBlock {
            field: "machine",
            values: 4..=5,
        },
    ] {
        let builder = Generator::resume(&snapshot);
        assert_eq!(
            invalid_shards(builder.clone().build_local_shards(shards.clone())),
            expected
        );
        shard_error(builder, shards);
    }
    // Each shard resumes from its own snapshot instead.
    let resumed = Generator::resume(&snapshot)
        .clock(ManualClock::new(T0))
        .build_local()
        .unwrap();
    assert_eq!(decode(resumed.mint().unwrap(), &TWITTER), (T0, None, 1));
}
