//! A generator on a `CachedClock`: what it reads precisely, and what a stale cached reading
//! costs and does not cost.
//!
//! Most tests starve the refresh thread on purpose: a `ManualClock` source refreshed once an
//! hour, so the cached reading moves only when the generator reads the source precisely (a full
//! tick, a reading behind the state, a wait for a regression) and every step is exact. Their
//! layouts have a 2-bit sequence, so four mints fill a tick and the precise paths run often.
//! The last tests run eight threads (more than most CI machines have cores) on a real
//! `CachedClock::monotonic()`, with 16 IDs per tick.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use snowmint::{
    CachedClock, Clock, ClockBehind, Error, Generator, Id, Layout, ManualClock, Shards,
};

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
const T0: u64 = 1_700_000_000_000;
/// A refresh interval no test outlives: the thread never refreshes during a test.
const HOUR: Duration = Duration::from_secs(3_600);

type Cached = CachedClock<ManualClock>;

/// A source at `unix_ms` and a cache of it whose refresh thread never runs during a test.
fn starved(unix_ms: u64) -> (ManualClock, Cached) {
    let source = ManualClock::new(unix_ms);
    let clock = CachedClock::with_refresh(source.clone(), HOUR).expect("refresh thread");
    (source, clock)
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
    (parts.timestamp_ms(), parts.sequence())
}

/// Mints `PER_TICK` IDs with `try_mint`, all of which must land on `unix_ms`; the tick is then
/// full.
fn fill<C: Clock>(generator: &Generator<C>, unix_ms: u64) {
    for _ in 0..PER_TICK {
        let id = generator.try_mint().expect("a tick with room");
        assert_eq!(at(generator, id).0, unix_ms);
    }
}

