//! One generator, single-threaded, on a clock with two readings: a lagging one (`unix_ms`, a
//! cached reading) and a precise one (`unix_ms_precise`, the source), through arbitrary clock
//! moves, `mint`, `try_mint`, `mint_batch`, `try_mint_batch` and restarts resumed from a
//! snapshot, under the `Error`, `Wait { max_ms: 0 }` and `TickTock { max_ms: 0 }` policies,
//! with a borrow bound of 0 to 3 ticks.
//!
//! The clock is any clock with two readings, not `CachedClock` itself (whose lagging reading
//! follows its source back; `generator_cached_clock` runs the real one): the source moves
//! forward by small steps and jumps; the lagging reading catches up with it to an arbitrary
//! lag (a refresh: it never goes back, and never passes the source); a precise read raises
//! the lagging reading to the source, or, for half of the inputs, leaves it (a cache only its
//! own timer refreshes). The source may step back alone (the lagging reading holds: it may
//! then be ahead of the source, by any amount and for any number of calls), and the whole
//! clock may step back. Every reading stays in the ticks the generator mints in, so the only
//! errors are the ones a lag or a step back can cause.
//!
//! Checked for every call, independently of any model:
//! - no ID repeats; on each timeline IDs strictly increase, and under `Error` and `Wait`, until
//!   a tick-tock toggle, every ID is above every earlier one;
//! - while the source has never gone back: no `ClockBehind`, and no regression counted,
//!   however far the lagging reading is behind the state (a resume that lowers the borrow
//!   bound below how far the state runs ahead of the source may see one, and so may a
//!   generator resumed while the lagging reading is ahead of the source);
//! - `SequenceExhausted` only for a tick the source has not left, less the borrow bound (a
//!   full tick is never held by a stale reading), with the matching `retry_after`;
//! - every ID's tick lies between the two readings taken before the call (the lower of them,
//!   and the higher plus the borrow bound);
//! - a call the state lets mint from the lagging reading (on or after the state's tick, with
//!   room left) does not read the source; one that needs the source does.
//!
//! And every outcome (the IDs themselves, errors with their fields), snapshot, `stats()` and
//! the lagging reading after the call (raised or not) equal a one-thread model of the rules in
//! `generator.rs` with two readings: the lagging one read first; the source read when the
//! lagging reading is behind the state by more than borrowing explains (a regression only if
//! the source is behind too), when the tick is full, and when a regression is handled.
//!
//! And a `LocalGenerator` built the same way on a second two-reading clock, moved in lockstep
//! with the first and driven through the same calls and resumes, answers every call alike (the
//! IDs, the whole batch buffer, errors), reads its source as often, leaves its lagging reading
//! where the generator leaves the other, and has the same snapshot, counters and `Debug` output
//! after each step.
//!
//! Calls that would block are not made: a waiting call that would wait for a full tick (the
//! model says) becomes its `try_` form. A tick-tock generator whose full tick finds the source
//! behind starts over from a precise reading (see the test
//! `tick_tock_toggles_when_a_full_tick_meets_a_source_behind_the_cache` in
//! `tests/cached_clock.rs`).

#![no_main]

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::{Clock, Error, Generator, Id, Layout, LocalGenerator, Snapshot};

mod common;

use common::layouts::{self, MAX_MINTS};
use common::model::{Model, predict};
use common::ticks::first_reading;
use common::{Call, Calls, Minted, Outcome, Policy, check_twin, perform, supported};

