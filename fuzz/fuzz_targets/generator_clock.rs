//! One generator on a `ManualClock`, single-threaded, through an arbitrary sequence of clock
//! moves (small steps around the current tick, big jumps, values before the epoch, in the
//! epoch's tick and past the layout's end), `mint`, `try_mint`, and restarts resumed from a
//! snapshot, under the `Error`, `Wait { max_ms: 0 }` and `TickTock { max_ms: 0 }` policies.
//!
//! Checked over the whole run, across every resume:
//! - no ID is repeated;
//! - on each timeline the IDs strictly increase; under `Error` and `Wait` every ID is greater
//!   than every earlier ID of its generator and than the last ID before it was resumed (and
//!   than every earlier ID of the run while no toggle has happened);
//! - every ID decodes with the generator's nodes and carries the clock's current tick (one
//!   thread: a mint never uses a tick the clock does not read);
//! - every error is the right kind for the situation seen in the snapshot taken just before
//!   the call, with the right fields;
//! - each outcome, snapshot and counter equals a one-thread model of the rules in
//!   `generator.rs`; counters never decrease and toggles <= regressions.
//!
//! `mint` never blocks here: with `max_ms: 0` a clock behind fails at once, and `mint` is only
//! called when the snapshot shows that the clock's tick is not the last minted tick with its
//! sequence exhausted (the one case where it would wait for a tick that never comes); otherwise
//! the operation becomes a `try_mint`, which must then fail with `SequenceExhausted`.

#![no_main]

use std::collections::HashSet;
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::{ClockBehind, Error, Generator, Id, Layout, ManualClock, Snapshot, Stats};

/// The tiny layouts' epoch, and the start of the run for the 41-bit ones.
const RECENT_MS: u64 = 1_700_000_000_000;
/// Twitter's epoch, used by the 41-bit tick-tock layout too.
const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;
/// More mints than this in one input are skipped, to keep executions fast.
const MAX_MINTS: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
enum Policy {
    Error,
    Wait,
    TickTock,
}

impl Policy {
    fn get(self) -> ClockBehind {
        match self {
            Policy::Error => ClockBehind::Error,
            Policy::Wait => ClockBehind::Wait { max_ms: 0 },
            Policy::TickTock => ClockBehind::TickTock { max_ms: 0 },
        }
    }
}

/// A clock move far from the current time, or onto the edges of the layout.
#[derive(Debug, Arbitrary)]
enum Far {
    /// `1 + back` ms before the epoch.
    BeforeEpoch(u16),
    /// A millisecond inside the epoch's own tick (reserved: generators never mint in it).
    EpochTick(u8),
    /// Tick `1 + ticks % 4`, the first ones a generator mints in.
    FirstTicks { ticks: u8, ms: u8 },
    /// Tick `max_ticks - back % 4`, the layout's last ones.
    LastTicks { back: u8, ms: u8 },
    /// `extra` ms past the start of the tick after the layout's last.
    PastEnd(u16),
    /// Forward or back by this many ticks.
    Jump(i32),
    /// Any reading.
    Raw(u64),
}

#[derive(Debug, Arbitrary)]
enum Op {
    /// The clock to the current tick plus `ticks % 7 - 3` ticks, `ms % tick_ms` into it.
    Step {
        ticks: u8,
        ms: u8,
    },
    /// The clock to the last minted tick plus `ticks % 7 - 3` ticks, `ms % tick_ms` into it.
    NearLast {
        ticks: u8,
        ms: u8,
    },
    Far(Far),
    Mint,
    TryMint,
    /// `1 + n % 8` `try_mint`s.
    Burst(u8),
    /// `try_mint` until it fails (at most a tick's worth of IDs plus one).
    Fill,
    /// Snapshot, then replace the generator by one resumed from it under this policy.
    Resume(Policy),
}

#[derive(Debug, Arbitrary)]
struct Input {
    /// Modulo 4: twitter, tiny, tt, tiny-tt.
    layout: u8,
    /// 4 ms ticks instead of 1 ms (not for twitter, a preset).
    tick_4ms: bool,
    node: u16,
    policy: Policy,
    /// The first reading, in ticks from a base (the epoch's next tick, or 2023 for 41 bits).
    start: u16,
    ops: Vec<Op>,
}

