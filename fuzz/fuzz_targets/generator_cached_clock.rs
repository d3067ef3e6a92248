//! One generator, single-threaded, on the real cached clock: a `CachedClock::driven` over a
//! `ManualClock` source, whose refresher the run drives step by step with `drive_refresh`,
//! on a tick-tock layout, under `ClockBehind::TickTock { max_ms: 0 }` (half of the inputs) or
//! `Error` or `Wait { max_ms: 0 }`, through source moves, refresher wake-ups, `mint`,
//! `try_mint`, `mint_batch` and `try_mint_batch`.
//!
//! The source moves forward by less than a tick, jumps forward by a few ticks or far, and
//! steps back by a few ticks or far. The refresher keeps a running wake-up count: each turn
//! runs its next wake-up (a refresh, or every fourth a probe that writes `STALE`; a wake-up
//! that finds its probe unanswered parks). A parked refresher does nothing until a reader's
//! publication has replaced `PARKED` (`drive_still_parked` is false): then its turn wakes it
//! and runs its next wake-up. The run starts with it parked, as a clock nobody has read yet.
//!
//! The refresher kept up: a real one wakes at least once a millisecond, so the cached reading
//! is never a tick or more from the source. The run models that by giving the refresher a
//! turn right after every source move that leaves the cached reading a tick or more from the
//! source; one turn always mends it (a refresh publishes the source, a probe or a park leaves
//! no reading). Other turns come from the input, between calls.
//!
//! Checked after every step:
//! - the clock's word: a reading less than a tick from the source, or `STALE` (never while
//!   the refresher is parked), or `PARKED` (only while it is parked);
//! - no ID repeats; on each timeline the IDs strictly increase; a batch is consecutive
//!   sequence values of one tick; every ID carries the machine (on the 41-bit layout);
//! - every ID's tick is within one tick of the source's reading at its mint (the source does
//!   not move during a call);
//! - the only errors: `SequenceExhausted` from a `try_` call, for the state's tick when the
//!   source reads it too, with a `retry_after` of one tick; `ClockBehind` (with `max_wait_ms`
//!   0) only when the source reads behind the state's tick, by `behind_ms` to the start of
//!   that tick (of the next, when the state's is full), and under `TickTock` only when the
//!   other timeline has already minted at or after the source's tick (otherwise the generator
//!   must toggle);
//! - a `LocalGenerator` built the same way on a second driven cached clock over a second
//!   source, moved and refreshed in lockstep, answers every call alike (the IDs, the whole
//!   batch buffer, errors), leaves its clock's word and wake-up count where the generator
//!   leaves the other's, and has the same snapshot, counters and `Debug` output.
//!
//! Nothing blocks: `max_ms: 0` fails a clock behind at once, and a waiting call (`mint`,
//! `mint_batch`) is made as its `try_` form when the state's tick is full and the source
//! reads that tick (it would wait for a tick nobody brings).

#![no_main]

use std::collections::HashSet;
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::clock::{Private, Step};
use snowmint::{
    Error, Generator, Id, Layout, LocalGenerator, Snapshot,
    clock::{CachedClock, ManualClock},
};

// The helpers the generator targets share; this target has no model, so it uses only some.
#[allow(dead_code)]
mod common;

use common::layouts::{self, MAX_MINTS};
use common::ticks::first_reading;
use common::{Call, Calls, Minted, Policy, check_twin, perform};

/// The cached clock both generators read.
type Cached = CachedClock<Private<ManualClock>>;

/// What `drive_word` shows for a sentinel, whatever its generation: `STALE`, `PARKED`, or 2
/// for `UNCACHED`; from `FIRST_READING` up, a reading.
const STALE: u64 = 0;
const PARKED: u64 = 1;
const FIRST_READING: u64 = 3;

