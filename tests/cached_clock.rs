//! A generator on a `CachedClock`: what it reads precisely, and what a stale cached reading
//! costs and does not cost; and the cache itself: it follows its source back, a reading from
//! before a step back never replaces it, and the refresher parks when nobody reads.
//!
//! Most tests starve the refresher on purpose, through a [`Rigged`] source: either the
//! refresher's read of the source is held, so the cached reading moves only when a generator
//! reads the source precisely (a full tick, a reading behind the state, a wait for a
//! regression) and every step is exact; or the refresher reads a frozen time and keeps
//! publishing that stale reading over the precise ones. Their layouts have a 2-bit sequence,
//! so four mints fill a tick and the precise paths run often. The threaded tests run eight
//! threads (more than most CI machines have cores) on a real cached clock, with 16 IDs per
//! tick.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use snowmint::clock::Private;
use snowmint::{
    Clock, ClockBehind, Error, Generator, Id, Layout,
    clock::{CachedClock, ManualClock, MonotonicClock, WallClockBack},
    shard::Shards,
};
#[cfg(all(unix, snowmint_test_hooks))]
use snowmint::{GeneratorBuilder, generator::State};

use common::checks::assert_unique_and_increasing;
use common::clocks::T0;
#[cfg(all(unix, snowmint_test_hooks))]
use common::forks::{in_child, is_forked};
use common::refresher::assert_parks_then_wakes;
#[cfg(snowmint_test_hooks)]
use common::refresher::wait_parked;
use common::threads::{PATIENCE, eventually, on_threads};

/// 4 IDs per tick: 49 bits of 1 ms ticks from 2020, a 12-bit machine field, a 2-bit sequence.
const SHORT: Layout = Layout::builder("short", 64)
    .unused(1)
    .time(49)
    .node("machine", 12)
    .sequence(2)
    .epoch_ms(1_577_836_800_000)
    .build_const();

/// [`SHORT`] with a tick-tock bit taken from the machine field.
const SHORT_TT: Layout = Layout::builder("short-tt", 64)
    .unused(1)
    .time(49)
    .tick_tock()
    .node("machine", 11)
    .sequence(2)
    .epoch_ms(1_577_836_800_000)
    .build_const();

/// 16 IDs per tick, for the threaded tests: ticks fill many times a second.
const BUSY: Layout = Layout::builder("busy", 64)
    .unused(1)
    .time(49)
    .node("machine", 10)
    .sequence(4)
    .epoch_ms(1_577_836_800_000)
    .build_const();

const PER_TICK: u64 = SHORT.max_sequence() + 1;
/// The name of every cached clock's refresher thread.
const REFRESHER: &str = "snowmint-clock";

type Cached = CachedClock<Private<Rigged>>;

/// A source whose reads on chosen threads (by name) the test controls through its [`Rig`]: a
/// thread it *holds* waits inside each read until the rig lets that read return (with the time
/// it read when it began), a thread it *freezes* reads a fixed time; every other thread reads
/// the `ManualClock`.
struct Rigged {
    live: ManualClock,
    gates: Arc<Gates>,
}

/// The gates of a [`Rigged`] source, one per thread it controls, and the condition its held
/// reads wait on.
#[derive(Default)]
struct Gates {
    gates: Mutex<Vec<Gate>>,
    changed: Condvar,
}

/// How a [`Rigged`] source answers one thread. Gates are never removed, so a waiting read
/// keeps its index.
struct Gate {
    thread: &'static str,
    /// The time the thread reads instead of the live one.
    frozen: Option<u64>,
    /// How many of the thread's reads may return (counted from the gate's creation); the
    /// later ones wait.
    allowed: u64,
    /// How many reads the thread has begun.
    begun: u64,
}

impl Gates {
    fn lock(&self) -> MutexGuard<'_, Vec<Gate>> {
        self.gates.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clock for Rigged {
    fn unix_ms(&self) -> u64 {
        let current = thread::current();
        let mut gates = self.gates.lock();
        let Some(i) = gates
            .iter()
            .position(|gate| Some(gate.thread) == current.name())
        else {
            return self.live.unix_ms();
        };
        let reading = gates[i].frozen.unwrap_or_else(|| self.live.unix_ms());
        let ticket = gates[i].begun;
        gates[i].begun += 1;
        self.gates.changed.notify_all();
        while ticket >= gates[i].allowed {
            gates = self
                .gates
                .changed
                .wait(gates)
                .unwrap_or_else(PoisonError::into_inner);
        }
        reading
    }
}

/// The test's side of a [`Rigged`] source. Dropped (at the end of a test, failed or not), it
/// lets every held read return and every thread read the live time, so that no refresher
/// stays held.
struct Rig(Arc<Gates>);

impl Rig {
    /// Changes the gate of `thread` (made open if it has none), and tells the reads it holds.
    fn with_gate(&self, thread: &'static str, change: impl FnOnce(&mut Gate)) {
        let mut gates = self.0.lock();
        let i = match gates.iter().position(|gate| gate.thread == thread) {
            Some(i) => i,
            None => {
                gates.push(Gate {
                    thread,
                    frozen: None,
                    allowed: u64::MAX,
                    begun: 0,
                });
                gates.len() - 1
            }
        };
        change(&mut gates[i]);
        self.0.changed.notify_all();
    }

    /// Holds the next reads of `thread`, of the live time, until [`allow`](Self::allow).
    fn hold(&self, thread: &'static str) {
        self.with_gate(thread, |gate| gate.allowed = gate.begun);
    }

    /// Makes every read of `thread` read `unix_ms`, without waiting.
    fn freeze(&self, thread: &'static str, unix_ms: u64) {
        self.with_gate(thread, |gate| {
            gate.frozen = Some(unix_ms);
            gate.allowed = u64::MAX;
        });
    }

    /// Lets the first `reads` reads of `thread` (counted from its gate's making) return; later
    /// ones wait.
    fn allow(&self, thread: &'static str, reads: u64) {
        self.with_gate(thread, |gate| gate.allowed = reads);
    }

