//! One generator on a `ManualClock`, single-threaded, through an arbitrary sequence of clock
//! moves (small steps around the current tick, the last minted tick and the borrowing edge, big
//! jumps, values before the epoch, in the epoch's tick and past the layout's end), `mint`,
//! `try_mint`, `mint_batch` and `try_mint_batch` (buffers of any length, 0 included),
//! `mint_many` (small `n`), and restarts resumed from a snapshot, under the `Error`,
//! `Wait { max_ms: 0 }` and `TickTock { max_ms: 0 }` policies. Each generator has a sequence
//! range (the whole field, a sub-range, one value, or an invalid one, which `build` must reject
//! with `InvalidSequenceRange`) and a borrow bound (`borrow_ahead`: 0 half of the time, a few
//! ticks, or unbounded); a resume keeps the range, or replaces it through the builder or the
//! snapshot.
//!
//! Checked over the whole run, across every resume:
//! - no ID is repeated (counting the IDs a failed `mint_many` reserved and dropped);
//! - on each timeline the IDs strictly increase; under `Error` and `Wait` every ID is greater
//!   than every earlier ID of its generator and than the last ID before it was resumed (and
//!   than every earlier ID of the run while no toggle has happened);
//! - every ID decodes with the generator's nodes and a sequence in its range, and carries a
//!   tick from the clock's current tick to at most the borrow bound past it (exactly the
//!   clock's tick without borrowing: one thread, so a mint never uses a tick the clock does not
//!   read);
//! - a batch is consecutive sequence values of one tick, fills the front of the buffer, leaves
//!   the rest untouched and writes nothing on error; `mint_many(n)` returns exactly `n` IDs;
//! - every error is the right kind for the situation seen in the snapshot taken just before
//!   the call, with the right fields (`retry_after` and `behind_ms` account for borrowing;
//!   `behind_ms` is measured to the last minted tick, or the next when it is full);
//! - each outcome (the IDs themselves, counts, errors), build error, snapshot (the range
//!   included) and counter (borrows and `max_ahead_ticks` included) equals a one-thread model
//!   of the rules in `generator.rs`; counters never decrease, toggles <= regressions,
//!   borrows <= overflows, `max_ahead_ticks` <= the borrow bound;
//! - a `LocalGenerator` built the same way on a second `ManualClock` that always reads the
//!   same, driven through the same calls and resumes in lockstep, answers every call alike (the
//!   IDs, the whole batch buffer, errors, build errors) and has the same snapshot, counters and
//!   `Debug` output after each step.
//! - two more generators on one `SharedWord` (`build_process_shared`), built as the first
//!   generator was, each on a `ManualClock` of its own that only the `Shared` calls on it move
//!   (see [`Pair`]): both always show the word's snapshot; each call's outcome is what the
//!   model of the word predicts from the calling generator's reading; no ID repeats between
//!   them; the word's IDs increase on each timeline in the order they were minted, whichever
//!   generator minted them (so a timeline is re-entered only above its mark, which the word
//!   keeps); each ID's tick is its own generator's clock's, or at most the borrow bound past
//!   it; the two generators' counters add up to the model's.
//!
//! Nothing blocks here: with `max_ms: 0` a clock behind fails at once, and a waiting call
//! (`mint`, `mint_batch`, `mint_many`) is only made when the model says it does not wait for a
//! tick (a full tick the borrow bound does not let it leave, with a clock nobody advances);
//! otherwise `mint` and `mint_batch` become `try_mint` and `try_mint_batch`, which must then
//! fail with `SequenceExhausted`, and `mint_many` becomes the `try_mint_batch` calls it would
//! have made.

#![no_main]

use std::collections::HashSet;
use std::ops::RangeInclusive;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::generator::{ProcessShared, SharedWord, Stats};
use snowmint::{Error, Generator, Id, Layout, LocalGenerator, Snapshot, clock::ManualClock};

mod common;

use common::layouts::{self, MAX_MINTS};
use common::model::{Model, predict};
use common::ticks::{Far, borrow_ticks, first_reading, in_tick, mint_tick, small_offset, tick_of};
use common::{Call, Calls, Minted, Outcome, Policy, check_twin, perform, supported};