#[derive(Debug, Arbitrary)]
enum Op {
    /// The source moves forward by `ms % tick_ms` ms: less than a tick.
    Forward(u8),
    /// The source jumps forward by `1 + ticks % 8` ticks and `ms % tick_ms` ms.
    Jump {
        ticks: u8,
        ms: u8,
    },
    /// The source jumps forward by `ticks` ticks.
    Far(u16),
    /// The source steps back by `ticks % 8` ticks and `ms % tick_ms` ms.
    Back {
        ticks: u8,
        ms: u8,
    },
    /// The source steps back by `ticks` ticks.
    FarBack(u16),
    /// The refresher's next turn.
    Refresh,
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
}

#[derive(Debug, Arbitrary)]
struct Input {
    /// Even: the 16-bit layout; odd: the 41-bit one.
    layout: u8,
    /// 4 ms ticks instead of 1 ms.
    tick_4ms: bool,
    /// Modulo 4: 0 `Error`, 1 `Wait { max_ms: 0 }`, else `TickTock { max_ms: 0 }`.
    policy: u8,
    /// The first reading, in ticks from a base (the epoch's next tick, or 2023 for 41 bits).
    start: u16,
    ops: Vec<Op>,
}

fn layout(choice: u8, tick_4ms: bool) -> Layout {
    let tick_ms = layouts::tick_ms(tick_4ms);
    match choice % 2 {
        0 => layouts::tiny_tt(tick_ms),
        _ => layouts::wide_tt(tick_ms),
    }
}

/// A call and what it started from, for failure messages.
struct Context<'a> {
    call: Call,
    /// The source's reading during the call, and the cached clock's word before it.
    source_ms: u64,
    word: u64,
    /// The generator's state before the call.
    before: &'a Snapshot,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} with the source at {} ms and the word at {}, state before {:?}",
            self.call, self.source_ms, self.word, self.before
        )
    }
}

struct Run {
    layout: Layout,
    policy: Policy,
    /// The generator's source and clock, and the twin's.
    source: ManualClock,
    clock: Cached,
    twin_source: ManualClock,
    twin_clock: Cached,
    /// The source's reading, as the run set it.
    source_ms: u64,
    /// The first and last ms the source may read: the layout's mintable ticks, less the last
    /// two (so no call meets the layout's end).
    min_ms: u64,
    max_ms: u64,
    /// The refresher's wake-ups so far, and whether it is parked.
    wake: u64,
    parked: bool,
    generator: Generator<Cached>,
    twin: LocalGenerator<Cached>,
    seen: HashSet<u64>,
    /// The last ID minted on each timeline, and the highest tick minted there.
    last_on: [Option<u64>; 2],
    max_tick_on: [Option<u64>; 2],
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let layout = layout(input.layout, input.tick_4ms);
    let tick_ms = layout.tick_ms();
    let min_ms = layout.epoch_ms() + tick_ms;
    let max_ms = layout.epoch_ms() + (layout.max_ticks() - 2) * tick_ms;
    let start = first_reading(&layout, input.start % 3_000).min(max_ms);
    let policy = match input.policy % 4 {
        0 => Policy::Error,
        1 => Policy::Wait,
        _ => Policy::TickTock,
    };
    let (source, twin_source) = (ManualClock::new(start), ManualClock::new(start));
    let (clock, twin_clock) = (
        CachedClock::driven(source.clone()),
        CachedClock::driven(twin_source.clone()),
    );
    // This thread is the refresher a publication that replaces PARKED unparks; it never
    // parks, so the unpark only leaves a token.
    clock.drive_attach();
    twin_clock.drive_attach();
    let mut builder = Generator::builder(layout)
        .clock(clock.clone())
        .on_clock_behind(policy.get());
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
        policy,
        source,
        clock,
        twin_source,
        twin_clock,
        source_ms: start,
        min_ms,
        max_ms,
        wake: 0,
        parked: true,
        generator,
        twin,
        seen: HashSet::new(),
        last_on: [None, None],
        max_tick_on: [None, None],
    };
    for op in &input.ops {
        run.apply(op);
        run.check_clock();
        check_twin(&run.generator, &run.twin);
    }
}