    /// Waits until `thread` has begun `reads` reads (and, if held, waits in the last).
    ///
    /// # Panics
    ///
    /// After [`PATIENCE`].
    fn wait_begun(&self, thread: &'static str, reads: u64) {
        let start = Instant::now();
        let mut gates = self.0.lock();
        loop {
            let begun = gates
                .iter()
                .find(|gate| gate.thread == thread)
                .map_or(0, |gate| gate.begun);
            if begun >= reads {
                return;
            }
            let left = PATIENCE.checked_sub(start.elapsed()).unwrap_or_else(|| {
                panic!("{thread} began {begun} reads of the source, not {reads}")
            });
            gates = self
                .0
                .changed
                .wait_timeout(gates, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        for gate in self.0.lock().iter_mut() {
            gate.frozen = None;
            gate.allowed = u64::MAX;
        }
        self.0.changed.notify_all();
    }
}

/// A source at `unix_ms`, a cache of it, and the rig of its reads; nothing controlled yet.
fn rigged(unix_ms: u64) -> (ManualClock, Cached, Rig) {
    let live = ManualClock::new(unix_ms);
    let gates = Arc::new(Gates::default());
    let clock = CachedClock::new(Rigged {
        live: live.clone(),
        gates: Arc::clone(&gates),
    });
    (live, clock, Rig(gates))
}

/// A source at `unix_ms` and a cache of it whose refresher is held in its first read of the
/// source (of `unix_ms`, the reading it cached): it never publishes, probes or parks, so the
/// cached reading changes only when a thread reads the source precisely.
fn starved(unix_ms: u64) -> (ManualClock, Cached, Rig) {
    let (source, clock, rig) = rigged(unix_ms);
    rig.hold(REFRESHER);
    assert_eq!(clock.unix_ms(), unix_ms, "the first read reads the source");
    rig.wait_begun(REFRESHER, 1);
    (source, clock, rig)
}

/// A source at `unix_ms` and a cache of it whose refresher reads `unix_ms` for ever: it
/// publishes that stale reading over every other within a millisecond (while the clock is
/// read), and between its probes a precise read may publish the live one.
fn stale_refresher(unix_ms: u64) -> (ManualClock, Cached, Rig) {
    let (source, clock, rig) = rigged(unix_ms);
    rig.freeze(REFRESHER, unix_ms);
    (source, clock, rig)
}

/// A generator on `layout` and `clock`, machine 5, under `policy`.
fn generator<C: Clock>(layout: Layout, clock: C, policy: ClockBehind) -> Generator<C> {
    Generator::builder(layout)
        .node("machine", 5)
        .clock(clock)
        .on_clock_behind(policy)
        .build()
        .expect("valid generator")
}

/// The time and sequence an ID carries.
fn at<C>(generator: &Generator<C>, id: Id) -> (u64, u64) {
    let parts = generator.decode(id).expect("the generator's own layout");
    assert_eq!(parts.node("machine"), Some(5), "{parts:?}");
    (parts.unix_ms(), parts.sequence())
}

/// Mints `PER_TICK` IDs with `try_mint`, all of which must land on `unix_ms`; the tick is then
/// full.
fn fill<C: Clock>(generator: &Generator<C>, unix_ms: u64) -> Vec<Id> {
    (0..PER_TICK)
        .map(|_| {
            let id = generator.try_mint().expect("a tick with room");
            assert_eq!(at(generator, id).0, unix_ms);
            id
        })
        .collect()
}

/// `mint()`, which the caller expects not to wait: if it does wait (`stats().waits` grows), a
/// watcher unsticks it with a precise read of the clock, which refreshes the cache, so a
/// generator that waits on a stale reading fails the caller's assertion instead of hanging.
/// Returns the result and whether the call waited.
fn mint_expecting_no_wait<C: Clock + Sync>(generator: &Generator<C>) -> (Result<Id, Error>, bool) {
    let waits_before = generator.stats().waits;
    let done = AtomicBool::new(false);
    thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut waited = false;
            while !done.load(Ordering::Acquire) {
                if generator.stats().waits > waits_before {
                    waited = true;
                    generator.clock().unix_ms_precise();
                }
                thread::yield_now();
            }
            waited
        });
        let result = generator.mint();
        done.store(true, Ordering::Release);
        (result, watcher.join().expect("watcher"))
    })
}

/// With the refresher starved, a full tick reads the source: once the source has moved on,
/// `try_mint` and `mint` mint on the source's new tick at once (no `SequenceExhausted`, no
/// wait), not on the stale cached one.
#[test]
fn a_full_tick_moves_to_the_sources_tick_with_a_starved_refresher() {
    let (source, clock, _rig) = starved(T0);
    let generator = generator(SHORT, clock.clone(), ClockBehind::Error);

    fill(&generator, T0);
    source.advance(1);
    assert_eq!(clock.unix_ms(), T0, "the cached reading is stale");
    let id = generator
        .try_mint()
        .expect("the source has left the full tick");
    assert_eq!(
        at(&generator, id),
        (T0 + 1, 0),
        "the source's tick, not the cache's"
    );
    assert_eq!(
        clock.unix_ms(),
        T0 + 1,
        "the precise read refreshed the cache"
    );

    // The rest of T0 + 1 from the refreshed cache, then `mint` at a full tick.
    for sequence in 1..PER_TICK {
        assert_eq!(
            at(&generator, generator.mint().unwrap()),
            (T0 + 1, sequence)
        );
    }
    source.advance(1);
    let (result, waited) = mint_expecting_no_wait(&generator);
    assert!(
        !waited,
        "mint waited for a tick the source had already reached"
    );
    assert_eq!(at(&generator, result.unwrap()), (T0 + 2, 0));

    let stats = generator.stats();
    assert_eq!(
        (stats.overflows, stats.waits, stats.regressions),
        (2, 0, 0),
        "{stats:?}"
    );
}