fn layout(choice: u8, tick_4ms: bool) -> Layout {
    let tick_ms = if tick_4ms { 4 } else { 1 };
    let built = match choice % 4 {
        0 => return Layout::TWITTER,
        // 2 sequence bits: 4 IDs per tick; 13 time bits: the end is 8191 ticks away.
        1 => Layout::builder("tiny", 16)
            .time(13)
            .node("shard", 1)
            .sequence(2)
            .tick_ms(tick_ms)
            .epoch_ms(RECENT_MS)
            .build(),
        2 => Layout::builder("tt", 64)
            .time(41)
            .tick_tock()
            .node("machine", 10)
            .sequence(12)
            .tick_ms(tick_ms)
            .epoch_ms(TWITTER_EPOCH_MS)
            .build(),
        _ => Layout::builder("tiny-tt", 16)
            .time(12)
            .tick_tock()
            .sequence(3)
            .tick_ms(tick_ms)
            .epoch_ms(RECENT_MS)
            .build(),
    };
    built.expect("the fuzz layouts are valid")
}

/// `epoch + ticks * tick_ms + ms`, clamped to the `u64` range.
fn at(layout: &Layout, ticks: i128, ms: i128) -> u64 {
    let ms = i128::from(layout.epoch_ms()) + ticks * i128::from(layout.tick_ms()) + ms;
    ms.clamp(0, i128::from(u64::MAX)) as u64
}

/// The tick a reading falls in, counted from the epoch (negative before it; unbounded).
fn tick_of(layout: &Layout, unix_ms: u64) -> i128 {
    (i128::from(unix_ms) - i128::from(layout.epoch_ms())).div_euclid(i128::from(layout.tick_ms()))
}

/// The tick a generator mints at for a reading, or `None` outside the ticks it mints in.
fn mint_tick(layout: &Layout, unix_ms: u64) -> Option<u64> {
    let tick = tick_of(layout, unix_ms);
    (1..=i128::from(layout.max_ticks()))
        .contains(&tick)
        .then_some(tick as u64)
}

fn small_offset(ticks: u8) -> i128 {
    i128::from(ticks % 7) - 3
}

/// What the model says a call does.
#[derive(Debug, PartialEq)]
enum Expect {
    Mint {
        tick: u64,
        timeline: u64,
        sequence: u64,
    },
    Fail(Error),
    /// `mint` would wait for a later tick (never called).
    Blocks,
}

/// The generator's state and counters, following the rules of `generator.rs` for one thread.
#[derive(Debug, Clone)]
struct Model {
    tick: u64,
    timeline: u64,
    /// The last sequence minted; `max_sequence` in the initial state (tick 0, "full").
    sequence: u64,
    high_water: [u64; 2],
    overflows: u64,
    regressions: u64,
    toggles: u64,
}

impl Model {
    fn new(layout: &Layout) -> Self {
        Model {
            tick: 0,
            timeline: 0,
            sequence: layout.max_sequence(),
            high_water: [0, 0],
            overflows: 0,
            regressions: 0,
            toggles: 0,
        }
    }

    /// A generator resumed from the model's state: same state, fresh counters.
    fn resumed(&self) -> Self {
        let mut high_water = self.high_water;
        high_water[self.timeline as usize] = self.tick;
        Model {
            high_water,
            overflows: 0,
            regressions: 0,
            toggles: 0,
            ..*self
        }
    }