impl Run {
    fn tick(&self, unix_ms: u64) -> u64 {
        self.layout
            .ticks_at(unix_ms)
            .expect("readings within the layout")
    }

    /// `ticks` ticks and `ms` ms, as ms.
    fn span(&self, ticks: u64, ms: u8) -> u64 {
        let tick_ms = self.layout.tick_ms();
        ticks * tick_ms + u64::from(ms) % tick_ms
    }

    /// Sets both sources, within the run's bounds; then the refresher keeps up.
    fn set(&mut self, unix_ms: u64) {
        let unix_ms = unix_ms.clamp(self.min_ms, self.max_ms);
        self.source_ms = unix_ms;
        self.source.set(unix_ms);
        self.twin_source.set(unix_ms);
        let word = self.clock.drive_word();
        if word >= FIRST_READING && word.abs_diff(unix_ms) >= self.layout.tick_ms() {
            self.turn();
        }
    }

    /// The refresher's next turn on both clocks: its next wake-up, unless it is parked and
    /// no reader has replaced `PARKED` since.
    fn turn(&mut self) {
        if self.parked {
            let still = self.clock.drive_still_parked();
            assert_eq!(
                self.twin_clock.drive_still_parked(),
                still,
                "the LocalGenerator's refresher (left) parks differently"
            );
            if still {
                return;
            }
            self.parked = false;
        }
        self.wake += 1;
        let step = self.clock.drive_refresh(self.wake);
        assert_eq!(
            self.twin_clock.drive_refresh(self.wake),
            step,
            "the LocalGenerator's refresher (left) steps differently at wake-up {}",
            self.wake
        );
        match step {
            Step::Refreshed => {}
            Step::Park => self.parked = true,
            Step::Exit => panic!("a driven clock over a ManualClock never gives up caching"),
        }
    }

    fn apply(&mut self, op: &Op) {
        let now = self.source_ms;
        match *op {
            Op::Forward(ms) => self.set(now + self.span(0, ms)),
            Op::Jump { ticks, ms } => self.set(now + self.span(1 + u64::from(ticks % 8), ms)),
            Op::Far(ticks) => self.set(now.saturating_add(self.span(u64::from(ticks), 0))),
            Op::Back { ticks, ms } => {
                self.set(now.saturating_sub(self.span(u64::from(ticks % 8), ms)));
            }
            Op::FarBack(ticks) => self.set(now.saturating_sub(self.span(u64::from(ticks), 0))),
            Op::Refresh => self.turn(),
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
        }
    }

    fn minted(&self, id: Id) -> Minted {
        let parts = self.layout.decode(id).expect("minted ids decode");
        Minted {
            tick: parts.ticks(),
            timeline: parts.timeline().expect("a tick-tock layout"),
            sequence: parts.sequence(),
        }
    }

    fn check_id(&mut self, id: Id, context: &Context<'_>) {
        let parts = self.layout.decode(id).expect("minted ids decode");
        if self.layout.node_field("machine").is_some() {
            assert_eq!(parts.node("machine"), Some(5), "{parts:?}: {context:?}");
        }
        let m = self.minted(id);
        let source = self.tick(context.source_ms);
        assert!(
            m.tick.abs_diff(source) <= 1,
            "{m:?}: more than a tick from the source's tick {source}: {context:?}"
        );
        let raw = id.to_u64();
        assert!(self.seen.insert(raw), "{m:?} minted twice: {context:?}");
        let timeline = m.timeline as usize;
        if let Some(last) = self.last_on[timeline] {
            assert!(
                raw > last,
                "{m:?} not above the timeline's last id: {context:?}"
            );
        }
        self.last_on[timeline] = Some(raw);
        self.max_tick_on[timeline] = self.max_tick_on[timeline].max(Some(m.tick));
    }