/// Every tick holds its whole sequence, however stale the cache: over many ticks each gets
/// exactly `PER_TICK` IDs (then `SequenceExhausted` for that tick, a tick's wait away), whether
/// its first ID comes from `mint`, `try_mint` or `mint_batch`; no wait, no regression.
/// `before_tick` runs before each tick's first mint.
fn assert_whole_sequence_every_tick(
    source: &ManualClock,
    generator: &Generator<Cached>,
    before_tick: impl Fn(),
) {
    let mut seen = HashSet::new();
    let mut last = None;
    const TICKS: u64 = 60;
    for tick in 0..TICKS {
        let unix_ms = T0 + tick;
        before_tick();
        let mut ids = Vec::new();
        match tick % 3 {
            0 => ids.push(generator.try_mint().expect("a new tick has room")),
            1 => {
                let mut buffer = [Id::from_u64(0); PER_TICK as usize + 2];
                let written = generator.try_mint_batch(&mut buffer).expect("a batch");
                ids.extend_from_slice(&buffer[..written]);
            }
            _ => {
                let (result, waited) = mint_expecting_no_wait(generator);
                assert!(!waited, "mint waited at tick {tick}");
                ids.push(result.expect("mint"));
            }
        }
        while let Ok(id) = generator.try_mint() {
            ids.push(id);
        }
        let sequences: Vec<(u64, u64)> = ids.iter().map(|&id| at(generator, id)).collect();
        let expected: Vec<(u64, u64)> = (0..PER_TICK).map(|s| (unix_ms, s)).collect();
        assert_eq!(sequences, expected, "tick {tick}");
        for id in ids {
            assert!(seen.insert(id), "{id:?} twice");
            assert!(last < Some(id), "{id:?} after {last:?}");
            last = Some(id);
        }
        assert!(
            matches!(
                generator.try_mint(),
                Err(Error::SequenceExhausted { retry_after, .. }) if retry_after == Duration::from_millis(1)
            ),
            "tick {tick} is full"
        );
        source.advance(1);
    }
    assert_eq!(seen.len() as u64, TICKS * PER_TICK);
    let stats = generator.stats();
    assert_eq!(stats.waits, 0, "{stats:?}");
    assert_eq!(stats.regressions, 0, "{stats:?}");
}

/// With the refresher starved, every tick holds its whole sequence.
#[test]
fn capacity_is_the_whole_sequence_every_tick_with_a_starved_refresher() {
    let (source, clock, _rig) = starved(T0);
    let generator = generator(SHORT, clock, ClockBehind::Error);
    assert_whole_sequence_every_tick(&source, &generator, || {});
}

/// With a refresher that publishes a stale reading over the precise ones, every tick holds its
/// whole sequence too, and that reading, behind the state, is never a regression (under
/// `ClockBehind::Error`): each tick starts with the cache back at the frozen time, ticks
/// behind the state a precise reading moved on.
#[test]
fn capacity_is_the_whole_sequence_every_tick_with_a_refresher_publishing_a_stale_reading() {
    let (source, clock, _rig) = stale_refresher(T0);
    let generator = generator(SHORT, clock.clone(), ClockBehind::Error);
    assert_whole_sequence_every_tick(&source, &generator, || {
        assert!(
            eventually(|| clock.unix_ms() == T0),
            "the refresher does not publish its stale reading"
        );
    });
}

/// The accuracy a starved cache costs: IDs carry the cached reading, however far the source has
/// moved, until their tick fills; the full tick reads the source, which also refreshes the
/// cache, and minting continues on the source's tick. So the lag of an ID's time behind the
/// source is at most what the cache lags by, and it ends at the first full tick.
#[test]
fn ids_carry_the_cached_time_until_a_tick_fills() {
    let (source, clock, _rig) = starved(T0);
    let generator = generator(SHORT, clock.clone(), ClockBehind::Error);

    assert_eq!(at(&generator, generator.mint().unwrap()), (T0, 0));
    source.advance(3);
    for sequence in 1..PER_TICK {
        // Three milliseconds stale, and no precise read while the tick has room.
        assert_eq!(at(&generator, generator.mint().unwrap()), (T0, sequence));
    }
    assert_eq!(clock.unix_ms(), T0, "nothing read the source yet");
    assert_eq!(at(&generator, generator.try_mint().unwrap()), (T0 + 3, 0));
    assert_eq!(
        clock.unix_ms(),
        T0 + 3,
        "the full tick's precise read refreshed the cache"
    );

    // A new generator on the same clock starts from the cached reading too.
    source.advance(2);
    let other = Generator::builder(SHORT)
        .node("machine", 5)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert_eq!(at(&other, other.mint().unwrap()), (T0 + 3, 0));
    assert_eq!(at(&generator, generator.mint().unwrap()), (T0 + 3, 1));

    let stats = generator.stats();
    assert_eq!(
        (stats.overflows, stats.waits, stats.regressions),
        (1, 0, 0),
        "{stats:?}"
    );
}

/// A snapshot of a generator whose clock is ahead of a cached clock's stale reading: a
/// generator resumed from it on the cached clock reads the cache behind its state.
fn resumed_ahead(
    clock: &Cached,
    state_ms: u64,
    minted: u64,
    policy: ClockBehind,
) -> Generator<Cached> {
    let elsewhere = generator(SHORT, ManualClock::new(state_ms), ClockBehind::Error);
    for _ in 0..minted {
        elsewhere.mint().unwrap();
    }
    Generator::resume(&elsewhere.snapshot())
        .clock(clock.clone())
        .on_clock_behind(policy)
        .build()
        .unwrap()
}

/// A cached reading behind the state is not a regression when the source is not: a generator
/// resumed on a cache that has not caught up with its state (the refresher starved) reads the
/// source, mints on, and counts nothing, under `ClockBehind::Error`.
///
/// (On one `CachedClock` the state gets ahead of the cache only when the refresher publishes
/// a reading older than a precise one, as the stale refresher above does; a state from
/// elsewhere, resumed, gets ahead of any cache. The next test drives a clock whose precise
/// reads never raise its lagging reading at all.)
#[test]
fn a_cached_reading_behind_a_resumed_state_is_not_a_regression() {
    let (source, clock, _rig) = starved(T0);
    source.set(T0 + 5);
    let generator = resumed_ahead(&clock, T0 + 5, 1, ClockBehind::Error);
    assert_eq!(clock.unix_ms(), T0, "stale, five ticks behind the state");

    assert_eq!(at(&generator, generator.try_mint().unwrap()), (T0 + 5, 1));
    for sequence in 2..PER_TICK {
        assert_eq!(
            at(&generator, generator.try_mint().unwrap()),
            (T0 + 5, sequence)
        );
    }
    source.advance(1);
    assert_eq!(at(&generator, generator.try_mint().unwrap()), (T0 + 6, 0));
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.waits), (0, 0), "{stats:?}");
}