    fn step(&mut self, layout: &Layout, policy: Policy, unix_ms: u64, try_mint: bool) -> Expect {
        let name = layout.name();
        let (epoch_ms, tick_ms) = (layout.epoch_ms(), layout.tick_ms());
        if unix_ms < epoch_ms {
            return Expect::Fail(Error::BeforeEpoch {
                layout: name,
                unix_ms,
                epoch_ms,
            });
        }
        let now = (unix_ms - epoch_ms) / tick_ms;
        if now == 0 {
            return Expect::Fail(Error::EpochTick {
                layout: name,
                unix_ms,
                first_ms: epoch_ms + tick_ms,
            });
        }
        if now > layout.max_ticks() {
            return Expect::Fail(Error::TimeOverflow {
                layout: name,
                unix_ms,
                max_unix_ms: layout.max_unix_ms(),
            });
        }
        if now < self.tick {
            self.regressions += 1;
            let other = 1 - self.timeline;
            if policy == Policy::TickTock && now > self.high_water[other as usize] {
                let this = &mut self.high_water[self.timeline as usize];
                *this = (*this).max(self.tick);
                (self.tick, self.timeline, self.sequence) = (now, other, 0);
                self.toggles += 1;
                return self.minted();
            }
            return Expect::Fail(Error::ClockBehind {
                layout: name,
                behind_ms: epoch_ms + self.tick * tick_ms - unix_ms,
                max_wait_ms: 0,
            });
        }
        if now > self.tick {
            (self.tick, self.sequence) = (now, 0);
        } else if self.sequence < layout.max_sequence() {
            self.sequence += 1;
        } else {
            self.overflows += 1;
            if now == layout.max_ticks() {
                return Expect::Fail(Error::LayoutExhausted {
                    layout: name,
                    last_ms: layout.max_unix_ms(),
                });
            }
            if !try_mint {
                return Expect::Blocks;
            }
            return Expect::Fail(Error::SequenceExhausted {
                layout: name,
                tick: now,
                retry_after: Duration::from_millis(tick_ms),
            });
        }
        self.minted()
    }

    fn minted(&self) -> Expect {
        Expect::Mint {
            tick: self.tick,
            timeline: self.timeline,
            sequence: self.sequence,
        }
    }
}