/// A sequence range for `GeneratorBuilder::sequence_range`; `max` is the layout's largest
/// sequence. Five of the eight kinds are always valid.
#[derive(Debug, Clone, Arbitrary)]
enum RangeSpec {
    /// No `sequence_range` call: the whole field.
    Default,
    /// `0..=max`, explicitly.
    Whole,
    /// From `start % (max + 1)`, `len` values more (within the field).
    Sub { start: u16, len: u16 },
    /// One value per tick: `v..=v`, `v = n % (max + 1)`.
    Single(u16),
    /// The top `1 + n % (max + 1)` values.
    Top(u16),
    /// Invalid: a start one past the end, `1 + n % (max + 2)` (up to past the field).
    Empty(u16),
    /// Invalid: from `start % (max + 2)` to `max + 1 + extra`.
    PastEnd { start: u16, extra: u16 },
    /// Any bounds (almost always invalid).
    Raw { start: u64, end: u64 },
}

impl RangeSpec {
    /// The range to give the builder, `None` for no call.
    fn get(&self, layout: &Layout) -> Option<RangeInclusive<u64>> {
        let max = layout.max_sequence();
        Some(match *self {
            RangeSpec::Default => return None,
            RangeSpec::Whole => 0..=max,
            RangeSpec::Sub { start, len } => {
                let start = u64::from(start) % (max + 1);
                start..=start + u64::from(len) % (max + 1 - start)
            }
            RangeSpec::Single(n) => {
                let v = u64::from(n) % (max + 1);
                v..=v
            }
            RangeSpec::Top(n) => max - u64::from(n) % (max + 1)..=max,
            RangeSpec::Empty(n) => {
                let start = 1 + u64::from(n) % (max + 2);
                start..=start - 1
            }
            RangeSpec::PastEnd { start, extra } => {
                u64::from(start) % (max + 2)..=max + 1 + u64::from(extra)
            }
            RangeSpec::Raw { start, end } => start..=end,
        })
    }
}

/// A batch buffer's length: 0 to 11 for half of the values, else up to 4,499 (more than a
/// 12-bit sequence holds).
fn batch_len(len: u16) -> usize {
    if len & 0x8000 == 0 {
        usize::from(len % 12)
    } else {
        usize::from(len & 0x7fff) % 4_500
    }
}

/// The new range of a resumed generator.
#[derive(Debug, Arbitrary)]
struct NewRange {
    /// In the snapshot given to `Generator::resume`, instead of through `sequence_range`.
    via_snapshot: bool,
    spec: RangeSpec,
}