/// A clock with two readings like a `CachedClock`'s, except that a precise read does not raise
/// the lagging one (a cache only its own refresher updates): the generator's state then runs
/// ahead of the lagging reading after every full tick.
struct TwoReadings {
    lagging: ManualClock,
    fresh: ManualClock,
}

impl Clock for TwoReadings {
    fn unix_ms(&self) -> u64 {
        self.lagging.unix_ms()
    }

    fn unix_ms_precise(&self) -> u64 {
        self.fresh.unix_ms()
    }
}

/// A state moved ahead of the lagging reading by precise reads at full ticks: every later hot
/// read is stale, yet under `ClockBehind::Error` no mint fails and no regression is counted.
#[test]
fn a_lagging_reading_behind_a_state_moved_on_by_precise_reads_is_not_a_regression() {
    let clock = TwoReadings {
        lagging: ManualClock::new(T0),
        fresh: ManualClock::new(T0),
    };
    let generator = generator(SHORT, clock, ClockBehind::Error);
    let mut last = None;
    for tick in 0..20 {
        for sequence in 0..PER_TICK {
            let id = generator
                .try_mint()
                .expect("never a regression, never exhausted");
            assert_eq!(at(&generator, id), (T0 + tick, sequence));
            assert!(last < Some(id));
            last = Some(id);
        }
        generator.clock().fresh.advance(1);
    }
    assert_eq!(
        generator.clock().unix_ms(),
        T0,
        "the lagging reading never moved"
    );
    // Only the first tick is seen full: from then on every reading is behind the state, so
    // every mint reads precisely, and a full tick meets a reading already past it.
    let stats = generator.stats();
    assert_eq!(
        (stats.overflows, stats.regressions, stats.waits),
        (1, 0, 0),
        "{stats:?}"
    );
}

/// A real step back of the source is reported. A starved cache has not seen the step, so while
/// the state's tick has room the generator mints on it from the cached reading; the full tick
/// reads the source, which is behind: `Error::ClockBehind`, measured from the source to the
/// next tick, and a regression counted, at every attempt until the source is back. With a cache that is stale
/// as well (behind the state, behind the source), the first mint reads the source and reports
/// it.
#[test]
fn a_step_back_of_the_source_is_a_regression() {
    let (source, clock, _rig) = starved(T0 + 5);
    let generator = generator(SHORT, clock.clone(), ClockBehind::Error);
    assert_eq!(at(&generator, generator.mint().unwrap()), (T0 + 5, 0));

    source.set(T0 + 1);
    for sequence in 1..PER_TICK {
        assert_eq!(
            at(&generator, generator.mint().unwrap()),
            (T0 + 5, sequence)
        );
    }
    assert_eq!(
        generator.stats().regressions,
        0,
        "unseen while the cache holds"
    );
    for attempt in 1..=2 {
        let result = generator.try_mint();
        assert!(
            matches!(
                result,
                Err(Error::ClockBehind {
                    behind_ms: 5,
                    max_wait_ms: 0,
                    ..
                })
            ),
            "{result:?}"
        );
        assert_eq!(generator.stats().regressions, attempt);
    }
    source.set(T0 + 6);
    assert_eq!(at(&generator, generator.try_mint().unwrap()), (T0 + 6, 0));

    // The cache stale below the source, the source behind the state.
    let (source, clock, _rig) = starved(T0);
    source.set(T0 + 2);
    let generator = resumed_ahead(&clock, T0 + 5, 1, ClockBehind::Error);
    let result = generator.mint();
    assert!(
        matches!(result, Err(Error::ClockBehind { behind_ms: 3, .. })),
        "{result:?}"
    );
    assert_eq!(generator.stats().regressions, 1);
    assert_eq!(
        clock.unix_ms(),
        T0 + 2,
        "the precise read refreshed the cache"
    );
}

/// With a refresher that runs, the cache follows the source back: once it shows the step, the
/// next mint reports the regression, though the state's tick has room.
#[test]
fn a_step_back_the_cache_follows_is_a_regression_at_once() {
    let source = ManualClock::new(T0 + 5);
    let clock = CachedClock::new(source.clone());
    let generator = generator(SHORT, clock.clone(), ClockBehind::Error);
    assert_eq!(at(&generator, generator.mint().unwrap()), (T0 + 5, 0));
    source.set(T0 + 1);
    assert!(
        eventually(|| clock.unix_ms() == T0 + 1),
        "the cache does not follow its source back"
    );
    let result = generator.try_mint();
    assert!(
        matches!(
            result,
            Err(Error::ClockBehind {
                behind_ms: 4,
                max_wait_ms: 0,
                ..
            })
        ),
        "{result:?}"
    );
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.overflows), (1, 0), "{stats:?}");
}

/// A wait for a regression reads the source: it ends when the source catches up, however
/// stale the cache (which the starved refresher never refreshes).
#[test]
fn a_wait_for_a_regression_ends_when_the_source_catches_up() {
    let (source, clock, _rig) = starved(T0);
    source.set(T0 + 2);
    // A wait bound far above what the test needs: with a correct generator the wait ends as
    // soon as the source moves; reading the cache instead, it would run out and fail.
    let generator = resumed_ahead(&clock, T0 + 5, 1, ClockBehind::Wait { max_ms: 10_000 });
    let result = thread::scope(|s| {
        let minter = s.spawn(|| generator.mint());
        while generator.stats().waits == 0 {
            assert!(!minter.is_finished(), "{:?}", generator.stats());
            thread::yield_now();
        }
        source.set(T0 + 5);
        minter.join().expect("minter")
    });
    assert_eq!(
        at(&generator, result.expect("the source caught up")),
        (T0 + 5, 1)
    );
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.waits), (1, 1), "{stats:?}");
}