#[derive(Debug, Arbitrary)]
enum Op {
    /// The source moves forward by `ticks % 4` ticks and `ms % tick_ms` ms.
    Source {
        ticks: u8,
        ms: u8,
    },
    /// The source jumps forward by `ticks` ticks.
    Jump(u16),
    /// A refresh that read the source `lag % 8` ticks and `ms % tick_ms` ms ago: the lagging
    /// reading rises to that (never back).
    Refresh {
        lag: u8,
        ms: u8,
    },
    /// A refresh of the current source reading.
    RefreshAll,
    /// The source steps back by `ticks % 8` ticks and `ms % tick_ms` ms; the lagging reading
    /// holds.
    SourceBack {
        ticks: u8,
        ms: u8,
    },
    /// The whole clock steps back by `ticks % 8` ticks and `ms % tick_ms` ms (the lagging
    /// reading keeps its lag).
    StepBack {
        ticks: u8,
        ms: u8,
    },
    /// Both readings to tick `max_ticks - back % 4`, the layout's last ones (forward or back).
    NearEnd {
        back: u8,
    },
    Mint,
    TryMint,
    /// `1 + n % 8` `try_mint`s.
    Burst(u8),
    /// `try_mint` until it fails (at most a tick's worth of IDs plus one).
    Fill,
    /// `mint_batch` into a buffer of `n % 20` IDs.
    MintBatch(u8),
    /// `try_mint_batch` into a buffer of `n % 20` IDs.
    TryMintBatch(u8),
    /// A restart: a snapshot, then a generator resumed from it on the same clock.
    Resume {
        policy: Policy,
        borrow: u8,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    /// Modulo 3: tiny, tiny-tt, wide-tt.
    layout: u8,
    /// 4 ms ticks instead of 1 ms.
    tick_4ms: bool,
    policy: Policy,
    /// Modulo 4: the borrow bound in ticks.
    borrow: u8,
    /// Whether a precise read raises the lagging reading to the source.
    raise: bool,
    /// The first reading, in ticks from a base (the epoch's next tick, or 2023 for 41 bits).
    start: u16,
    ops: Vec<Op>,
}

fn layout(choice: u8, tick_4ms: bool) -> Layout {
    let tick_ms = layouts::tick_ms(tick_4ms);
    match choice % 3 {
        0 => layouts::tiny(tick_ms),
        1 => layouts::tiny_tt(tick_ms),
        _ => layouts::wide_tt(tick_ms),
    }
}

/// The two-reading clock the generator reads; single-threaded, so every access is `Relaxed`.
#[derive(Debug, Clone)]
struct TwoReadings(Arc<Readings>);

#[derive(Debug)]
struct Readings {
    lagging: AtomicU64,
    fresh: AtomicU64,
    raise: bool,
    /// How many precise reads so far.
    precise_reads: AtomicU64,
}

impl Clock for TwoReadings {
    fn unix_ms(&self) -> u64 {
        self.0.lagging.load(Ordering::Relaxed)
    }

    fn unix_ms_precise(&self) -> u64 {
        self.0.precise_reads.fetch_add(1, Ordering::Relaxed);
        let now = self.0.fresh.load(Ordering::Relaxed);
        if self.0.raise {
            self.0.lagging.fetch_max(now, Ordering::Relaxed);
        }
        now
    }
}

/// The model's view of the clock: the two readings in ms, and whether the source was read.
#[derive(Debug, Clone, Copy)]
struct ModelClock {
    lagging: u64,
    fresh: u64,
    raise: bool,
    read_source: bool,
}

impl ModelClock {
    /// A precise read: the source, which raises the lagging reading if the clock does.
    fn precise(&mut self) -> u64 {
        self.read_source = true;
        if self.raise {
            self.lagging = self.lagging.max(self.fresh);
        }
        self.fresh
    }
}

/// The rules of `generator.rs` with two readings: the shared model's steps, each given the
/// reading `generator.rs` takes there. The range is always the whole field.
impl Model {
    /// Ticks since the epoch of a reading (always within the layout here).
    fn ticks(&self, unix_ms: u64) -> u64 {
        (unix_ms - self.layout.epoch_ms()) / self.layout.tick_ms()
    }

    fn call_on(&mut self, clock: &mut ModelClock, call: Call) -> Outcome {
        match call.wants() {
            // An empty buffer: nothing minted, the clock not even read.
            0 => Outcome::Ids(Vec::new()),
            want => self.reserve_on(clock, want, call.waits(), false),
        }
    }

    /// One reservation of at most `want` (at least 1) values; `wait`: the call would wait for
    /// a full tick to pass; `restarted`: after `next_tick` gave up for tick-tock, which starts
    /// over from a precise reading.
    fn reserve_on(
        &mut self,
        clock: &mut ModelClock,
        want: u64,
        wait: bool,
        restarted: bool,
    ) -> Outcome {
        // The lagging reading first, except on a restart.
        let mut now = if restarted {
            self.ticks(clock.precise())
        } else {
            self.ticks(clock.lagging)
        };
        if now < self.tick {
            if self.behind(now) {
                // Only the source tells a regression from a lagging reading.
                now = self.ticks(clock.precise());
            }
            if !self.behind(now) {
                return self.advance_on(clock, now, want, wait);
            }
            // The wait for the clock reads the source once, and gives up at once (`max_ms: 0`).
            return self.regression(now, want, || clock.precise());
        }
        self.advance_on(clock, now, want, wait)
    }