/// A restart: snapshot, then a generator resumed from it.
#[derive(Debug, Arbitrary)]
struct Resume {
    policy: Policy,
    /// Through `borrow_ticks`.
    borrow: u8,
    /// `None`: the snapshot's range.
    range: Option<NewRange>,
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
    /// The clock to the last minted tick minus the borrow bound plus `ticks % 5 - 2` ticks:
    /// around the oldest reading that is borrowed time rather than a regression (and the one
    /// after, the oldest from which a full tick can borrow the next).
    NearEdge {
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
    /// `mint_batch` into a buffer of `batch_len(len)` IDs.
    MintBatch(u16),
    /// `try_mint_batch` into a buffer of `batch_len(len)` IDs.
    TryMintBatch(u16),
    /// `mint_many(n % 64)`.
    MintMany(u8),
    Resume(Resume),
    /// A call on one of the two generators on one shared word (see [`Pair`]): generator
    /// `second`'s clock moves to the word's last tick (`near_last`) or to its own reading's
    /// tick, plus `ticks % 7 - 3` ticks, `ms % tick_ms` into it; then `call % 4` picks `mint`,
    /// `try_mint`, `mint_batch` or `try_mint_batch` (of `batch_len(len)` IDs).
    Shared {
        second: bool,
        near_last: bool,
        ticks: u8,
        ms: u8,
        call: u8,
        len: u16,
    },
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
    range: RangeSpec,
    /// Through `borrow_ticks`.
    borrow: u8,
    ops: Vec<Op>,
}

fn layout(choice: u8, tick_4ms: bool) -> Layout {
    let tick_ms = layouts::tick_ms(tick_4ms);
    match choice % 4 {
        0 => Layout::TWITTER,
        1 => layouts::tiny(tick_ms),
        2 => layouts::tt(tick_ms),
        _ => layouts::tiny_tt(tick_ms),
    }
}

/// The rule `build` checks a sequence range with: its bounds, or the error.
fn check_range(layout: &Layout, range: &RangeInclusive<u64>) -> Result<(u64, u64), Error> {
    let (start, end) = (*range.start(), *range.end());
    let problem = if start > end {
        "is empty"
    } else if end > layout.max_sequence() {
        "ends past the sequence field"
    } else {
        return Ok((start, end));
    };
    Err(Error::InvalidSequenceRange {
        layout: layout.name(),
        range: start..=end,
        problem,
        max: layout.max_sequence(),
    })
}

/// What `build` does with a policy and a range: the range's bounds, or the first error of
/// its checks (the tick-tock bit before the range).
fn expected_build(
    layout: &Layout,
    policy: Policy,
    range: &RangeInclusive<u64>,
) -> Result<(u64, u64), Error> {
    if policy == Policy::TickTock && layout.tick_tock_field().is_none() {
        return Err(Error::TickTockUnsupported {
            layout: layout.name(),
        });
    }
    check_range(layout, range)
}

struct Run<'w> {
    layout: Layout,
    nodes: Vec<(&'static str, u64)>,
    clock: ManualClock,
    unix_ms: u64,
    generator: Generator<ManualClock>,
    /// The generator's twin: a `LocalGenerator` built and resumed alike, on its own clock,
    /// which always reads what `clock` does.
    twin_clock: ManualClock,
    twin: LocalGenerator<ManualClock>,
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
    /// Whether the state is the last ID minted (not a tick counted as full by a resume).
    state_minted: bool,
    /// Two more generators, on one shared word, built as this run's first generator was.
    pair: Pair<'w>,
}

/// Two generators on one [`SharedWord`], as two processes would build them: configured as the
/// run's first generator was (policy, sequence range, borrow bound, nodes), each reading a
/// `ManualClock` of its own, which only the [`Op::Shared`] calls on it move. One model of the
/// rules predicts both, since it models the word: a call is predicted from the word's state
/// and the calling generator's reading. The module docs list what each call checks.
struct Pair<'w> {
    layout: Layout,
    nodes: Vec<(&'static str, u64)>,
    generators: [Generator<ManualClock, ProcessShared<'w>>; 2],
    clocks: [ManualClock; 2],
    /// What each clock reads.
    readings: [u64; 2],
    model: Model,
    /// Every ID the pair minted.
    seen: HashSet<u64>,
    /// The last ID the pair minted on each timeline.
    last_on: [Option<u64>; 2],
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let layout = layout(input.layout, input.tick_4ms);
    let nodes: Vec<(&'static str, u64)> = layout
        .node_fields()
        .map(|f| (f.name(), u64::from(input.node) & f.max()))
        .collect();
    // The first reading: from the epoch's next tick for the tiny layouts, from 2023 for the
    // 41-bit ones; `start` ticks on (past the end for most of the tiny layouts' range).
    let unix_ms = first_reading(&layout, input.start % 10_000);
    let clock = ManualClock::new(unix_ms);
    let twin_clock = ManualClock::new(unix_ms);
    let borrow = borrow_ticks(input.borrow);
    let whole = 0..=layout.max_sequence();
    let range = input.range.get(&layout);

    // As asked; then the policy the layout supports; then the whole field if the range is
    // invalid. Each attempt fails exactly as the model of `build` says.
    let supported_policy = supported(&layout, input.policy);
    let attempts = [
        (input.policy, range.clone()),
        (supported_policy, range.clone()),
        (supported_policy, None),
    ];
    let mut built = None;
    let word = SharedWord::new();
    for (policy, range) in attempts {
        let expected = expected_build(&layout, policy, range.as_ref().unwrap_or(&whole));
        let mut builder = Generator::builder(layout)
            .clock(clock.clone())
            .on_clock_behind(policy.get())
            .borrow_ahead(borrow);
        for &(name, value) in &nodes {
            builder = builder.node(name, value);
        }
        if let Some(range) = &range {
            builder = builder.sequence_range(range.clone());
        }
        let twin = builder.clone().clock(twin_clock.clone()).build_local();
        let generator = builder.build();
        assert_eq!(
            twin.as_ref().err(),
            generator.as_ref().err(),
            "build_local (left) and build differ under {policy:?} with range {range:?}"
        );
        match (generator, expected) {
            (Ok(generator), Ok(bounds)) => {
                let twin = twin.expect("built as the generator was");
                let model = Model::new(&layout, policy, bounds, borrow);
                let pair = Pair::new(&word, &nodes, unix_ms, &model);
                built = Some((generator, twin, model, pair));
                break;
            }
            (Err(err), Err(expected)) => assert_eq!(err, expected, "{policy:?}, {range:?}"),
            (got, expected) => panic!(
                "build under {policy:?} with range {range:?}: {:?}, expected {expected:?}",
                got.map(|_| ())
            ),
        }
    }
    let (generator, twin, model, pair) = built.expect("the last attempt is valid");

    let mut run = Run {
        layout,
        nodes,
        clock,
        unix_ms,
        generator,
        twin_clock,
        twin,
        model,
        stats: Stats::default(),
        seen: HashSet::new(),
        last_on: [None, None],
        floor: None,
        max: None,
        toggled: false,
        state_minted: true,
        pair,
    };
    run.check_state();
    for op in &input.ops {
        run.apply(op);
        run.check_state();
    }
}

impl Run<'_> {
    fn set_clock(&mut self, unix_ms: u64) {
        self.unix_ms = unix_ms;
        self.clock.set(unix_ms);
        self.twin_clock.set(unix_ms);
    }

    fn apply(&mut self, op: &Op) {
        let layout = self.layout;
        match *op {
            Op::Step { ticks, ms } => {
                let tick = tick_of(&layout, self.unix_ms) + small_offset(ticks);
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::NearLast { ticks, ms } => {
                let tick = i128::from(self.model.tick) + small_offset(ticks);
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::NearEdge { ticks, ms } => {
                let edge = i128::from(self.model.tick) - i128::from(self.model.borrow);
                let tick = edge + i128::from(ticks % 5) - 2;
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::Far(ref far) => self.set_clock(far.unix_ms(&layout, self.unix_ms)),
            Op::Mint => {
                self.call(Call::Mint);
            }
            Op::TryMint => {
                self.call(Call::TryMint);
            }
            Op::Burst(n) => self.burst(1 + u64::from(n % 8)),
            Op::Fill => self.fill(layout.max_sequence() + 2),
            Op::MintBatch(len) => {
                self.call(Call::MintBatch(batch_len(len)));
            }
            Op::TryMintBatch(len) => {
                self.call(Call::TryMintBatch(batch_len(len)));
            }
            Op::MintMany(n) => self.many(usize::from(n % 64)),
            Op::Resume(ref resume) => self.resume(resume),
            Op::Shared {
                second,
                near_last,
                ticks,
                ms,
                call,
                len,
            } => {
                let which = usize::from(second);
                let from = if near_last {
                    i128::from(self.pair.model.tick)
                } else {
                    tick_of(&layout, self.pair.readings[which])
                };
                self.pair
                    .set_clock(which, in_tick(&layout, from + small_offset(ticks), ms));
                let call = match call % 4 {
                    0 => Call::Mint,
                    1 => Call::TryMint,
                    2 => Call::MintBatch(batch_len(len)),
                    _ => Call::TryMintBatch(batch_len(len)),
                };
                self.pair.call(which, call);
            }
        }
    }

    /// `mint_many(n)`, or the `try_mint_batch` calls it would make when it would wait.
    fn many(&mut self, n: usize) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let before = self.generator.snapshot();
        let mut model = self.model.clone();
        let (expected, dropped) = model.many(self.unix_ms, n);
        if expected == Outcome::Blocks {
            let mut filled = 0;
            while filled < n {
                match self.call(Call::TryMintBatch(n - filled)) {
                    Some(count) => filled += count,
                    None => break,
                }
            }
            assert!(
                filled < n || self.seen.len() >= MAX_MINTS,
                "mint_many({n}) would wait, yet try_mint_batch filled it"
            );
            return;
        }
        let result = self.generator.mint_many(n);
        assert_eq!(
            self.twin.mint_many(n),
            result,
            "mint_many({n}) at {} ms: the LocalGenerator's answer (left) differs; state before {before:?}",
            self.unix_ms
        );
        self.model = model;
        match result {
            Ok(ids) => {
                assert_eq!(ids.len(), n, "mint_many({n}) returned {ids:?}");
                for &id in &ids {
                    self.check_id(id, &before);
                }
                // One run per tick: check each tick's part.
                for run in ids.chunk_by(|a, b| self.minted(*a).tick == self.minted(*b).tick) {
                    self.check_run(run);
                }
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(
                    got, expected,
                    "mint_many({n}) at {} ms returned {ids:?}; state before {before:?}",
                    self.unix_ms
                );
            }
            Err(err) => {
                // The IDs reserved before the error are dropped, but used up: record them.
                let failed_from = if dropped.is_empty() {
                    before.clone()
                } else {
                    self.generator.snapshot()
                };
                for &minted in &dropped {
                    let id = self
                        .layout
                        .compose_on_timeline(
                            self.layout.epoch_ms() + minted.tick * self.layout.tick_ms(),
                            minted.timeline,
                            &self.nodes,
                            minted.sequence,
                        )
                        .expect("the model's IDs fit the layout");
                    self.record(id.to_u64(), minted.timeline, &before);
                }
                self.check_error(&err, &failed_from, false);
                assert_eq!(
                    Outcome::Fail(err.clone()),
                    expected,
                    "mint_many({n}) at {} ms failed; state before {before:?}",
                    self.unix_ms
                );
            }
        }
    }

    fn minted(&self, id: Id) -> Minted {
        Minted::of(&self.layout, id)
    }

    /// The IDs of one reservation are consecutive values of one tick and timeline.
    fn check_run(&self, ids: &[Id]) {
        for pair in ids.windows(2) {
            let (a, b) = (self.minted(pair[0]), self.minted(pair[1]));
            assert!(
                b.tick == a.tick && b.timeline == a.timeline && b.sequence == a.sequence + 1,
                "{:?} then {:?} in one run",
                pair[0],
                pair[1]
            );
        }
    }

    /// The checks on a minted ID that do not use the model.
    fn check_id(&mut self, id: Id, before: &Snapshot) {
        let layout = self.layout;
        let parts = layout.decode(id).expect("minted ids decode");
        assert_eq!(parts.nodes().collect::<Vec<_>>(), self.nodes, "{id:?}");
        assert_eq!(self.generator.decode(id).map(|p| p.id()), Ok(id));
        assert!(
            self.model.first <= parts.sequence() && parts.sequence() <= self.model.last,
            "{id:?}: sequence {} outside the range {}..={}",
            parts.sequence(),
            self.model.first,
            self.model.last
        );
        // One thread: the ID carries the tick the clock reads now, which the generator mints
        // in, or a later one at most the borrow bound ahead.
        let now = mint_tick(&layout, self.unix_ms);
        assert!(
            now.is_some_and(|now| now <= parts.ticks() && parts.ticks() - now <= self.model.borrow),
            "{id:?} at clock {} ms, borrow bound {} (state before {before:?})",
            self.unix_ms,
            self.model.borrow
        );
        self.record(id.to_u64(), parts.timeline().unwrap_or(0), before);
    }

    /// The run-wide bookkeeping of an ID used up: no repeat, and the orders.
    fn record(&mut self, raw: u64, timeline: u64, before: &Snapshot) {
        assert!(
            self.seen.insert(raw),
            "{raw} minted twice (at {} ms, state before {before:?})",
            self.unix_ms
        );
        if let Some(last) = self.last_on[timeline as usize] {
            assert!(
                raw > last,
                "{raw} on timeline {timeline} not above the timeline's last id {last} (state before {before:?})"
            );
        }
        self.last_on[timeline as usize] = Some(raw);
        self.state_minted = true;
        if timeline != before.timeline {
            assert_eq!(
                self.model.policy,
                Policy::TickTock,
                "{raw} changed timeline"
            );
            self.toggled = true;
        }
        if self.model.policy != Policy::TickTock {
            if let Some(floor) = self.floor {
                assert!(
                    raw > floor,
                    "{raw} not above {floor}, an earlier id of this generator or the last before it was resumed ({:?})",
                    self.model.policy
                );
            }
            self.floor = Some(raw);
            if !self.toggled
                && let Some(max) = self.max
            {
                assert!(raw > max, "{raw} not above the earlier id {max}");
            }
        }
        self.max = self.max.max(Some(raw));
    }

    /// An error is the kind the situation before the call calls for.
    fn check_error(&self, err: &Error, before: &Snapshot, try_call: bool) {
        check_error(&self.model, self.unix_ms, err, before, try_call);
    }

    fn resume(&mut self, resume: &Resume) {
        let snapshot = self.generator.snapshot();
        let twin_snapshot = self.twin.snapshot();
        assert_eq!(
            twin_snapshot, snapshot,
            "the LocalGenerator's snapshot (left) differs"
        );
        let _ = format!("{:?}", self.generator);
        let borrow = borrow_ticks(resume.borrow);
        let new_range = resume
            .range
            .as_ref()
            .and_then(|r| Some((r.via_snapshot, r.spec.get(&self.layout)?)));
        // As asked; then the policy the layout supports; then the snapshot's range if the new
        // one is invalid. Each attempt fails exactly as the model of `build` says.
        let policy = supported(&self.layout, resume.policy);
        let attempts = [
            (resume.policy, new_range.clone()),
            (policy, new_range.clone()),
            (policy, None),
        ];
        for (policy, new_range) in attempts {
            // The generator resumes from its snapshot, the twin from its own, alike.
            let resume_from = |snapshot: &Snapshot| {
                let mut from = snapshot.clone();
                if let Some((true, range)) = &new_range {
                    from.sequence_range = range.clone();
                }
                let mut builder = Generator::resume(&from);
                if let Some((false, range)) = &new_range {
                    builder = builder.sequence_range(range.clone());
                }
                builder.on_clock_behind(policy.get()).borrow_ahead(borrow)
            };
            let range = new_range
                .clone()
                .map_or(snapshot.sequence_range.clone(), |(_, range)| range);
            let expected = expected_build(&self.layout, policy, &range);
            let built = resume_from(&snapshot).clock(self.clock.clone()).build();
            let twin = resume_from(&twin_snapshot)
                .clock(self.twin_clock.clone())
                .build_local();
            assert_eq!(
                twin.as_ref().err(),
                built.as_ref().err(),
                "resuming the LocalGenerator (left) and the generator differ under {policy:?} with range {range:?}"
            );
            match (built, expected) {
                (Ok(generator), Ok(bounds)) => {
                    self.twin = twin.expect("resumed as the generator was");
                    self.resumed(generator, &snapshot, policy, bounds, borrow);
                    return;
                }
                (Err(err), Err(expected)) => {
                    assert_eq!(
                        err, expected,
                        "resume under {policy:?} with range {range:?}"
                    )
                }
                (got, expected) => panic!(
                    "resume from {snapshot:?} under {policy:?} with range {range:?}: {:?}, expected {expected:?}",
                    got.map(|_| ())
                ),
            }
        }
        panic!("resuming with the snapshot's range and a supported policy failed");
    }

    fn resumed(
        &mut self,
        generator: Generator<ManualClock>,
        snapshot: &Snapshot,
        policy: Policy,
        bounds: (u64, u64),
        borrow: u64,
    ) {
        assert_eq!(generator.node_bits(), self.generator.node_bits());
        self.generator = generator;
        self.model = self.model.resumed(policy, bounds, borrow);
        let mut expected = snapshot.clone();
        expected.sequence_range = bounds.0..=bounds.1;
        if self.model.tick != 0 && self.model.sequence != snapshot.sequence {
            // A sequence below the new range: the tick is full.
            expected.sequence = self.layout.max_sequence();
            self.state_minted = false;
        }
        assert_eq!(
            self.generator.snapshot(),
            expected,
            "resume changed the state (range {bounds:?})"
        );
        self.stats = Stats::default();
        // The new generator continues from the last ID minted (the state's, with the nodes).
        self.floor = (snapshot.last_tick != 0).then(|| {
            self.last_on[snapshot.timeline as usize].expect("the state's timeline has minted")
        });
    }

    /// The snapshot and counters agree with the model; counters never decrease.
    fn check_state(&mut self) {
        let snapshot = self.generator.snapshot();
        check_twin(&self.generator, &self.twin);
        let model = &self.model;
        assert_eq!(
            snapshot,
            model.snapshot(&self.nodes),
            "snapshot (left) differs from the model"
        );
        if snapshot.last_tick != 0 && self.state_minted {
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
                && stats.toggles >= old.toggles
                && stats.borrows >= old.borrows
                && stats.max_ahead_ticks >= old.max_ahead_ticks,
            "counters went down: {old:?} -> {stats:?}"
        );
        assert!(
            stats.toggles <= stats.regressions
                && stats.borrows <= stats.overflows
                && stats.max_ahead_ticks <= model.borrow
                && (stats.borrows == 0) == (stats.max_ahead_ticks == 0),
            "{stats:?}, borrow bound {}",
            model.borrow
        );
        assert_eq!(stats, model.stats(), "stats (left) differ from the model's");
        self.stats = stats;
    }
}

impl<'w> Pair<'w> {
    /// Two generators on `word` with `nodes`, configured as `model` says (its policy, sequence
    /// range and borrow bound), both clocks reading `unix_ms`; `model` is the fresh word's.
    fn new(
        word: &'w SharedWord,
        nodes: &[(&'static str, u64)],
        unix_ms: u64,
        model: &Model,
    ) -> Self {
        let layout = model.layout;
        let clocks = [ManualClock::new(unix_ms), ManualClock::new(unix_ms)];
        let generators = clocks.clone().map(|clock| {
            let mut builder = Generator::builder(layout)
                .clock(clock)
                .on_clock_behind(model.policy.get())
                .borrow_ahead(model.borrow)
                .sequence_range(model.first..=model.last);
            for &(name, value) in nodes {
                builder = builder.node(name, value);
            }
            builder
                .build_process_shared(word)
                .expect("configured as a generator that was built")
        });
        Pair {
            layout,
            nodes: nodes.to_vec(),
            generators,
            clocks,
            readings: [unix_ms; 2],
            model: model.clone(),
            seen: HashSet::new(),
            last_on: [None, None],
        }
    }

    fn set_clock(&mut self, which: usize, unix_ms: u64) {
        self.readings[which] = unix_ms;
        self.clocks[which].set(unix_ms);
    }

    /// One call on generator `which`, made as the model predicts it (a waiting call that would
    /// wait becomes its `try_` form), and checked (see [`Pair`]).
    fn call(&mut self, which: usize, call: Call) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let layout = self.layout;
        let before = self.generators[which].snapshot();
        assert_eq!(
            before,
            self.model.snapshot(&self.nodes),
            "the shared word's snapshot (left) differs from the model"
        );
        assert_eq!(
            self.generators[1 - which].snapshot(),
            before,
            "the generators on one word show different snapshots"
        );
        let unix_ms = self.readings[which];
        let (call, model, expected) =
            predict(&self.model, call, |model, call| model.call(unix_ms, call));
        let (result, _) = perform(&self.generators[which], call);
        let context = format!(
            "generator {which} on the shared word, {call:?} at {unix_ms} ms (the other's clock at \
             {} ms), word before {before:?}",
            self.readings[1 - which]
        );
        match result {
            Ok(ids) => {
                let now = mint_tick(&layout, unix_ms);
                let minted: Vec<Minted> = ids.iter().map(|&id| Minted::of(&layout, id)).collect();
                for (&id, m) in ids.iter().zip(&minted) {
                    let parts = layout.decode(id).expect("minted ids decode");
                    assert_eq!(parts.nodes().collect::<Vec<_>>(), self.nodes, "{id:?}");
                    assert!(
                        (model.first..=model.last).contains(&m.sequence),
                        "{id:?}: sequence outside the range; {context}"
                    );
                    // One thread: the ID carries the tick this generator's clock reads, or a
                    // later one at most the borrow bound ahead, whatever the other's reads.
                    assert!(
                        now.is_some_and(|now| now <= m.tick && m.tick - now <= model.borrow),
                        "{id:?} at tick {}, borrow bound {}; {context}",
                        m.tick,
                        model.borrow
                    );
                    let raw = id.to_u64();
                    assert!(self.seen.insert(raw), "{id:?} minted twice; {context}");
                    let last_on = &mut self.last_on[m.timeline as usize];
                    if let Some(last) = *last_on {
                        assert!(
                            raw > last,
                            "{id:?} on timeline {} not above the word's last id there, {last}; \
                             {context}",
                            m.timeline
                        );
                    }
                    *last_on = Some(raw);
                }
                for pair in minted.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    assert!(
                        b.tick == a.tick
                            && b.timeline == a.timeline
                            && b.sequence == a.sequence + 1,
                        "{a:?} then {b:?} in one run; {context}"
                    );
                }
                assert_eq!(Outcome::Ids(minted), expected, "{context}");
            }
            Err(err) => {
                check_error(&self.model, unix_ms, &err, &before, !call.waits());
                assert_eq!(Outcome::Fail(err), expected, "{context}");
            }
        }
        self.model = model;
        // Each call counts in the generator that made it: the two add up to the model's.
        let [a, b] = [self.generators[0].stats(), self.generators[1].stats()];
        let m = self.model.stats();
        assert_eq!(
            (
                a.overflows + b.overflows,
                a.waits + b.waits,
                a.regressions + b.regressions,
                a.toggles + b.toggles,
                a.borrows + b.borrows,
                a.max_ahead_ticks.max(b.max_ahead_ticks),
            ),
            (
                m.overflows,
                m.waits,
                m.regressions,
                m.toggles,
                m.borrows,
                m.max_ahead_ticks
            ),
            "the shared word's generators' stats {a:?} and {b:?} (left) differ from the \
             model's; {context}"
        );
    }
}

/// An error is the kind the situation before the call calls for: the state `before` it (a
/// snapshot), the generator's policy and borrow bound (`model`'s), the clock at `unix_ms`.
fn check_error(model: &Model, unix_ms: u64, err: &Error, before: &Snapshot, try_call: bool) {
    let layout = model.layout;
    let (epoch_ms, tick_ms) = (layout.epoch_ms(), layout.tick_ms());
    let tick = tick_of(&layout, unix_ms);
    let borrow = i128::from(model.borrow);
    let last = i128::from(before.last_tick);
    // The clock reads the last minted tick, or time borrowed for it; the tick is full.
    let on_full_tick = before.last_tick != 0
        && tick <= last
        && tick + borrow >= last
        && before.sequence >= *before.sequence_range.end();
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
        } => {
            // The clock must reach the tick from which the next one is within the bound.
            let wait_ticks = last + 1 - tick - borrow;
            assert!(
                try_call
                    && on_full_tick
                    && full == before.last_tick
                    && full < layout.max_ticks()
                    && wait_ticks > 0
                    && retry_after.as_millis() == (wait_ticks * i128::from(tick_ms)) as u128,
                "{err:?} from a {} call, borrow bound {borrow}, state before {before:?}, clock {unix_ms} ms",
                if try_call { "try_" } else { "waiting" }
            )
        }
        Error::LayoutExhausted { last_ms, .. } => assert!(
            before.last_tick == layout.max_ticks()
                && on_full_tick
                && last_ms == layout.max_unix_ms(),
            "{err:?}, borrow bound {borrow}, state before {before:?}, clock {unix_ms} ms"
        ),
        Error::ClockBehind {
            behind_ms,
            max_wait_ms,
            ..
        } => {
            let behind =
                mint_tick(&layout, unix_ms).is_some_and(|now| i128::from(now) + borrow < last);
            // Tick-tock fails only when the other timeline has minted at or after `now`.
            let blocked = model.policy != Policy::TickTock
                || mint_tick(&layout, unix_ms).is_some_and(|now| now <= before.other_timeline_tick);
            // Measured to the earliest time a mint can succeed: the last minted tick, or the
            // next one when it is full, less the borrow bound.
            let full = before.sequence >= *before.sequence_range.end()
                && before.last_tick < layout.max_ticks();
            let resume = (last + i128::from(full) - borrow).max(0);
            let resume_ms = i128::from(epoch_ms) + resume * i128::from(tick_ms);
            assert!(
                behind
                    && blocked
                    && max_wait_ms == 0
                    && i128::from(behind_ms) == resume_ms - i128::from(unix_ms),
                "{err:?} under {:?}, borrow bound {borrow}, state before {before:?}, clock {unix_ms} ms",
                model.policy
            );
        }
        _ => panic!("unexpected error {err:?}"),
    }
}

impl Calls for Run<'_> {
    /// One call, made as the model predicts it (a waiting call that would wait becomes its
    /// `try_` form); how many IDs it returned, `None` on error or when skipped.
    fn call(&mut self, call: Call) -> Option<usize> {
        if self.seen.len() >= MAX_MINTS {
            return None;
        }
        let before = self.generator.snapshot();
        let unix_ms = self.unix_ms;
        let (call, model, expected) =
            predict(&self.model, call, |model, call| model.call(unix_ms, call));
        let answer = perform(&self.generator, call);
        let twin_answer = perform(&self.twin, call);
        assert_eq!(
            twin_answer, answer,
            "{call:?} at {} ms: the LocalGenerator's answer (left) differs; state before {before:?}",
            self.unix_ms
        );
        let (result, _) = answer;
        self.model = model;
        match result {
            Ok(ids) => {
                for &id in &ids {
                    self.check_id(id, &before);
                }
                self.check_run(&ids);
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(
                    got, expected,
                    "{call:?} at {} ms returned {ids:?}; state before {before:?}",
                    self.unix_ms
                );
                Some(ids.len())
            }
            Err(err) => {
                self.check_error(&err, &before, !call.waits());
                assert_eq!(
                    Outcome::Fail(err.clone()),
                    expected,
                    "{call:?} at {} ms failed; state before {before:?}",
                    self.unix_ms
                );
                let _ = err.to_string();
                None
            }
        }
    }
}