/// A tick-tock generator whose source steps back behind a full tick the cache still shows:
/// the full tick reads the source, sees the regression, and the generator toggles to the
/// other timeline at the source's tick, as it does when a single reading is behind. (The
/// restart after the regression once re-read the cache, found the tick full again and went
/// round without end.)
#[test]
fn tick_tock_toggles_when_a_full_tick_meets_a_source_behind_the_cache() {
    let (source, clock, _rig) = starved(T0 + 5);
    let generator = generator(SHORT_TT, clock, ClockBehind::TickTock { max_ms: 0 });
    fill(&generator, T0 + 5);
    source.set(T0 + 1);
    let id = generator.try_mint().expect("toggle to the other timeline");
    let parts = generator.decode(id).unwrap();
    assert_eq!(
        (parts.timeline(), parts.unix_ms(), parts.sequence()),
        (Some(1), T0 + 1, 0),
        "{parts:?}"
    );
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.toggles), (1, 1), "{stats:?}");
}

/// Regression test: "TickTock on a cached clock stalls after a step back and stamps IDs in the
/// future". A tick-tock generator (4 IDs per tick, waits of up to a second) on a cached clock
/// with a running refresher fills a tick at `T0`; its source steps back five seconds. Every
/// mint after that succeeds without waiting, on timeline 1, at the source's time (never `T0`),
/// unique and increasing, across a dozen ticks, one regression and one toggle in all.
///
/// It failed when the cache never went back (the refresher and precise reads raised it with
/// `fetch_max`): the cached reading stayed at `T0`. The full tick's precise reading saw the
/// step and the generator toggled to timeline 1 at `T0 - 5000`, but its next mint read the
/// cache, `T0`, ahead of that state, and minted on timeline 1 at `T0`: five seconds in its
/// source's future. Once that tick filled, the precise reading was 5 s behind it, timeline 0's
/// high-water mark (`T0`) ruled out toggling back, and the wait bound (1 s) was shorter than
/// the step: every mint failed with `ClockBehind` until the source reached `T0` again.
#[test]
fn tick_tock_on_a_cached_clock_mints_on_the_sources_new_time_after_a_step_back() {
    let source = ManualClock::new(T0);
    let clock = CachedClock::new(source.clone());
    let generator = generator(
        SHORT_TT,
        clock.clone(),
        ClockBehind::TickTock { max_ms: 1_000 },
    );
    let mut seen: HashSet<Id> = fill(&generator, T0).into_iter().collect();
    assert_eq!(clock.unix_ms(), T0);

    const STEPPED: u64 = T0 - 5_000;
    source.set(STEPPED);
    let mut last = None;
    for i in 0..50 {
        let now = source.unix_ms();
        assert_eq!(now, STEPPED + i / PER_TICK);
        let id = generator
            .try_mint()
            .unwrap_or_else(|e| panic!("mint {i} after the step back: {e}"));
        let parts = generator.decode(id).unwrap();
        assert_eq!(
            (parts.timeline(), parts.unix_ms(), parts.sequence()),
            (Some(1), now, i % PER_TICK),
            "mint {i} after the step back, with the source at {now}: {parts:?}"
        );
        assert!(seen.insert(id), "{parts:?} twice");
        assert!(last < Some(id), "{parts:?} after {last:?}");
        last = Some(id);
        // On to the next millisecond when the tick is full: the next mint's cached reading
        // may still be this one, or already the next.
        if i % PER_TICK == PER_TICK - 1 {
            source.advance(1);
        }
    }
    let stats = generator.stats();
    assert_eq!(
        (stats.regressions, stats.toggles, stats.waits),
        (1, 1, 0),
        "{stats:?}"
    );
}

/// The cache follows its source back. Stepped back five seconds under a cache whose refresher
/// is held, the source is read precisely once: from then on every cached reading is of the new
/// time, never the old one again; with the refresher let go, too, on this thread and another;
/// and the readings move on with the source.
#[test]
fn the_cache_follows_its_source_back_after_a_precise_read() {
    let (source, clock, rig) = starved(T0);
    const STEPPED: u64 = T0 - 5_000;
    source.set(STEPPED);
    assert_eq!(clock.unix_ms(), T0, "nothing read the step yet");
    assert_eq!(clock.unix_ms_precise(), STEPPED);
    for _ in 0..1_000 {
        assert_eq!(
            clock.unix_ms(),
            STEPPED,
            "the precise reading was not published"
        );
    }

    rig.allow(REFRESHER, u64::MAX);
    let every_reading_is_stepped = || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(200) {
            assert_eq!(
                clock.unix_ms(),
                STEPPED,
                "the cache went back to the old time"
            );
        }
    };
    thread::scope(|s| {
        s.spawn(every_reading_is_stepped);
        every_reading_is_stepped();
    });
    source.advance(1);
    assert!(
        eventually(|| clock.unix_ms() == STEPPED + 1),
        "the cache does not move on after the step"
    );
}

/// The refresher follows its source back by itself: its read of the step publishes it over the
/// old time, with no precise read. Driven step by step through a held refresher.
#[test]
fn the_refresher_follows_its_source_back() {
    let (source, clock, rig) = starved(T0);
    const STEPPED: u64 = T0 - 5_000;
    source.set(STEPPED);
    // The held first read is of T0, the cached reading: it publishes nothing. The next begins
    // from a cached T0 and reads the step; the one after that is held, so the second is done.
    rig.allow(REFRESHER, 2);
    rig.wait_begun(REFRESHER, 3);
    assert_eq!(
        clock.unix_ms(),
        STEPPED,
        "the refresher did not publish the step back"
    );
}

