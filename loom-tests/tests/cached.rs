//! Loom models of `Generator` on a clock with a lagging reading and a precise one, as
//! `CachedClock` has: what the generator reads precisely (a full tick, a reading behind the
//! state) and what a stale reading must never cost (capacity, a false regression).
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test --release
//! ```
//!
//! `CachedClock` itself is not built under loom (it starts an OS thread), so the models use
//! [`Lagging`], a clock with its contract on two loom atomics: `unix_ms` loads `lagging` (the
//! cached reading), `unix_ms_precise` loads `fresh` (the source) and raises `lagging` to it with
//! `fetch_max`, with `CachedClock`'s orderings ([`CACHE_LOAD`], [`CACHE_RAISE`]); `fresh` is
//! stored with `Release` and loaded with `Acquire`, as a `ManualClock` source is. Its refresh
//! thread is a racing thread of the model, or is starved (never runs): then only precise reads
//! move `lagging`. Some models use a variant whose precise reads do not raise `lagging` (a cache
//! only its own timer refreshes), so that the state runs ahead of the lagging reading.
//!
//! Every model uses a `tiny` layout (a 1- or 2-bit sequence, a 2-bit machine field set to 1,
//! 1 ms ticks from the Unix epoch), `ClockBehind::Error` (a reading mistaken for a regression
//! would surface as an error) and a clock that never goes back. The main thread may mint a
//! few IDs first (the *setup*); then two or three threads race, each following a short script
//! of mints, batches and clock moves, and record every call's result with the readings of
//! `lagging` and of `fresh` right before it.
//!
//! In every interleaving explored, [`check`] asserts that
//!
//! - no call fails except a `try_` call with `SequenceExhausted` for a tick the source had not
//!   left when the call began (`fresh` read before the call at or behind it): a full tick is
//!   never held by a stale reading; never `ClockBehind`;
//! - a call returns between 1 and as many IDs as it asked for, consecutive on one tick,
//!   carrying the machine, on a tick from the cached reading before the call to the source's
//!   last reading (not the source read right after the call: a thread that takes its tick
//!   from a cached reading another thread raised is not ordered after that thread's read of
//!   the source, so its own later read may still see the older value);
//! - no ID repeats, across the setup and the race, and each thread's IDs strictly increase;
//!   each tick holds the first sequence values (none skipped, none twice), and a tick reported
//!   exhausted is full;
//! - no regression is counted, no wait without a waiting call; `lagging` never passes `fresh`,
//!   and when precise reads raise it, it is at or past every tick minted;
//!
//! and [`finish`] refreshes the clock past every tick used and mints once more: an ID above
//! all others, at the start of the tick.
#![cfg(loom)]

use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::thread;

use snowmint::{Clock, ClockBehind, Error, Generator, Id, Layout};

mod common;

use common::{AFTER_TICK, MACHINE, Minted, START_TICK, Tally, minted, model, setup_and, tiny};

/// The ordering of `CachedClock`'s loads of its cached reading (`unix_ms`, and the check
/// before a raise): keep it the same as `src/clock/cached.rs`.
///
/// With `Relaxed` here and in [`CACHE_RAISE`], models 7 and 8 fail: a thread can read a cached
/// reading, then a source reading behind it. With `Acquire` here and `Release` there, as
/// `CachedClock` has them, every model passes.
const CACHE_LOAD: Ordering = Ordering::Acquire;

/// The ordering of `CachedClock`'s `fetch_max` raising its cached reading: keep it the same as
/// `src/clock/cached.rs`.
const CACHE_RAISE: Ordering = Ordering::Release;

/// The two readings a [`Lagging`] clock serves, in Unix milliseconds (ticks, here).
#[derive(Debug)]
struct Readings {
    /// The cached reading: what `unix_ms` loads.
    lagging: AtomicU64,
    /// The source: what `unix_ms_precise` loads.
    fresh: AtomicU64,
    /// Whether a precise read raises `lagging` (`CachedClock`'s contract).
    raise: bool,
}