    /// The CAS loop's step from the state with a reading `now` not behind it.
    fn advance_on(&mut self, clock: &mut ModelClock, now: u64, want: u64, wait: bool) -> Outcome {
        let (tick, first) = if let Some(start) = self.room(now) {
            start
        } else {
            // `next_tick`: the source, never the lagging reading.
            self.stats.overflows += 1;
            let now = self.ticks(clock.precise());
            if self.behind(now) {
                if self.policy == Policy::TickTock {
                    // Start over from the state, with a precise reading.
                    return self.reserve_on(clock, want, wait, true);
                }
                // A regression that fails: how far behind from one more precise read.
                return self.regression(now, want, || clock.precise());
            }
            if now > self.tick {
                (now, self.first)
            } else {
                match self.full_tick(now, wait) {
                    Ok(start) => start,
                    Err(outcome) => return outcome,
                }
            }
        };
        self.take(tick, first, want)
    }
}

/// A call and what it started from, for failure messages.
struct Context<'a> {
    call: Call,
    /// The readings before the call.
    readings: ModelClock,
    /// The generator's state before the call.
    before: &'a Snapshot,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} with the lagging reading at {} ms and the source at {} ms, state before {:?}",
            self.call, self.readings.lagging, self.readings.fresh, self.before
        )
    }
}

struct Run {
    layout: Layout,
    clock: TwoReadings,
    /// The readings as the run set them (the lagging one as precise reads left it).
    readings: ModelClock,
    /// The first and last ms the readings may take: the layout's mintable ticks.
    min_ms: u64,
    max_ms: u64,
    /// Whether a regression may be seen: the source went back, or a resume lowered the borrow
    /// bound below how far the state is ahead of the source. A resume with the state within the
    /// new bound of the source, and the lagging reading not ahead of it, clears it.
    behind_allowed: bool,
    generator: Generator<TwoReadings>,
    /// The generator's twin: a `LocalGenerator` built and resumed alike, on its own clock,
    /// whose readings the run sets as it sets `clock`'s.
    twin_clock: TwoReadings,
    twin: LocalGenerator<TwoReadings>,
    model: Model,
    seen: HashSet<u64>,
    /// The last ID minted on each timeline, over the whole run.
    last_on: [Option<u64>; 2],
    /// The greatest ID of the run, and whether any call has toggled yet.
    max: Option<u64>,
    toggled: bool,
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let layout = layout(input.layout, input.tick_4ms);
    let tick_ms = layout.tick_ms();
    let min_ms = layout.epoch_ms() + tick_ms;
    let max_ms = layout.max_unix_ms() + tick_ms - 1;
    let start = first_reading(&layout, input.start % 3_000).min(max_ms);
    let readings = || {
        TwoReadings(Arc::new(Readings {
            lagging: AtomicU64::new(start),
            fresh: AtomicU64::new(start),
            raise: input.raise,
            precise_reads: AtomicU64::new(0),
        }))
    };
    let (clock, twin_clock) = (readings(), readings());
    let policy = supported(&layout, input.policy);
    let borrow = u64::from(input.borrow % 4);
    let mut builder = Generator::builder(layout)
        .clock(clock.clone())
        .on_clock_behind(policy.get())
        .borrow_ahead(borrow);
    // Every node field set (a field left unset is an error); the values are arbitrary.
    for field in layout.node_fields() {
        builder = builder.node(field.name(), 5 & field.max());
    }
    let twin = builder
        .clone()
        .clock(twin_clock.clone())
        .build_local()
        .expect("a valid generator");
    let generator = builder.build().expect("a valid generator");
    let mut run = Run {
        layout,
        clock,
        readings: ModelClock {
            lagging: start,
            fresh: start,
            raise: input.raise,
            read_source: false,
        },
        min_ms,
        max_ms,
        behind_allowed: false,
        generator,
        twin_clock,
        twin,
        // The whole sequence field.
        model: Model::new(&layout, policy, (0, layout.max_sequence()), borrow),
        seen: HashSet::new(),
        last_on: [None, None],
        max: None,
        toggled: false,
    };
    for op in &input.ops {
        run.apply(op);
        run.check_state();
    }
}

impl Run {
    /// Sets both readings, within the layout's mintable ticks.
    fn set(&mut self, lagging: u64, fresh: u64) {
        let fresh = fresh.clamp(self.min_ms, self.max_ms);
        let lagging = lagging.clamp(self.min_ms, self.max_ms);
        if fresh < self.readings.fresh {
            self.behind_allowed = true;
        }
        self.readings.lagging = lagging;
        self.readings.fresh = fresh;
        for clock in [&self.clock, &self.twin_clock] {
            clock.0.lagging.store(lagging, Ordering::Relaxed);
            clock.0.fresh.store(fresh, Ordering::Relaxed);
        }
    }

    /// `ticks` ticks and `ms` ms, as ms.
    fn span(&self, ticks: u64, ms: u8) -> u64 {
        let tick_ms = self.layout.tick_ms();
        ticks * tick_ms + u64::from(ms) % tick_ms
    }