/// A refresher whose reading is from before a step back, and which publishes it after a
/// precise reading of the step was published, loses: its compare-and-swap is from the word it
/// loaded before its read, which the precise reading replaced. Driven step by step through a
/// held refresher.
#[test]
fn a_refreshers_reading_from_before_a_step_back_never_replaces_the_step() {
    let (source, clock, rig) = starved(T0);
    // The held first read is of T0, the cached reading. Let it return with the source a
    // millisecond on and nothing published: the next read begins from a cached T0, reads
    // T0 + 1, and is held before it publishes.
    source.advance(1);
    rig.allow(REFRESHER, 1);
    rig.wait_begun(REFRESHER, 2);
    assert_eq!(clock.unix_ms(), T0, "nothing published T0 + 1");

    const STEPPED: u64 = T0 - 5_000;
    source.set(STEPPED);
    assert_eq!(clock.unix_ms_precise(), STEPPED);
    assert_eq!(clock.unix_ms(), STEPPED);

    // The refresher publishes T0 + 1, from T0, and loses; its next read is held again, so
    // whatever it did to the word is done.
    rig.allow(REFRESHER, 2);
    rig.wait_begun(REFRESHER, 3);
    assert_eq!(
        clock.unix_ms(),
        STEPPED,
        "a refresher's reading from before the step replaced it"
    );

    // Let go, it follows the source from the new time.
    rig.allow(REFRESHER, u64::MAX);
    source.advance(1);
    assert!(
        eventually(|| clock.unix_ms() == STEPPED + 1),
        "the refresher does not refresh after the step"
    );
}

/// The name of the thread whose read of the source the next test holds.
#[cfg(snowmint_test_hooks)]
const HELD_READER: &str = "held-reader";

/// As a refresher's, a precise reading from before a step back must never replace the step.
///
/// A reader finds the word `PARKED` (nobody read the clock for a few milliseconds), reads the
/// old time `T0` and is descheduled before its compare-and-swap. The source steps back five
/// seconds; a tick-tock generator's mint reads the step precisely (publishing it and waking
/// the refresher) and toggles to timeline 1 at the new time; nobody reads, and the refresher
/// parks again: the word is `PARKED` again. With sentinels that were one fixed value, the held
/// reader's compare-and-swap from `PARKED` then succeeded: the cache served `T0`, five seconds
/// ahead of its source, after the step was published, and the generator's next mint stamped
/// `T0` on timeline 1 (the defect of the regression test above, by another way in; the same
/// held for a reader that found `STALE` and a probe that wrote `STALE` again). Each sentinel
/// now carries a new generation, so the compare-and-swap fails and the reader reads the
/// source again: it returns the new time, and the word never goes back to `T0`.
#[test]
#[cfg(snowmint_test_hooks)]
fn a_precise_reading_from_before_a_step_back_never_replaces_the_step() {
    let (source, clock, rig) = rigged(T0);
    let generator = generator(
        SHORT_TT,
        clock.clone(),
        ClockBehind::TickTock { max_ms: 1_000 },
    );
    assert_eq!(at(&generator, generator.try_mint().unwrap()), (T0, 0));
    wait_parked(|| clock.wakeups());
    // `drive_word` loads the word with no side effect (a `unix_ms` of a parked clock would
    // publish a reading and wake the refresher).
    assert_eq!(clock.drive_word(), 1, "a parked refresher's word is PARKED");

    rig.hold(HELD_READER);
    thread::scope(|s| {
        let reader = thread::Builder::new()
            .name(HELD_READER.into())
            .spawn_scoped(s, || clock.unix_ms())
            .expect("a reader thread");
        // It loaded PARKED and read T0: held before its compare-and-swap.
        rig.wait_begun(HELD_READER, 1);

        const STEPPED: u64 = T0 - 5_000;
        source.set(STEPPED);
        let parts = generator.decode(generator.try_mint().unwrap()).unwrap();
        assert_eq!(
            (parts.timeline(), parts.unix_ms(), parts.sequence()),
            (Some(1), STEPPED, 0),
            "{parts:?}"
        );
        wait_parked(|| clock.wakeups());
        assert_eq!(clock.drive_word(), 1, "parked again");

        // Hold the refresher's reads too, so that once the reader wakes it only a probe can
        // change the word; let the reader publish, watching the word meanwhile.
        rig.hold(REFRESHER);
        // Its compare-and-swap from the sentinel it loaded fails (the word holds a later
        // one), so it reads the source a second time: let that read through too.
        rig.allow(HELD_READER, 2);
        let mut words = vec![clock.drive_word()];
        while !reader.is_finished() {
            let now = clock.drive_word();
            if words.last() != Some(&now) {
                words.push(now);
            }
        }
        assert_eq!(
            reader.join().expect("reader"),
            STEPPED,
            "the held reader published its reading from before the step"
        );
        let parts = generator.decode(generator.try_mint().unwrap()).unwrap();
        words.push(clock.drive_word());
        assert_eq!(
            (parts.timeline(), parts.unix_ms()),
            (Some(1), STEPPED),
            "an ID ahead of its source at {STEPPED} ms: {parts:?}; words: {words:?}"
        );
        assert!(
            !words.contains(&T0),
            "the word went back to the old time {T0} after the step to {STEPPED} was published: \
             {words:?}"
        );
    });
}

/// A private clock's refresher parks when nobody reads it, at most ten wake-ups a second, and
/// the next read wakes it; its readings then follow the source again.
#[test]
fn a_private_refresher_parks_when_nobody_reads_and_the_next_read_wakes_it() {
    let source = ManualClock::new(T0);
    let clock = CachedClock::new(source.clone());
    assert_eq!(clock.wakeups(), 0, "a refresher before the first read");
    assert_parks_then_wakes(|| clock.unix_ms(), || clock.wakeups());
    for ms in 1..=5 {
        source.advance(1);
        assert!(
            eventually(|| clock.unix_ms() == T0 + ms),
            "the reading does not follow the source"
        );
    }
}

/// A real cached clock for the threaded tests: over a `MonotonicClock` that slews rather than
/// going back, so that no reading of it is behind an earlier one, cached or precise, and the
/// bounds `check_threads` checks are exact.
fn real_cached_clock() -> CachedClock<Private<MonotonicClock>> {
    CachedClock::new(
        MonotonicClock::builder()
            .on_wall_clock_back(WallClockBack::Slew)
            .build(),
    )
}

/// What each thread of the threaded tests records per ID: the cached reading right before the
/// call and the source's reading right after it, in ms.
struct Minted {
    id: Id,
    time_ms: u64,
    cached_before: u64,
    source_after: u64,
}