/// A clock with `CachedClock`'s contract on loom atomics (see the module docs).
#[derive(Debug, Clone)]
struct Lagging(Arc<Readings>);

impl Lagging {
    fn new(unix_ms: u64, raise: bool) -> Self {
        Lagging(Arc::new(Readings {
            lagging: AtomicU64::new(unix_ms),
            fresh: AtomicU64::new(unix_ms),
            raise,
        }))
    }

    fn lagging(&self) -> u64 {
        self.0.lagging.load(CACHE_LOAD)
    }

    fn fresh(&self) -> u64 {
        self.0.fresh.load(Ordering::Acquire)
    }

    /// The source moves on to `unix_ms`; the cached reading does not (a starved refresh).
    fn advance_source(&self, unix_ms: u64) {
        self.0.fresh.store(unix_ms, Ordering::Release);
    }

    /// What `CachedClock`'s refresh thread does: read the source and raise the cached reading
    /// to it.
    fn refresh(&self) {
        let now = self.fresh();
        if self.lagging() < now {
            self.0.lagging.fetch_max(now, CACHE_RAISE);
        }
    }
}

impl Clock for Lagging {
    fn unix_ms(&self) -> u64 {
        self.lagging()
    }

    fn unix_ms_precise(&self) -> u64 {
        let now = self.fresh();
        // As `CachedClock::unix_ms_precise`: load first, raise only when behind.
        if self.0.raise && self.lagging() < now {
            self.0.lagging.fetch_max(now, CACHE_RAISE);
        }
        now
    }
}

/// What a racing thread does, step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `mint()`.
    Mint,
    /// `try_mint()`.
    TryMint,
    /// `mint_batch` with a buffer of this many IDs.
    Batch(usize),
    /// `try_mint_batch` with a buffer of this many IDs.
    TryBatch(usize),
    /// The source moves on by one tick (the cached reading stays).
    Advance,
    /// The refresh thread's step: the cached reading catches up with the source.
    Refresh,
}

impl Op {
    /// How many IDs the call asks for.
    fn want(self) -> usize {
        match self {
            Op::Mint | Op::TryMint => 1,
            Op::Batch(n) | Op::TryBatch(n) => n,
            Op::Advance | Op::Refresh => 0,
        }
    }

    fn is_try(self) -> bool {
        matches!(self, Op::TryMint | Op::TryBatch(_))
    }

    fn waits(self) -> bool {
        matches!(self, Op::Mint | Op::Batch(_))
    }
}

/// One mint or batch call of a race.
#[derive(Debug)]
struct Call {
    op: Op,
    /// The cached reading right before the call.
    lagging_before: u64,
    /// The source's reading right before the call.
    fresh_before: u64,
    /// The IDs returned, in order.
    result: Result<Vec<u64>, Error>,
}

/// One mint or batch call: the IDs it returned.
fn call(generator: &Generator<Lagging>, op: Op) -> Result<Vec<u64>, Error> {
    let single = |result: Result<Id, Error>| result.map(|id| vec![id.to_u64()]);
    let batch = |n: usize, f: fn(&Generator<Lagging>, &mut [Id]) -> Result<usize, Error>| {
        let mut buffer = vec![Id::from_u64(0); n];
        f(generator, &mut buffer)
            .map(|count| buffer[..count].iter().map(|id| id.to_u64()).collect())
    };
    match op {
        Op::Mint => single(generator.mint()),
        Op::TryMint => single(generator.try_mint()),
        Op::Batch(n) => batch(n, Generator::mint_batch),
        Op::TryBatch(n) => batch(n, Generator::try_mint_batch),
        Op::Advance | Op::Refresh => unreachable!("not a mint"),
    }
}