    fn apply(&mut self, op: &Op) {
        let ModelClock { lagging, fresh, .. } = self.readings;
        match *op {
            Op::Source { ticks, ms } => {
                let fresh = fresh.saturating_add(self.span(u64::from(ticks % 4), ms));
                self.set(lagging, fresh);
            }
            Op::Jump(ticks) => {
                let fresh = fresh.saturating_add(self.span(u64::from(ticks), 0));
                self.set(lagging, fresh);
            }
            Op::Refresh { lag, ms } => {
                let read = fresh.saturating_sub(self.span(u64::from(lag % 8), ms));
                self.set(lagging.max(read), fresh);
            }
            Op::RefreshAll => self.set(lagging.max(fresh), fresh),
            Op::SourceBack { ticks, ms } => {
                let back = self.span(u64::from(ticks % 8), ms);
                self.set(lagging, fresh.saturating_sub(back));
            }
            Op::StepBack { ticks, ms } => {
                let back = self.span(u64::from(ticks % 8), ms);
                self.set(lagging.saturating_sub(back), fresh.saturating_sub(back));
            }
            Op::NearEnd { back } => {
                let layout = self.layout;
                let ms = layout.epoch_ms()
                    + (layout.max_ticks() - u64::from(back % 4)) * layout.tick_ms();
                self.set(ms, ms);
            }
            Op::Mint => {
                self.call(Call::Mint);
            }
            Op::TryMint => {
                self.call(Call::TryMint);
            }
            Op::Burst(n) => self.burst(1 + u64::from(n % 8)),
            Op::Fill => self.fill(self.layout.max_sequence() + 2),
            Op::MintBatch(n) => {
                self.call(Call::MintBatch(usize::from(n % 20)));
            }
            Op::TryMintBatch(n) => {
                self.call(Call::TryMintBatch(usize::from(n % 20)));
            }
            Op::Resume { policy, borrow } => self.resume(policy, borrow),
        }
    }

    fn minted(&self, id: Id) -> Minted {
        Minted::of(&self.layout, id)
    }

    fn tick(&self, unix_ms: u64) -> u64 {
        self.layout
            .ticks_at(unix_ms)
            .expect("readings within the layout")
    }

    /// The checks on a minted ID that do not use the model.
    fn check_id(&mut self, id: Id, context: &Context<'_>) {
        let parts = self.layout.decode(id).expect("minted ids decode");
        if self.layout.node_field("machine").is_some() {
            assert_eq!(parts.node("machine"), Some(5), "{parts:?}: {context:?}");
        }
        let m = self.minted(id);
        let readings = &context.readings;
        let (lagging, fresh) = (self.tick(readings.lagging), self.tick(readings.fresh));
        let borrow = self.model.borrow;
        assert!(
            lagging.min(fresh) <= m.tick && m.tick <= lagging.max(fresh) + borrow,
            "{m:?}: not between the readings' ticks {lagging} and {fresh} (borrow {borrow}): \
             {context:?}"
        );
        let raw = id.to_u64();
        assert!(self.seen.insert(raw), "{m:?} minted twice: {context:?}");
        if let Some(last) = self.last_on[m.timeline as usize] {
            assert!(
                raw > last,
                "{m:?} not above the timeline's last id: {context:?}"
            );
        }
        self.last_on[m.timeline as usize] = Some(raw);
        // Every run starts on timeline 0: only a toggle leaves it.
        self.toggled |= m.timeline == 1;
        if !self.toggled
            && let Some(max) = self.max
        {
            assert!(raw > max, "{m:?} not above an earlier id: {context:?}");
        }
        self.max = self.max.max(Some(raw));
    }

    /// An error is one the readings before the call allow.
    fn check_error(&self, err: &Error, context: &Context<'_>) {
        let fresh = self.tick(context.readings.fresh);
        let borrow = self.model.borrow;
        match *err {
            Error::SequenceExhausted {
                tick, retry_after, ..
            } => {
                // Never for a tick the source has left (less the borrow bound).
                assert!(
                    fresh + borrow <= tick
                        && retry_after
                            == Duration::from_millis(
                                (tick + 1 - fresh - borrow) * self.layout.tick_ms()
                            ),
                    "{err:?} with the source at tick {fresh}, borrow {borrow}: {context:?}"
                );
            }
            Error::ClockBehind { .. } => {
                assert!(
                    self.behind_allowed,
                    "{err:?}, though the source never went back: {context:?}"
                );
            }
            Error::LayoutExhausted { .. } => {}
            _ => panic!("unexpected error {err:?}: {context:?}"),
        }
    }