/// Threads minting on a real cached clock, the ID checks shared by the threaded tests.
///
/// What the design guarantees for an ID's time, with a refresher that may be starved (more
/// busy threads than cores here), on a source that never goes back: at least the cached
/// reading taken before the call (a later cached reading is from a later source reading, and a
/// mint takes the later of its reading and the state's tick), and at most the source's reading
/// taken after it (every tick a generator mints in is a reading of the source, cached or
/// precise, taken before the mint returned). How far it is behind the source is not bounded:
/// the cache lags by as long as the refresher waits for a core, and only a full tick reads the
/// source.
fn check_threads(layout: &Layout, threads: Vec<Vec<Minted>>) {
    assert_unique_and_increasing(threads.iter().map(|minted| minted.iter().map(|m| m.id)));
    for minted in &threads {
        for m in minted {
            let tick = |ms: u64| layout.ticks_at(ms).expect("a time in the layout");
            assert!(
                tick(m.cached_before) <= tick(m.time_ms) && tick(m.time_ms) <= tick(m.source_after),
                "{:?} at {} ms: cached {} ms before, source {} ms after",
                m.id,
                m.time_ms,
                m.cached_before,
                m.source_after
            );
        }
    }
}

/// Eight threads (on two cores) mint from one generator on a real cached clock, 16 IDs per
/// tick so ticks fill and the precise path runs all the time: every ID unique, each thread's
/// strictly increasing, each ID's time within the bounds `check_threads` explains.
#[test]
fn threads_on_a_real_cached_clock() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 500;
    let clock = real_cached_clock();
    let generator = Generator::builder(BUSY)
        .node("machine", 5)
        .clock(clock.clone())
        .build()
        .unwrap();
    let threads: Vec<Vec<Minted>> = on_threads(THREADS, |t| {
        let mut minted = Vec::with_capacity(PER_THREAD);
        let mut buffer = [Id::from_u64(0); 3];
        while minted.len() < PER_THREAD {
            let cached_before = clock.unix_ms();
            // Mostly single mints, some batches.
            let ids = if (minted.len() + t) % 7 == 0 {
                let n = generator.mint_batch(&mut buffer).expect("mint_batch");
                &buffer[..n]
            } else {
                buffer[0] = generator.mint().expect("mint");
                &buffer[..1]
            };
            let source_after = clock.source().unix_ms();
            for &id in ids {
                let time_ms = generator.decode(id).unwrap().unix_ms();
                minted.push(Minted {
                    id,
                    time_ms,
                    cached_before,
                    source_after,
                });
            }
        }
        minted
    });
    check_threads(&BUSY, threads);
    assert!(
        generator.stats().overflows > 0,
        "no tick filled: the precise path never ran"
    );
}

/// The same through a `ShardedGenerator` whose four shards share the cached clock (each shard a
/// quarter of the sequence: 4 IDs per tick), eight threads: two per shard.
#[test]
fn sharded_threads_on_a_real_cached_clock() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 400;
    let clock = real_cached_clock();
    let generator = Generator::builder(BUSY)
        .node("machine", 5)
        .clock(clock.clone())
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    let threads: Vec<Vec<Minted>> = on_threads(THREADS, |_| {
        (0..PER_THREAD)
            .map(|_| {
                let cached_before = clock.unix_ms();
                let id = generator.mint().expect("mint");
                let source_after = clock.source().unix_ms();
                Minted {
                    id,
                    time_ms: BUSY.decode(id).unwrap().unix_ms(),
                    cached_before,
                    source_after,
                }
            })
            .collect()
    });
    check_threads(&BUSY, threads);
    assert!(
        generator.stats().overflows > 0,
        "no tick filled: the precise path never ran"
    );
}

/// A generator on a cached clock compares no fork count on its shortcut: the clock is
/// fork-fenced, so in a forked child the inherited generator's confirmed reading must never be
/// served again. Run for a shared generator and for a per-thread one (`build`, named `kind` in
/// `Forked`).
///
/// The parent's generator confirms its tick at `T0` on a driven clock (no refresher thread:
/// the word holds `T0` until the test moves it, and a probe when the fork copies it). The fork
/// marks the child's word parked, and the child reads the clock, whose source still reads
/// `T0`. Had that read published `T0` again, the inherited generator would step on its
/// confirmed tick and mint the parent's next ID (it did, with the fork check taken off the
/// shortcut and no floor under the child's word). The child's word must not take `T0`, so the
/// inherited generator fails with `Forked`; a reading past `T0` is cached again, and the
/// inherited generator still fails; a refresh after the source steps back to `T0` leaves the
/// word where it was.
#[cfg(all(unix, snowmint_test_hooks))]
fn a_child_never_gets_the_parent_s_confirmed_reading<S: State>(build: Build<S>, kind: &str) {
    let source = ManualClock::new(T0);
    let clock = CachedClock::driven(source.clone());
    let builder = Generator::builder(SHORT)
        .node("machine", 5)
        .clock(clock.clone());
    let generator = build(builder).expect("valid generator");
    assert!(publishes(&clock, T0), "the parent's word does not take T0");
    let first = generator.mint().expect("a mint at T0");
    // The word holds a probe, not T0, when the fork copies it: the child's floor is the
    // highest reading the word held, not what it holds.
    clock.drive_refresh(snowmint::clock::PROBE_EVERY);
    assert_eq!(clock.drive_word(), 0, "the parent's word holds a probe");
    let parent = std::process::id();
    let status = in_child(PATIENCE, || {
        if clock.drive_word() != 1 {
            return Err(format!(
                "the child's word is {}, not PARKED",
                clock.drive_word()
            ));
        }
        // Read precisely and returned, but not cached: the parent's word held T0.
        if clock.unix_ms() != T0 {
            return Err(format!("the child's clock reads {}", clock.unix_ms()));
        }
        is_forked("mint at T0", generator.mint(), kind, parent)?;
        if clock.drive_word() != 1 {
            return Err(format!("the child's word took {}", clock.drive_word()));
        }
        source.advance(1);
        if clock.unix_ms() != T0 + 1 || clock.drive_word() != T0 + 1 {
            return Err(format!(
                "the child's word holds {}, not T0 + 1",
                clock.drive_word()
            ));
        }
        is_forked("mint at T0 + 1", generator.mint(), kind, parent)?;
        // The source steps back to T0: a refresh must not give the word T0 either.
        source.set(T0);
        clock.drive_refresh(1);
        if clock.drive_word() != T0 + 1 {
            return Err(format!(
                "a refresh gave the child's word {}",
                clock.drive_word()
            ));
        }
        is_forked("mint after the step back", generator.mint(), kind, parent)
    });
    assert_eq!(status, 0, "see the child's stderr");
    // The parent's shortcut goes on from its confirmed tick.
    let next = generator.mint().expect("a mint at T0");
    assert_eq!(
        next.to_u64(),
        first.to_u64() + 1,
        "the parent's next ID on its tick"
    );
}