/// `mint()`, which the caller expects not to wait: if it does wait (`stats().waits` grows), a
/// watcher unsticks it with a precise read of the clock, which refreshes the cache, so a
/// generator that waits on a stale reading fails the caller's assertion instead of hanging.
/// Returns the result and whether the call waited.
fn mint_expecting_no_wait(generator: &Generator<Cached>) -> (Result<Id, Error>, bool) {
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

/// With the refresh thread starved, a full tick reads the source: once the source has moved on,
/// `try_mint` and `mint` mint on the source's new tick at once (no `SequenceExhausted`, no
/// wait), not on the stale cached one.
#[test]
fn a_full_tick_moves_to_the_sources_tick_with_a_starved_refresh() {
    let (source, clock) = starved(T0);
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

/// With the refresh thread starved, every tick still holds its whole sequence: over many ticks
/// each gets exactly `PER_TICK` IDs (then `SequenceExhausted` for that tick, a tick's wait
/// away), whether its first ID comes from `mint`, `try_mint` or `mint_batch`.
#[test]
fn capacity_is_the_whole_sequence_every_tick_with_a_starved_refresh() {
    let (source, clock) = starved(T0);
    let generator = generator(SHORT, clock, ClockBehind::Error);
    let mut seen = HashSet::new();
    let mut last = None;
    const TICKS: u64 = 60;
    for tick in 0..TICKS {
        let unix_ms = T0 + tick;
        let mut ids = Vec::new();
        match tick % 3 {
            0 => ids.push(generator.try_mint().expect("a new tick has room")),
            1 => {
                let mut buffer = [Id::from_u64(0); PER_TICK as usize + 2];
                let written = generator.try_mint_batch(&mut buffer).expect("a batch");
                ids.extend_from_slice(&buffer[..written]);
            }
            _ => {
                let (result, waited) = mint_expecting_no_wait(&generator);
                assert!(!waited, "mint waited at tick {tick}");
                ids.push(result.expect("mint"));
            }
        }
        while let Ok(id) = generator.try_mint() {
            ids.push(id);
        }
        let sequences: Vec<(u64, u64)> = ids.iter().map(|&id| at(&generator, id)).collect();
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

/// The accuracy a starved cache costs: IDs carry the cached reading, however far the source has
/// moved, until their tick fills; the full tick reads the source, which also refreshes the
/// cache, and minting continues on the source's tick. So the lag of an ID's time behind the
/// source is at most what the cache lags by, and it ends at the first full tick.
#[test]
fn ids_carry_the_cached_time_until_a_tick_fills() {
    let (source, clock) = starved(T0);
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
/// resumed on a cache that has not caught up with its state (the refresh thread starved) reads
/// the source, mints on, and counts nothing, under `ClockBehind::Error`.
///
/// (On one `CachedClock` alone the state never gets ahead of the cache: every precise read
/// raises the cache before the state moves to it. A state from elsewhere, resumed, does; the
/// next test drives a clock whose precise reads do not raise its lagging one.)
#[test]
fn a_cached_reading_behind_a_resumed_state_is_not_a_regression() {
    let (source, clock) = starved(T0);
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
/// the lagging one (a cache only its own timer refreshes): the generator's state then runs
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

/// A real step back of the source is reported. The cache never goes back, so while the state's
/// tick has room the generator mints on it from the cached reading; the full tick reads the
/// source, which is behind: `Error::ClockBehind`, measured from the source, and a regression
/// counted, at every attempt until the source is back. With a cache that is stale as well
/// (behind the state, behind the source), the first mint reads the source and reports it.
#[test]
fn a_step_back_of_the_source_is_a_regression() {
    let (source, clock) = starved(T0 + 5);
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
                    behind_ms: 4,
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
    let (source, clock) = starved(T0);
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

/// A wait for a regression reads the source: it ends when the source catches up, however
/// stale the cache (which the starved thread never refreshes).
#[test]
fn a_wait_for_a_regression_ends_when_the_source_catches_up() {
    let (source, clock) = starved(T0);
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
    let (source, clock) = starved(T0 + 5);
    let generator = generator(SHORT_TT, clock, ClockBehind::TickTock { max_ms: 0 });
    fill(&generator, T0 + 5);
    source.set(T0 + 1);
    let id = generator.try_mint().expect("toggle to the other timeline");
    let parts = generator.decode(id).unwrap();
    assert_eq!(
        (parts.timeline(), parts.timestamp_ms(), parts.sequence()),
        (Some(1), T0 + 1, 0),
        "{parts:?}"
    );
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.toggles), (1, 1), "{stats:?}");
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
/// What the design guarantees for an ID's time, with a refresh thread that may be starved
/// (more busy threads than cores here): at least the cached reading taken before the call (the
/// cache never goes back, and a mint takes the later of its reading and the state's tick), and
/// at most the source's reading taken after it (every tick a generator mints in is a reading of
/// the source, cached or precise, taken before the mint returned). How far it is behind the
/// source is not bounded: the cache lags by as long as the refresh thread waits for a core,
/// and only a full tick reads the source. The upper bound allows one tick of slack: the
/// default clock may step back by microseconds when it re-anchors to the wall clock (once a
/// second), and a cached reading taken before that step can then be a tick ahead of one
/// taken after it.
fn check_threads(layout: &Layout, threads: Vec<Vec<Minted>>) {
    let mut seen = HashSet::new();
    for minted in &threads {
        for pair in minted.windows(2) {
            assert!(
                pair[0].id < pair[1].id,
                "{:?} then {:?}",
                pair[0].id,
                pair[1].id
            );
        }
        for m in minted {
            assert!(seen.insert(m.id), "{:?} minted twice", m.id);
            let tick = |ms: u64| layout.ticks_at(ms).expect("a time in the layout");
            assert!(
                tick(m.cached_before) <= tick(m.time_ms)
                    && tick(m.time_ms) <= tick(m.source_after) + 1,
                "{:?} at {} ms: cached {} ms before, source {} ms after",
                m.id,
                m.time_ms,
                m.cached_before,
                m.source_after
            );
        }
    }
}

/// Eight threads (on two cores) mint from one generator on `CachedClock::monotonic()`, 16 IDs
/// per tick so ticks fill and the precise path runs all the time: every ID unique, each
/// thread's strictly increasing, each ID's time within the bounds `check_threads` explains.
#[test]
fn threads_on_a_real_cached_clock() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 500;
    let clock = CachedClock::monotonic().expect("refresh thread");
    let generator = Generator::builder(BUSY)
        .node("machine", 5)
        .clock(clock.clone())
        .build()
        .unwrap();
    let threads: Vec<Vec<Minted>> = thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (generator, clock) = (&generator, &clock);
                s.spawn(move || {
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
                            let time_ms = generator.decode(id).unwrap().timestamp_ms();
                            minted.push(Minted {
                                id,
                                time_ms,
                                cached_before,
                                source_after,
                            });
                        }
                    }
                    minted
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
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
    let clock = CachedClock::monotonic().expect("refresh thread");
    let generator = Generator::builder(BUSY)
        .node("machine", 5)
        .clock(clock.clone())
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    let threads: Vec<Vec<Minted>> = thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let (generator, clock) = (&generator, &clock);
                s.spawn(move || {
                    (0..PER_THREAD)
                        .map(|_| {
                            let cached_before = clock.unix_ms();
                            let id = generator.mint().expect("mint");
                            let source_after = clock.source().unix_ms();
                            Minted {
                                id,
                                time_ms: BUSY.decode(id).unwrap().timestamp_ms(),
                                cached_before,
                                source_after,
                            }
                        })
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    check_threads(&BUSY, threads);
    assert!(
        generator.stats().overflows > 0,
        "no tick filled: the precise path never ran"
    );
}