    fn resume(&mut self, policy: Policy, borrow: u8) {
        let snapshot = self.generator.snapshot();
        let twin_snapshot = self.twin.snapshot();
        assert_eq!(
            twin_snapshot, snapshot,
            "the LocalGenerator's snapshot (left) differs"
        );
        let policy = supported(&self.layout, policy);
        let borrow = u64::from(borrow % 4);
        let generator = Generator::resume(&snapshot)
            .clock(self.clock.clone())
            .on_clock_behind(policy.get())
            .borrow_ahead(borrow)
            .build()
            .expect("resume from the generator's own snapshot");
        let twin = Generator::resume(&twin_snapshot)
            .clock(self.twin_clock.clone())
            .on_clock_behind(policy.get())
            .borrow_ahead(borrow)
            .build_local()
            .expect("resume from the LocalGenerator's own snapshot");
        assert_eq!(generator.snapshot(), snapshot, "resume changed the state");
        assert_eq!(
            twin.snapshot(),
            snapshot,
            "resume changed the LocalGenerator's state"
        );
        self.generator = generator;
        self.twin = twin;
        let range = (self.model.first, self.model.last);
        self.model = self.model.resumed(policy, range, borrow);
        let (lagging, fresh) = (self.readings.lagging, self.readings.fresh);
        self.behind_allowed = snapshot.last_tick > self.tick(fresh) + borrow || lagging > fresh;
    }

    /// The snapshot and counters agree with the model; no regression while the source has
    /// never gone back.
    fn check_state(&self) {
        let snapshot = self.generator.snapshot();
        check_twin(&self.generator, &self.twin);
        let model = &self.model;
        let mut expected = model.snapshot(&snapshot.nodes);
        expected.sequence_range = 0..=self.layout.max_sequence();
        assert_eq!(snapshot, expected, "snapshot (left) differs from the model");
        let stats = self.generator.stats();
        if !self.behind_allowed {
            assert_eq!(
                stats.regressions, 0,
                "{stats:?}, the source never went back"
            );
        }
        assert_eq!(stats, model.stats(), "stats (left) differ from the model's");
    }
}

impl Calls for Run {
    /// One call, made as the model predicts it (a waiting call that would wait becomes its
    /// `try_` form); how many IDs it returned, `None` on error or past the run's last mint.
    fn call(&mut self, call: Call) -> Option<usize> {
        if self.seen.len() >= MAX_MINTS {
            return None;
        }
        let before = self.generator.snapshot();
        let readings = ModelClock {
            read_source: false,
            ..self.readings
        };
        let (call, (model, after), expected) = predict(
            &(self.model.clone(), readings),
            call,
            |(model, clock), call| model.call_on(clock, call),
        );
        let reads_before = self.clock.0.precise_reads.load(Ordering::Relaxed);
        let twin_reads_before = self.twin_clock.0.precise_reads.load(Ordering::Relaxed);
        let answer = perform(&self.generator, call);
        let twin_answer = perform(&self.twin, call);
        let reads = self.clock.0.precise_reads.load(Ordering::Relaxed) - reads_before;
        let twin_reads =
            self.twin_clock.0.precise_reads.load(Ordering::Relaxed) - twin_reads_before;
        let read_source = reads > 0;
        let context = Context {
            call,
            readings,
            before: &before,
        };
        assert_eq!(
            twin_answer, answer,
            "the LocalGenerator's answer (left) differs: {context:?}"
        );
        assert_eq!(
            twin_reads, reads,
            "the LocalGenerator read the source {twin_reads} times, the generator {reads}: {context:?}"
        );
        assert_eq!(
            self.twin_clock.0.lagging.load(Ordering::Relaxed),
            self.clock.0.lagging.load(Ordering::Relaxed),
            "the LocalGenerator's lagging reading (left) differs after the call: {context:?}"
        );
        let (result, _) = answer;
        assert_eq!(
            read_source, after.read_source,
            "read the source: {read_source}, the model says {}: {context:?}",
            after.read_source
        );
        let lagging_after = self.clock.0.lagging.load(Ordering::Relaxed);
        assert_eq!(
            lagging_after, after.lagging,
            "the lagging reading after the call (left) differs from the model's: {context:?}"
        );
        self.readings = after;
        self.model = model;
        match result {
            Ok(ids) => {
                for &id in &ids {
                    self.check_id(id, &context);
                }
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(got, expected, "{context:?}");
                Some(ids.len())
            }
            Err(err) => {
                self.check_error(&err, &context);
                assert_eq!(Outcome::Fail(err), expected, "{context:?}");
                None
            }
        }
    }
}