/// How a forking test builds its generator from a builder on the driven clock.
#[cfg(all(unix, snowmint_test_hooks))]
type Build<S> = fn(
    GeneratorBuilder<CachedClock<Private<ManualClock>>>,
) -> snowmint::Result<Generator<CachedClock<Private<ManualClock>>, S>>;

#[test]
#[cfg(all(unix, snowmint_test_hooks))]
fn a_forked_child_s_cached_clock_never_serves_a_reading_its_parent_s_local_generator_confirmed() {
    a_child_never_gets_the_parent_s_confirmed_reading(
        GeneratorBuilder::build_local,
        "LocalGenerator",
    );
}

#[test]
#[cfg(all(unix, snowmint_test_hooks))]
fn a_forked_child_s_cached_clock_never_serves_a_reading_its_parent_s_shared_generator_confirmed() {
    a_child_never_gets_the_parent_s_confirmed_reading(GeneratorBuilder::build, "Generator");
}

/// The floor holds through generations: a generator built and confirmed in a child, at a
/// reading only the child's word held, fails in the grandchild, whose clock reads that reading
/// again. The child's floor is the parent's `T0`, so its word takes `T0 + 1`; the
/// grandchild's floor is `T0 + 1`, so its word must not. Run for both kinds, as above.
#[cfg(all(unix, snowmint_test_hooks))]
fn a_grandchild_never_gets_the_child_s_confirmed_reading<S: State>(build: Build<S>, kind: &str) {
    let source = ManualClock::new(T0);
    let clock = CachedClock::driven(source.clone());
    assert!(publishes(&clock, T0), "the parent's word does not take T0");
    let status = in_child(PATIENCE, || {
        source.advance(1);
        if clock.unix_ms() != T0 + 1 || clock.drive_word() != T0 + 1 {
            return Err(format!("the child's word holds {}", clock.drive_word()));
        }
        let builder = Generator::builder(SHORT)
            .node("machine", 5)
            .clock(clock.clone());
        let generator = build(builder).map_err(|err| err.to_string())?;
        let first = generator.mint().map_err(|err| err.to_string())?;
        let child = std::process::id();
        let grandchild = in_child(PATIENCE, || {
            if clock.unix_ms() != T0 + 1 {
                return Err(format!("the grandchild's clock reads {}", clock.unix_ms()));
            }
            is_forked("mint at T0 + 1", generator.mint(), kind, child)?;
            if clock.drive_word() != 1 {
                return Err(format!("the grandchild's word took {}", clock.drive_word()));
            }
            Ok(())
        });
        if grandchild != 0 {
            return Err(format!(
                "the grandchild exited {grandchild} (see its stderr)"
            ));
        }
        let next = generator.mint().map_err(|err| err.to_string())?;
        if next.to_u64() != first.to_u64() + 1 {
            return Err(format!("the child's next ID is {next:?} after {first:?}"));
        }
        Ok(())
    });
    assert_eq!(status, 0, "see the child's stderr");
}

#[test]
#[cfg(all(unix, snowmint_test_hooks))]
fn a_grandchild_s_cached_clock_never_serves_a_reading_its_parent_s_local_generator_confirmed() {
    a_grandchild_never_gets_the_child_s_confirmed_reading(
        GeneratorBuilder::build_local,
        "LocalGenerator",
    );
}

#[test]
#[cfg(all(unix, snowmint_test_hooks))]
fn a_grandchild_s_cached_clock_never_serves_a_reading_its_parent_s_shared_generator_confirmed() {
    a_grandchild_never_gets_the_child_s_confirmed_reading(GeneratorBuilder::build, "Generator");
}

/// Reads `clock` until its word holds `reading`: a reading published while another test's
/// fork is being prepared is handed back (its refresher's wake-up goes to the next reader), so
/// one read may leave the word parked.
#[cfg(all(unix, snowmint_test_hooks))]
fn publishes(clock: &CachedClock<Private<ManualClock>>, reading: u64) -> bool {
    eventually(|| clock.unix_ms() == reading && clock.drive_word() == reading)
}

/// A private cached clock made in a forked child may take a slot whose marks a clock of the
/// parent raised (here the parent's clock at `T0` + 60 s, dropped in the child, frees its
/// slot): it starts unmarked, so its word takes its source's first reading at once, even one
/// below the readings the slot's old clock gave. The child takes every free slot, one clock
/// each, so one of them is the old clock's.
#[test]
#[cfg(all(unix, snowmint_test_hooks))]
fn a_slot_retaken_in_a_child_starts_with_no_floor() {
    let old = CachedClock::driven(ManualClock::new(T0 + 60_000));
    assert!(
        publishes(&old, T0 + 60_000),
        "the parent's word does not take its reading"
    );
    let status = in_child(PATIENCE, || {
        drop(old);
        let mut clocks = Vec::new();
        loop {
            let clock = CachedClock::driven(ManualClock::new(T0));
            let read = clock.unix_ms();
            match clock.drive_word() {
                // No slot was left: every one was taken below, the old clock's among them.
                2 => return Ok(()),
                word if read == T0 && word == T0 => clocks.push(clock),
                word => {
                    return Err(format!(
                        "the {}th new clock's word holds {word} after reading {read}",
                        clocks.len() + 1
                    ));
                }
            }
        }
    });
    assert_eq!(status, 0, "see the child's stderr");
}