    /// An error is one the source and the state before the call allow.
    fn check_error(&self, err: &Error, context: &Context<'_>) {
        let source = self.tick(context.source_ms);
        let state = context.before.last_tick;
        let tick_ms = self.layout.tick_ms();
        match *err {
            Error::SequenceExhausted {
                tick, retry_after, ..
            } => {
                assert!(
                    !context.call.waits()
                        && tick == state
                        && tick == source
                        && retry_after == Duration::from_millis(tick_ms),
                    "{err:?} with the source at tick {source}: {context:?}"
                );
            }
            Error::ClockBehind {
                behind_ms,
                max_wait_ms: 0,
                ..
            } => {
                // Measured to the state's tick, or the next one when it is full (no borrowing).
                let full = context.before.sequence >= *context.before.sequence_range.end()
                    && state < self.layout.max_ticks();
                let resume_ms = self.layout.epoch_ms() + (state + u64::from(full)) * tick_ms;
                assert!(
                    source < state && behind_ms == resume_ms - context.source_ms,
                    "{err:?} with the source at tick {source}: {context:?}"
                );
                if self.policy == Policy::TickTock {
                    // Refused only when the other timeline has minted at or after the source.
                    let other = 1 - context.before.timeline as usize;
                    assert!(
                        self.max_tick_on[other].is_some_and(|max| max >= source),
                        "{err:?} though timeline {other} has minted only up to {:?}, before \
                         the source's tick {source}: {context:?}",
                        self.max_tick_on[other]
                    );
                }
            }
            _ => panic!("unexpected error {err:?}: {context:?}"),
        }
    }

    /// The word says what the refresher and the source allow, on both clocks alike.
    fn check_clock(&self) {
        let word = self.clock.drive_word();
        assert_eq!(
            self.twin_clock.drive_word(),
            word,
            "the LocalGenerator's clock word (left) differs"
        );
        assert_eq!(
            self.twin_clock.wakeups(),
            self.clock.wakeups(),
            "the LocalGenerator's refresher (left) woke a different number of times"
        );
        let source = self.source_ms;
        match word {
            STALE => assert!(!self.parked, "STALE with the refresher parked"),
            PARKED => assert!(self.parked, "PARKED with the refresher awake"),
            _ => assert!(
                word >= FIRST_READING && word.abs_diff(source) < self.layout.tick_ms(),
                "the word {word} with the source at {source}: the refresher fell behind"
            ),
        }
    }
}

impl Calls for Run {
    /// One call on both generators (a waiting call that could wait becomes its `try_` form);
    /// how many IDs it returned, `None` on error or past the run's last mint.
    fn call(&mut self, call: Call) -> Option<usize> {
        if self.seen.len() >= MAX_MINTS {
            return None;
        }
        let before = self.generator.snapshot();
        let source_tick = self.tick(self.source_ms);
        let full = before.last_tick != 0 && before.sequence == self.layout.max_sequence();
        let call = if call.waits() && full && source_tick == before.last_tick {
            call.without_wait()
        } else {
            call
        };
        let context = Context {
            call,
            source_ms: self.source_ms,
            word: self.clock.drive_word(),
            before: &before,
        };
        let answer = perform(&self.generator, call);
        let twin_answer = perform(&self.twin, call);
        assert_eq!(
            twin_answer, answer,
            "the LocalGenerator's answer (left) differs: {context:?}"
        );
        match answer.0 {
            Ok(ids) => {
                let run: Vec<Minted> = ids.iter().map(|&id| self.minted(id)).collect();
                for (i, m) in run.iter().enumerate() {
                    assert!(
                        (m.tick, m.timeline, m.sequence)
                            == (run[0].tick, run[0].timeline, run[0].sequence + i as u64),
                        "{call:?}'s run is not consecutive on one tick: {run:?}: {context:?}"
                    );
                }
                for &id in &ids {
                    self.check_id(id, &context);
                }
                Some(ids.len())
            }
            Err(err) => {
                self.check_error(&err, &context);
                None
            }
        }
    }
}