/// A generator on a [`tiny`] layout and a [`Lagging`] clock, and what the setup minted.
struct Rig {
    layout: Layout,
    generator: Arc<Generator<Lagging>>,
    clock: Lagging,
    /// Every ID minted before the race, in order.
    setup: Vec<u64>,
}

impl Rig {
    /// A generator with a `sequence_bits`-bit sequence under `ClockBehind::Error`, on a clock
    /// whose readings both start at `START_TICK`; `raise`: precise reads raise the cached one.
    fn new(sequence_bits: u8, raise: bool) -> Self {
        let layout = tiny(sequence_bits);
        let clock = Lagging::new(START_TICK, raise);
        let generator = Generator::builder(layout)
            .node("machine", MACHINE)
            .clock(clock.clone())
            .on_clock_behind(ClockBehind::Error)
            .build()
            .expect("valid generator");
        Rig {
            layout,
            generator: Arc::new(generator),
            clock,
            setup: Vec::new(),
        }
    }

    /// Setup: mints `n` IDs with `try_mint`, each of which must succeed.
    fn mint(&mut self, n: usize) {
        self.setup.extend(common::setup_mints(&self.generator, n));
    }

    /// Runs the race: one thread per script, each step in order.
    fn race(&self, scripts: &[&'static [Op]]) -> Vec<Vec<Call>> {
        let handles: Vec<_> = scripts
            .iter()
            .map(|&script| {
                let generator = self.generator.clone();
                let clock = self.clock.clone();
                thread::spawn(move || {
                    let mut calls = Vec::new();
                    for &op in script {
                        match op {
                            Op::Advance => clock.advance_source(clock.fresh() + 1),
                            Op::Refresh => clock.refresh(),
                            _ => {
                                let lagging_before = clock.lagging();
                                let fresh_before = clock.fresh();
                                let result = call(&generator, op);
                                calls.push(Call {
                                    op,
                                    lagging_before,
                                    fresh_before,
                                    result,
                                });
                            }
                        }
                    }
                    calls
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }
}

/// What a race produced, once [`check`] has accepted it.
#[derive(Debug)]
struct Outcome {
    /// Every ID of the race.
    ids: Vec<Minted>,
    /// The tick of each `SequenceExhausted`.
    exhausted: Vec<u64>,
}

/// The common checks (see the module docs).
fn check(rig: &Rig, calls: &[Vec<Call>]) -> Outcome {
    // A generator here uses the whole sequence field.
    let mut tally = Tally::new(&rig.layout, 0..=rig.layout.max_sequence(), &calls);
    // All threads joined: the source's last reading.
    let source = rig.clock.fresh();
    for thread_calls in calls {
        tally.thread();
        for call in thread_calls {
            let Call {
                op,
                lagging_before,
                fresh_before,
                ref result,
            } = *call;
            match result {
                Ok(run) => {
                    let tick = tally.run(&op, op.want(), run)[0].tick;
                    assert!(
                        lagging_before <= tick && tick <= source,
                        "{op:?} minted at tick {tick}, the cached reading was {lagging_before} \
                         before, the source's last reading is {source}: {calls:?}"
                    );
                }
                Err(Error::SequenceExhausted { tick, .. }) if op.is_try() => {
                    // A full tick reads the source: it gives up only on a tick the source had
                    // not left when the call began, never on one a stale reading still shows.
                    assert!(
                        fresh_before <= *tick,
                        "{op:?} gave up on tick {tick}, the source read {fresh_before} before \
                         the call: {calls:?}"
                    );
                    tally.exhausted(*tick);
                }
                Err(other) => panic!("{op:?} failed: {other:?}: {calls:?}"),
            }
        }
    }
    let checked = tally.check(&rig.setup);
    let all = &checked.all;

    let stats = rig.generator.stats();
    assert_eq!(stats.regressions, 0, "{stats:?}: {calls:?}");
    if !calls.iter().flatten().any(|call| call.op.waits()) {
        assert_eq!(stats.waits, 0, "{stats:?}");
    }
    let (lagging, fresh) = (rig.clock.lagging(), rig.clock.fresh());
    assert!(lagging <= fresh, "cached {lagging} past the source {fresh}");
    if rig.clock.0.raise {
        let max_tick = all.iter().map(|m| m.tick).max().unwrap_or(0);
        assert!(
            max_tick <= lagging,
            "tick {max_tick} minted, the cached reading still {lagging}: {calls:?}"
        );
    }

    Outcome {
        ids: checked.race,
        exhausted: checked.exhausted,
    }
}

/// After the race (all threads joined): with the source moved past every tick used and the
/// cache refreshed, `mint` gives an ID above all others at the start of the tick.
fn finish(rig: &Rig, outcome: &Outcome) {
    let layout = &rig.layout;
    let all = setup_and(layout, &rig.setup, &outcome.ids);
    rig.clock.advance_source(AFTER_TICK);
    rig.clock.refresh();
    let m = minted(layout, rig.generator.mint().expect("mint").to_u64());
    assert_eq!((m.tick, m.sequence), (AFTER_TICK, 0));
    assert!(all.iter().all(|other| m.id > other.id), "{m:?} vs {all:?}");
}

/// Model 1: a full tick with a stale cached reading while a starved clock's source moves on.
///
/// 2 IDs per tick, tick 10 full after the setup; two threads `try_mint` once each, and a third
/// advances the source to tick 11 (the cached reading stays at 10: only precise reads raise
/// it). A `try_mint` finds tick 10 full and reads the source: it fails only if the source has
/// not moved yet, and otherwise mints on tick 11.
#[test]
fn a_full_tick_reads_the_source_past_a_stale_reading() {
    model(|| {
        let mut rig = Rig::new(1, true);
        rig.mint(2);
        let calls = rig.race(&[&[Op::TryMint], &[Op::TryMint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        assert!(
            out.ids.iter().all(|m| m.tick == START_TICK + 1),
            "{calls:?}"
        );
        finish(&rig, &out);
    });
}

/// Model 2: `mint()` at a full tick with a stale cached reading waits for the source, not for
/// the cache: it returns on tick 11 once the source is there, though nothing refreshes the
/// cache. 2 IDs per tick, tick 10 full; one thread `mint`s, another `try_mint`s, a third
/// advances the source (only one thread can wait, so the model is finite).
#[test]
fn a_waiting_mint_at_a_full_tick_follows_the_source() {
    model(|| {
        let mut rig = Rig::new(1, true);
        rig.mint(2);
        let calls = rig.race(&[&[Op::Mint], &[Op::TryMint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        let mint = &calls[0][0];
        let id = minted(&rig.layout, mint.result.as_ref().expect("mint")[0]);
        assert_eq!(id.tick, START_TICK + 1, "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 3: one thread fills tick 10 and moves the state on to tick 11 through the precise
/// reading (its second `mint` finds the tick full), while another mints from the cached
/// reading, still at 10 (the source moved on to 11 before the race; nothing refreshes the
/// cache but precise reads). Whatever that thread reads, it is no regression: a state it sees
/// at tick 11 was installed after the cache was raised to 11, and a reading older than the
/// state it replaces loses its CAS. No error, no regression counted.
#[test]
fn a_stale_reading_after_a_precise_move_is_not_a_regression() {
    model(|| {
        let mut rig = Rig::new(1, true);
        rig.mint(1);
        rig.clock.advance_source(START_TICK + 1);
        let calls = rig.race(&[&[Op::Mint, Op::Mint], &[Op::Mint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 3, "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 4: as model 3 on a clock whose precise reads do not raise the cached reading: after
/// the move to tick 11, the other thread's reading is behind the state for certain. The
/// generator reads the source before it calls that a regression; the source is at 11, so it
/// mints on. A refresh races the mints too.
#[test]
fn a_reading_behind_a_precise_move_is_not_a_regression() {
    model(|| {
        let mut rig = Rig::new(1, false);
        rig.mint(1);
        rig.clock.advance_source(START_TICK + 1);
        let calls = rig.race(&[&[Op::Mint, Op::Mint], &[Op::Mint, Op::Refresh]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 3, "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 5: model 3 with batches. 4 IDs per tick, tick 10 holding sequence 0, the source at 11
/// and the cache at 10: one thread takes a batch of 3 then one of 2 (the first fills tick 10
/// or what is left of it; the second finds it full and moves to tick 11 through the source),
/// the other a batch of 2 from the stale cache. No error, no regression counted.
#[test]
fn batches_after_a_precise_move_are_not_a_regression() {
    model(|| {
        let mut rig = Rig::new(2, true);
        rig.mint(1);
        rig.clock.advance_source(START_TICK + 1);
        let calls = rig.race(&[&[Op::Batch(3), Op::Batch(2)], &[Op::Batch(2)]]);
        let out = check(&rig, &calls);
        assert!(
            out.ids.iter().any(|m| m.tick == START_TICK + 1),
            "{calls:?}"
        );
        finish(&rig, &out);
    });
}

/// Model 6: model 5 on a clock whose precise reads do not raise the cached reading, with
/// `try_mint_batch`: a batch reading behind the state reads the source too, and the source has
/// left tick 10, so no batch fails.
#[test]
fn batches_behind_a_precise_move_are_not_a_regression() {
    model(|| {
        let mut rig = Rig::new(2, false);
        rig.mint(1);
        rig.clock.advance_source(START_TICK + 1);
        let calls = rig.race(&[&[Op::TryBatch(3), Op::TryBatch(2)], &[Op::TryBatch(2)]]);
        let out = check(&rig, &calls);
        assert!(out.exhausted.is_empty(), "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 7: the `Clock` contract, that a precise reading is never behind a reading `unix_ms`
/// returned before it unless the time went back, with the refresh thread racing.
///
/// The source moves from tick 10 to 11 while the refresh thread reads it and raises the cached
/// reading; a third thread reads `unix_ms`, then `unix_ms_precise`. If it read the cached 11, the
/// source must read 11 too: the raise must publish the reading it carries, so the cached
/// reading's loads and raises need `Acquire` and `Release` (with `Relaxed`, the third thread
/// can read the source's 10 after the cached 11).
#[test]
fn a_precise_reading_is_not_behind_a_cached_one_read_before_it() {
    model(|| {
        let clock = Lagging::new(START_TICK, true);
        let (source, refresher, reader) = (clock.clone(), clock.clone(), clock);
        let handles = [
            thread::spawn(move || source.advance_source(START_TICK + 1)),
            thread::spawn(move || refresher.refresh()),
            thread::spawn(move || {
                let cached = reader.unix_ms();
                let precise = reader.unix_ms_precise();
                assert!(
                    cached <= precise,
                    "read the cached {cached}, then the source {precise}: the source never went \
                     back"
                );
            }),
        ];
        for handle in handles {
            handle.join().unwrap();
        }
    });
}

/// Model 8: what model 7 costs a generator. 2 IDs per tick, tick 10 full; the source moves to
/// 11 while the refresh thread refreshes the cache, and a third thread `try_mint`s three
/// times: the first mints on tick 11 if it reads the refreshed cache (and so do the second), and
/// the third finds tick 11 full and reads the source, which must not read behind the tick the
/// cache showed: under `ClockBehind::Error`, a source read at 10 would fail with
/// `ClockBehind` though the source never went back.
#[test]
fn a_refresh_racing_a_mint_is_not_a_regression() {
    model(|| {
        let mut rig = Rig::new(1, true);
        rig.mint(2);
        let calls = rig.race(&[
            &[Op::Advance],
            &[Op::Refresh],
            &[Op::TryMint, Op::TryMint, Op::TryMint],
        ]);
        let out = check(&rig, &calls);
        finish(&rig, &out);
    });
}