struct Run {
    layout: Layout,
    nodes: Vec<(&'static str, u64)>,
    clock: ManualClock,
    unix_ms: u64,
    generator: Generator<ManualClock>,
    policy: Policy,
    model: Model,
    stats: Stats,
    /// Every ID minted in the run.
    seen: HashSet<u64>,
    /// The last ID minted on each timeline, over the whole run.
    last_on: [Option<u64>; 2],
    /// Under `Error` and `Wait`: the greatest ID this generator minted, or the last one minted
    /// before it was resumed.
    floor: Option<u64>,
    /// The greatest ID of the run, and whether any generator has toggled yet.
    max: Option<u64>,
    toggled: bool,
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let layout = layout(input.layout, input.tick_4ms);
    let nodes: Vec<(&'static str, u64)> = layout
        .node_fields()
        .map(|f| (f.name(), u64::from(input.node) & f.max()))
        .collect();
    let has_tick_tock = layout.tick_tock_field().is_some();
    // The first reading: from the epoch's next tick for the tiny layouts, from 2023 for the
    // 41-bit ones; `start` ticks on (past the end for most of the tiny layouts' range).
    let base = if layout.max_ticks() > 1 << 20 {
        tick_of(&layout, RECENT_MS)
    } else {
        1
    };
    let unix_ms = at(&layout, base + i128::from(input.start % 10_000), 0);
    let clock = ManualClock::new(unix_ms);
    let policy = supported(&layout, input.policy);
    let mut builder = Generator::builder(layout)
        .clock(clock.clone())
        .on_clock_behind(policy.get());
    for &(name, value) in &nodes {
        builder = builder.node(name, value);
    }
    let generator = builder.build().expect("valid generator");
    if !has_tick_tock && input.policy == Policy::TickTock {
        expect_tick_tock_unsupported(&layout, &nodes, &clock);
    }

    let mut run = Run {
        layout,
        nodes,
        clock,
        unix_ms,
        generator,
        policy,
        model: Model::new(&layout),
        stats: Stats::default(),
        seen: HashSet::new(),
        last_on: [None, None],
        floor: None,
        max: None,
        toggled: false,
    };
    run.check_state();
    for op in &input.ops {
        run.apply(op);
        run.check_state();
    }
}

/// The policy, or `Wait { max_ms: 0 }` in place of tick-tock on a layout without the bit.
fn supported(layout: &Layout, policy: Policy) -> Policy {
    if policy == Policy::TickTock && layout.tick_tock_field().is_none() {
        Policy::Wait
    } else {
        policy
    }
}

fn expect_tick_tock_unsupported(
    layout: &Layout,
    nodes: &[(&'static str, u64)],
    clock: &ManualClock,
) {
    let mut builder = Generator::builder(*layout)
        .clock(clock.clone())
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 });
    for &(name, value) in nodes {
        builder = builder.node(name, value);
    }
    let err = builder.build().expect_err("tick-tock needs the bit");
    assert_eq!(
        err,
        Error::TickTockUnsupported {
            layout: layout.name()
        }
    );
}

impl Run {
    fn set_clock(&mut self, unix_ms: u64) {
        self.unix_ms = unix_ms;
        self.clock.set(unix_ms);
    }

    fn apply(&mut self, op: &Op) {
        let layout = self.layout;
        let tick_ms = i128::from(layout.tick_ms());
        match *op {
            Op::Step { ticks, ms } => {
                let tick = tick_of(&layout, self.unix_ms) + small_offset(ticks);
                self.set_clock(at(&layout, tick, i128::from(ms) % tick_ms));
            }
            Op::NearLast { ticks, ms } => {
                let tick = i128::from(self.model.tick) + small_offset(ticks);
                self.set_clock(at(&layout, tick, i128::from(ms) % tick_ms));
            }
            Op::Far(ref far) => {
                let unix_ms = match *far {
                    Far::BeforeEpoch(back) => at(&layout, 0, -1 - i128::from(back)),
                    Far::EpochTick(ms) => at(&layout, 0, i128::from(ms) % tick_ms),
                    Far::FirstTicks { ticks, ms } => {
                        at(&layout, 1 + i128::from(ticks % 4), i128::from(ms) % tick_ms)
                    }
                    Far::LastTicks { back, ms } => at(
                        &layout,
                        i128::from(layout.max_ticks()) - i128::from(back % 4),
                        i128::from(ms) % tick_ms,
                    ),
                    Far::PastEnd(extra) => at(
                        &layout,
                        i128::from(layout.max_ticks()) + 1,
                        i128::from(extra),
                    ),
                    Far::Jump(ticks) => {
                        let tick = tick_of(&layout, self.unix_ms) + i128::from(ticks);
                        let into = (i128::from(self.unix_ms) - i128::from(layout.epoch_ms()))
                            .rem_euclid(tick_ms);
                        at(&layout, tick, into)
                    }
                    Far::Raw(unix_ms) => unix_ms,
                };
                self.set_clock(unix_ms);
            }
            Op::Mint => {
                self.mint(false);
            }
            Op::TryMint => {
                self.mint(true);
            }
            Op::Burst(n) => {
                for _ in 0..=n % 8 {
                    self.mint(true);
                }
            }
            Op::Fill => {
                for _ in 0..=layout.max_sequence() + 1 {
                    if !self.mint(true) {
                        break;
                    }
                }
            }
            Op::Resume(policy) => self.resume(policy),
        }
    }

    /// One `mint` (when it cannot block) or `try_mint`; whether it minted.
    fn mint(&mut self, try_mint: bool) -> bool {
        if self.seen.len() >= MAX_MINTS {
            return false;
        }
        let layout = self.layout;
        let before = self.generator.snapshot();
        // `mint` waits for a later tick exactly when the clock reads the last minted tick and
        // its sequence is exhausted; nobody advances this clock, so use `try_mint` then.
        let full = before.last_tick != 0
            && before.last_tick < layout.max_ticks()
            && mint_tick(&layout, self.unix_ms) == Some(before.last_tick)
            && before.sequence == layout.max_sequence();
        let try_mint = try_mint || full;
        let expected = self
            .model
            .step(&layout, self.policy, self.unix_ms, try_mint);
        let result = if try_mint {
            self.generator.try_mint()
        } else {
            self.generator.mint()
        };
        let call = if try_mint { "try_mint" } else { "mint" };
        match result {
            Ok(id) => {
                self.check_id(id, &before);
                let parts = layout.decode(id).expect("minted ids decode");
                let got = Expect::Mint {
                    tick: parts.ticks(),
                    timeline: parts.timeline().unwrap_or(0),
                    sequence: parts.sequence(),
                };
                assert_eq!(
                    got, expected,
                    "{call} at {} ms minted {id:?}; state before {before:?}",
                    self.unix_ms
                );
                true
            }
            Err(err) => {
                self.check_error(&err, &before, try_mint);
                assert_eq!(
                    Expect::Fail(err.clone()),
                    expected,
                    "{call} at {} ms failed; state before {before:?}",
                    self.unix_ms
                );
                let _ = err.to_string();
                false
            }
        }
    }

    /// The checks on a minted ID that do not use the model.
    fn check_id(&mut self, id: Id, before: &Snapshot) {
        let layout = self.layout;
        let raw = id.to_u64();
        assert!(
            self.seen.insert(raw),
            "{id:?} minted twice (at {} ms, state before {before:?})",
            self.unix_ms
        );
        let parts = layout.decode(id).expect("minted ids decode");
        assert_eq!(parts.nodes().collect::<Vec<_>>(), self.nodes, "{id:?}");
        assert_eq!(self.generator.decode(id).map(|p| p.id()), Ok(id));
        // One thread: the ID carries the tick the clock reads now, which the generator mints in.
        assert_eq!(
            Some(parts.ticks()),
            mint_tick(&layout, self.unix_ms),
            "{id:?} at clock {} ms (state before {before:?})",
            self.unix_ms
        );
        let timeline = parts.timeline().unwrap_or(0);
        if let Some(last) = self.last_on[timeline as usize] {
            assert!(
                raw > last,
                "{id:?} on timeline {timeline} not above the timeline's last id {last} (state before {before:?})"
            );
        }
        self.last_on[timeline as usize] = Some(raw);
        if timeline != before.timeline {
            assert_eq!(self.policy, Policy::TickTock, "{id:?} changed timeline");
            self.toggled = true;
        }
        if self.policy != Policy::TickTock {
            if let Some(floor) = self.floor {
                assert!(
                    raw > floor,
                    "{id:?} not above {floor}, an earlier id of this generator or the last before it was resumed ({:?})",
                    self.policy
                );
            }
            self.floor = Some(raw);
            if !self.toggled
                && let Some(max) = self.max
            {
                assert!(raw > max, "{id:?} not above the earlier id {max}");
            }
        }
        self.max = self.max.max(Some(raw));
    }

    /// An error is the kind the situation before the call calls for.
    fn check_error(&self, err: &Error, before: &Snapshot, try_mint: bool) {
        let layout = self.layout;
        let (epoch_ms, tick_ms) = (layout.epoch_ms(), layout.tick_ms());
        let unix_ms = self.unix_ms;
        let tick = tick_of(&layout, unix_ms);
        match *err {
            Error::BeforeEpoch {
                unix_ms: u,
                epoch_ms: e,
                ..
            } => assert!(
                u == unix_ms && e == epoch_ms && unix_ms < epoch_ms,
                "{err:?}"
            ),
            Error::EpochTick {
                unix_ms: u,
                first_ms,
                ..
            } => assert!(
                u == unix_ms && first_ms == epoch_ms + tick_ms && tick == 0,
                "{err:?}"
            ),
            Error::TimeOverflow {
                unix_ms: u,
                max_unix_ms,
                ..
            } => assert!(
                u == unix_ms
                    && max_unix_ms == layout.max_unix_ms()
                    && tick > i128::from(layout.max_ticks()),
                "{err:?}"
            ),
            Error::SequenceExhausted {
                tick: full,
                retry_after,
                ..
            } => assert!(
                try_mint
                    && before.last_tick != 0
                    && full == before.last_tick
                    && tick == i128::from(full)
                    && before.sequence == layout.max_sequence()
                    && full < layout.max_ticks()
                    && retry_after == Duration::from_millis(tick_ms),
                "{err:?} from a {} call, state before {before:?}, clock {unix_ms} ms",
                if try_mint { "try_mint" } else { "mint" }
            ),
            Error::LayoutExhausted { last_ms, .. } => assert!(
                before.last_tick == layout.max_ticks()
                    && tick == i128::from(layout.max_ticks())
                    && before.sequence == layout.max_sequence()
                    && last_ms == layout.max_unix_ms(),
                "{err:?}, state before {before:?}, clock {unix_ms} ms"
            ),
            Error::ClockBehind {
                behind_ms,
                max_wait_ms,
                ..
            } => {
                let behind = mint_tick(&layout, unix_ms).is_some_and(|now| now < before.last_tick);
                // Tick-tock fails only when the other timeline has minted at or after `now`.
                let blocked = self.policy != Policy::TickTock
                    || mint_tick(&layout, unix_ms)
                        .is_some_and(|now| now <= before.other_timeline_tick);
                assert!(
                    behind
                        && blocked
                        && max_wait_ms == 0
                        && behind_ms == before.last_unix_ms() - unix_ms,
                    "{err:?} under {:?}, state before {before:?}, clock {unix_ms} ms",
                    self.policy
                );
            }
            _ => panic!("unexpected error {err:?}"),
        }
    }

    fn resume(&mut self, policy: Policy) {
        let snapshot = self.generator.snapshot();
        let _ = format!("{:?}", self.generator);
        if policy == Policy::TickTock && self.layout.tick_tock_field().is_none() {
            let err = Generator::resume(&snapshot)
                .clock(self.clock.clone())
                .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
                .build()
                .expect_err("tick-tock needs the bit");
            assert!(matches!(err, Error::TickTockUnsupported { .. }), "{err:?}");
        }
        let policy = supported(&self.layout, policy);
        let node_bits = self.generator.node_bits();
        self.generator = Generator::resume(&snapshot)
            .clock(self.clock.clone())
            .on_clock_behind(policy.get())
            .build()
            .unwrap_or_else(|e| panic!("resume from {snapshot:?} failed: {e}"));
        assert_eq!(self.generator.node_bits(), node_bits);
        assert_eq!(
            self.generator.snapshot(),
            snapshot,
            "resume changed the state"
        );
        self.policy = policy;
        self.model = self.model.resumed();
        self.stats = Stats::default();
        // The new generator continues from the last ID minted (the state's, with the nodes).
        self.floor = (snapshot.last_tick != 0).then(|| {
            self.last_on[snapshot.timeline as usize].expect("the state's timeline has minted")
        });
    }

    /// The snapshot and counters agree with the model; counters never decrease.
    fn check_state(&mut self) {
        let snapshot = self.generator.snapshot();
        let model = &self.model;
        let expected = Snapshot {
            layout: self.layout,
            nodes: self.nodes.clone(),
            last_tick: model.tick,
            sequence: if model.tick == 0 { 0 } else { model.sequence },
            timeline: model.timeline,
            other_timeline_tick: model.high_water[1 - model.timeline as usize],
        };
        assert_eq!(snapshot, expected, "snapshot (left) differs from the model");
        if snapshot.last_tick != 0 {
            // The state is the last ID minted, without its nodes.
            let last = self.last_on[snapshot.timeline as usize].expect("minted");
            let state = self.layout.compose_on_timeline(
                snapshot.last_unix_ms(),
                snapshot.timeline,
                &self.nodes,
                snapshot.sequence,
            );
            assert_eq!(state, Ok(Id::from_u64(last)), "{snapshot:?}");
        }
        assert_eq!(
            snapshot.last_unix_ms(),
            self.layout.epoch_ms() + snapshot.last_tick * self.layout.tick_ms()
        );

        let stats = self.generator.stats();
        let old = self.stats;
        assert!(
            stats.overflows >= old.overflows
                && stats.waits >= old.waits
                && stats.regressions >= old.regressions
                && stats.toggles >= old.toggles,
            "counters went down: {old:?} -> {stats:?}"
        );
        assert!(stats.toggles <= stats.regressions, "{stats:?}");
        let modelled = (model.overflows, 0, model.regressions, model.toggles);
        assert_eq!(
            (
                stats.overflows,
                stats.waits,
                stats.regressions,
                stats.toggles
            ),
            modelled,
            "stats {stats:?} differ from the model's (overflows, waits, regressions, toggles)"
        );
        self.stats = stats;
    }
}
