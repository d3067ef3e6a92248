//! Loom models of the real `CachedClock`: its publication protocol, its park protocol, and a
//! tick-tock generator reading it while the source steps back.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release --test cached
//! ```
//!
//! Every model runs the library's own code: a `CachedClock::driven` over a `ManualClock`
//! source (under `--cfg snowmint_loom` its word, lock and thread handle are loom's, through
//! `src/sync.rs`). No thread is ever started by the clock: a model thread plays the
//! refresher, calling `drive_refresh(wake)` for the wake-ups it is given (every fourth is a
//! probe, which writes `STALE`), and, in the park models, `drive_attach` so that a reader that
//! replaces `PARKED` unparks it. Times are milliseconds after [`BASE`], a recent Unix
//! millisecond (and the generator models' ticks); the word is read with `drive_word`.
//!
//! What each model proves, in every interleaving explored:
//!
//! 1. [`a_stale_refresh_never_replaces_a_precise_reading`]: the cache follows its source back.
//!    A refresher's reading from before a step back never overwrites a precise reading from
//!    after it (every publication is a compare-and-swap from the value loaded before the
//!    source was read), so a thread that returned a precise reading of the new time, and a
//!    thread that synchronizes with it, never read the pre-step time from the cache again.
//! 2. [`an_answered_probe_never_revives_a_reading_from_before_a_step_back`]: the same with the
//!    refresher probing twice, so that a reader answers a probe with a precise reading taken
//!    before the step back: a later probe never lets it in (no sentinel is written twice).
//! 3. [`a_cached_reading_is_never_ahead_of_a_later_precise_one`]: while the source only moves
//!    forward, a precise reading is never behind a cached one read before it (the `Clock`
//!    contract the generator relies on before it calls a reading a regression).
//! 4. [`a_reader_keeps_the_refresher_awake_or_wakes_it`] and
//!    [`two_readers_wake_the_refresher_once`]: no lost wake-up. After a probe, the refresher's
//!    next wake-up parks only by a compare-and-swap from `STALE`; a reader's precise reading
//!    either makes that swap fail (the refresher stays awake) or replaces `PARKED` and unparks
//!    it. Loom reports a refresher parked for ever as a deadlock; each model ends with the
//!    refresher seeing the reader's reading, which is the source's.
//! 5. [`tick_tock_on_a_cached_clock_never_carries_the_old_tick`] and
//!    [`tick_tock_from_a_full_tick_on_a_cached_clock`]: a `Generator` under
//!    `ClockBehind::TickTock { max_ms: 0 }` on the cached clock, two minting threads and the
//!    refresher, the source stepped back from tick 11 to 10: IDs unique, increasing per
//!    thread on each timeline, and no ID on timeline 1 carries tick 11, the time from before
//!    the step.
#![cfg(snowmint_loom)]

use std::collections::HashSet;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::thread;

use snowmint::clock::{CachedClock, ManualClock, Private, Step};
use snowmint::{Clock, ClockBehind, Error, Generator, Layout};

mod common;

use common::{MACHINE, Minted, minted, model};

/// The cached clock every model drives.
type Cached = CachedClock<Private<ManualClock>>;

/// What `drive_word` shows below this is not a reading: 0 (`STALE`), 1 (`PARKED`) or 2
/// (`UNCACHED`).
const FIRST_READING: u64 = 3;

/// Where the models' time starts: a recent Unix millisecond (the cache keeps only readings
/// from 2004 on). Model times are offsets from it.
const BASE: u64 = 1_700_000_000_000;

/// The Unix millisecond `t` milliseconds after [`BASE`].
const fn at(t: u64) -> u64 {
    BASE + t
}

/// A driven cached clock over a source at `unix_ms`, with that reading published (a first
/// read replaces `PARKED`; no refresher is attached, so nothing is woken).
fn published(unix_ms: u64) -> (ManualClock, Cached) {
    let source = ManualClock::new(unix_ms);
    let clock = CachedClock::driven(source.clone());
    assert_eq!(clock.unix_ms(), unix_ms);
    assert_eq!(clock.drive_word(), unix_ms);
    (source, clock)
}

/// A refresher's wake-ups `wakes`, until one parks.
fn refresh(clock: &Cached, wakes: &[u64]) {
    for &wake in wakes {
        match clock.drive_refresh(wake) {
            Step::Refreshed => {}
            Step::Park => return,
            Step::Exit => panic!("a driven clock over a ManualClock never exits"),
        }
    }
}

/// The publication race of models 1 and 2: the cache shows 19 and the source has moved on to
/// 20 unrefreshed; the refresher runs `wakes`; thread S steps the source back to 10, takes a
/// precise reading, then a cached one; thread R reads the cache, then a flag S raises after
/// its precise reading, then the cache again.
///
/// S's precise reading is 10 (only S stores to the source after the setup) and so is its
/// cached reading after it: nothing published after it carries 19 or 20. R reads 19, 20 or 10
/// first; once it has read 10, or has seen S's flag, it reads 10.
fn publish_race(wakes: &'static [u64]) {
    model(move || {
        let (source, clock) = published(at(19));
        source.set(at(20));
        let flag = Arc::new(AtomicU64::new(0));

        let refresher = {
            let clock = clock.clone();
            thread::spawn(move || refresh(&clock, wakes))
        };
        let stepper = {
            let (clock, source, flag) = (clock.clone(), source.clone(), flag.clone());
            thread::spawn(move || {
                source.set(at(10));
                let precise = clock.unix_ms_precise();
                assert_eq!(precise, at(10), "a precise reading after the step back");
                // Release: R, acquiring it, is ordered after the precise reading's publication.
                flag.store(precise, Ordering::Release);
                let cached = clock.unix_ms();
                assert_eq!(
                    cached,
                    at(10),
                    "read {cached} from the cache after publishing the precise {precise}"
                );
            })
        };
        let reader = {
            let (clock, flag) = (clock.clone(), flag.clone());
            thread::spawn(move || {
                let first = clock.unix_ms();
                assert!([at(19), at(20), at(10)].contains(&first), "read {first}");
                let seen = flag.load(Ordering::Acquire);
                let second = clock.unix_ms();
                assert!(
                    (first != at(10) && seen != at(10)) || second == at(10),
                    "read {second} from the cache after reading {first} and S's precise {seen}"
                );
            })
        };
        refresher.join().unwrap();
        stepper.join().unwrap();
        reader.join().unwrap();
        let word = clock.drive_word();
        assert!(
            word == at(10) || word < FIRST_READING,
            "the cache ends at {word}, the source at {}",
            at(10)
        );
    });
}

/// Model 1: a refresher's reading from before a step back never replaces a precise reading
/// from after it.
///
/// The race of [`publish_race`] with the refresher refreshing once (wake-up 1, no probe). The
/// interleaving this is for: the refresher loads 19 and reads the source's 20; S steps back
/// and publishes 10 from 19; the refresher's compare-and-swap from 19 fails, and its 20 is
/// dropped. (A publication that only ever raised the word, as `fetch_max` does, would leave
/// 20 in the cache, and S would read it.)
#[test]
fn a_stale_refresh_never_replaces_a_precise_reading() {
    publish_race(&[1]);
}

/// Model 2: the race of [`publish_race`] with the refresher probing at wake-ups 4 and 8, so
/// that R's first read may find `STALE` and answer the probe with a precise reading of its
/// own, which may be the source's 20 from before the step. (The wake-ups between, 5 to 7,
/// are left out: they read the source, and do nothing when the cache already shows it.)
///
/// The interleaving this is for: R finds the first probe's `STALE` and reads the source's 20;
/// S steps back and answers the probe with 10; the second probe replaces S's 10 with `STALE`
/// again. Were the two probes' words equal, R's compare-and-swap would succeed and publish 20
/// after 10, and R, having seen S's flag, would read 20 from the cache. Each probe writes a
/// sentinel of a new generation, so R's swap fails and R reads the source again.
#[test]
fn an_answered_probe_never_revives_a_reading_from_before_a_step_back() {
    publish_race(&[4, 8]);
}

/// Model 3: while the source only moves forward, a precise reading is never behind a cached
/// one read before it.
///
/// The cache and the source show 10; one thread moves the source to 11 while the refresher
/// refreshes once; a third reads the cache, then precisely. If it read the refresher's 11, the
/// source reads 11 too: the refresher's publication is `Release` and the reader's load
/// `Acquire`, so the reader sees the source reading the cached one came from.
#[test]
fn a_cached_reading_is_never_ahead_of_a_later_precise_one() {
    model(|| {
        let (source, clock) = published(at(10));
        let handles = [
            thread::spawn(move || source.set(at(11))),
            {
                let clock = clock.clone();
                thread::spawn(move || refresh(&clock, &[1]))
            },
            thread::spawn(move || {
                let cached = clock.unix_ms();
                let precise = clock.unix_ms_precise();
                assert!(
                    cached <= precise,
                    "read the cached {cached}, then the source {precise}: the source never \
                     went back"
                );
            }),
        ];
        for handle in handles {
            handle.join().unwrap();
        }
    });
}

/// The park race of models 4 and 5: the cache shows 20, the source 21 (not refreshed yet),
/// and the probe of wake-up 4 has replaced 20 with `STALE` (run before the race, so that every
/// read of the race comes after it: a read before the probe would rightly let the refresher
/// park for good). The refresher attaches, wakes a fifth time (parking if the probe is still
/// unanswered) and, if it parked, parks until `drive_still_parked` says a reader replaced
/// `PARKED`; then it must see 21, the readers' reading. `readers` threads each read the cache
/// once, which must give 21.
fn park_race(readers: usize) {
    model(move || {
        let (source, clock) = published(at(20));
        source.set(at(21));
        assert_eq!(clock.drive_refresh(4), Step::Refreshed);
        assert_eq!(clock.drive_word(), 0, "the probe wrote STALE");

        let refresher = {
            let clock = clock.clone();
            thread::spawn(move || {
                clock.drive_attach();
                match clock.drive_refresh(5) {
                    // A reader answered the probe first: the swap to PARKED failed.
                    Step::Refreshed => {}
                    Step::Park => {
                        while clock.drive_still_parked() {
                            thread::park();
                        }
                    }
                    Step::Exit => panic!("a driven clock over a ManualClock never exits"),
                }
                let word = clock.drive_word();
                assert_eq!(
                    word,
                    at(21),
                    "the refresher woke to {word}, not the reader's"
                );
            })
        };
        let readers: Vec<_> = (0..readers)
            .map(|_| {
                let clock = clock.clone();
                thread::spawn(move || {
                    let read = clock.unix_ms();
                    assert_eq!(read, at(21), "a reader after the probe read {read}");
                })
            })
            .collect();
        refresher.join().unwrap();
        for reader in readers {
            reader.join().unwrap();
        }
    });
}

/// Model 4: one reader races the refresher's wake-up after a probe: it answers the probe (the
/// refresher's swap to `PARKED` fails), or it finds `PARKED`, replaces it and unparks the
/// refresher (whose park returns at once if the unpark came first). Never a refresher parked
/// with a reader's reading in the word.
#[test]
fn a_reader_keeps_the_refresher_awake_or_wakes_it() {
    park_race(1);
}

/// Model 5: model 4 with two readers. Both may read the source; the one whose swap loses
/// tries again from the winner's value, which is the same reading, and publishes nothing. At
/// most one replaces `PARKED`, and that one wakes the refresher.
#[test]
fn two_readers_wake_the_refresher_once() {
    park_race(2);
}

/// Toggle when the other timeline allows it, else fail at once: no thread ever waits.
const POLICY: ClockBehind = ClockBehind::TickTock { max_ms: 0 };

/// 4 IDs per tick: time, the tick-tock bit, a 2-bit machine field, a 2-bit sequence; 1 ms
/// ticks from [`BASE`], so tick `t` is the millisecond [`at`]`(t)`.
fn tiny_tt() -> Layout {
    Layout::builder("tiny-tt", 64)
        .time(59)
        .tick_tock()
        .node("machine", 2)
        .sequence(2)
        .epoch_ms(BASE)
        .build()
        .expect("valid layout")
}

/// The generator race of models 6 and 7: a generator on [`tiny_tt`] over a cached clock whose
/// source and cache show tick 11, with `setup` IDs minted there on timeline 0. Thread A steps
/// the source back to 10 and `try_mint`s; thread B `try_mint`s `b_mints` times; the refresher
/// refreshes once (wake-up 1), publishing 10 if it reads the source after A's step.
///
/// Checked: each call returns an ID, or `SequenceExhausted` for tick 11 (full, and the source
/// still there); never `ClockBehind` (timeline 1 only ever mints at 10, the source's lowest
/// reading); no ID repeats across the setup and the race; each thread's IDs
/// strictly increase on each timeline; every ID of the race is at tick 11 on timeline 0 or at
/// tick 10 on timeline 1, never at 11 on timeline 1 (a reading of 11 taken before the toggle
/// used on the toggled timeline), never at 10 on timeline 0; a toggle happened iff an ID is on
/// timeline 1. Returns the race's IDs.
fn generator_race(setup: usize, b_mints: usize) -> Vec<Minted> {
    let layout = tiny_tt();
    let (source, clock) = published(at(11));
    let generator = Generator::builder(layout)
        .node("machine", MACHINE)
        .clock(clock.clone())
        .on_clock_behind(POLICY)
        .build()
        .expect("valid generator");
    let generator = Arc::new(generator);
    let before: Vec<u64> = (0..setup)
        .map(|_| generator.try_mint().expect("setup mint").to_u64())
        .collect();
    assert!(before.iter().all(|&id| minted(&layout, id).tick == 11));

    let refresher = {
        let clock = clock.clone();
        thread::spawn(move || refresh(&clock, &[1]))
    };
    let a = {
        let generator = generator.clone();
        thread::spawn(move || {
            source.set(at(10));
            vec![generator.try_mint()]
        })
    };
    let b = {
        let generator = generator.clone();
        thread::spawn(move || (0..b_mints).map(|_| generator.try_mint()).collect())
    };
    refresher.join().unwrap();
    let results = [a.join().unwrap(), b.join().unwrap()];

    let mut seen: HashSet<u64> = before.iter().copied().collect();
    let mut race = Vec::new();
    for thread_results in &results {
        let mut last = [None; 2];
        for result in thread_results {
            let id = match result {
                Ok(id) => id.to_u64(),
                Err(Error::SequenceExhausted { tick: 11, .. }) => continue,
                Err(other) => panic!("unexpected error {other:?}: {results:?}"),
            };
            let m = minted(&layout, id);
            assert!(seen.insert(id), "{m:?} minted twice: {results:?}");
            assert!(
                matches!((m.tick, m.timeline), (11, 0) | (10, 1)),
                "{m:?}: only 11 on timeline 0 and 10 on timeline 1: {results:?}"
            );
            let timeline = m.timeline as usize;
            assert!(
                last[timeline].is_none_or(|last| last < id),
                "{m:?} not above the thread's last id on its timeline: {results:?}"
            );
            last[timeline] = Some(id);
            race.push(m);
        }
    }
    let toggles = generator.stats().toggles;
    assert_eq!(
        toggles > 0,
        race.iter().any(|m| m.timeline == 1),
        "{toggles} toggles: {race:?}"
    );
    assert!(toggles <= 1, "{toggles} toggles: {race:?}");
    race
}

/// Model 6: a tick-tock generator on a cached clock never carries the old tick onto the new
/// timeline.
///
/// One ID at tick 11 before the race, so tick 11 has room, and B mints twice: a mint reading
/// the cache's 11 mints there on timeline 0; one reading 10 (the refresher's publication, or a
/// precise reading after a reading behind the state) toggles to timeline 1 at 10. The
/// interleaving this is for: B reads the cache's 11 and loses its compare-and-swap to A's
/// toggle; it must read the clock again (10: the word showed 10 before A toggled, so B's
/// precise reading, after acquiring A's state, is 10) and mint at 10 on timeline 1, not at 11.
/// No call fails.
#[test]
fn tick_tock_on_a_cached_clock_never_carries_the_old_tick() {
    model(|| {
        let race = generator_race(1, 2);
        assert_eq!(race.len(), 3, "every mint succeeds: {race:?}");
    });
}

/// Model 7: model 6 from a full tick, B minting once: four IDs at tick 11 before the race, so
/// every mint that reads 11 finds the tick full and reads the source precisely. It gives up with
/// `SequenceExhausted` for tick 11 if the source still reads 11; if it reads 10, behind the
/// state, the pass ends and the next one starts from a precise reading: a toggle to timeline 1
/// at 10, or a mint after another thread's toggle.
#[test]
fn tick_tock_from_a_full_tick_on_a_cached_clock() {
    model(|| {
        let race = generator_race(4, 1);
        assert!(
            race.iter().all(|m| (m.tick, m.timeline) == (10, 1)),
            "{race:?}"
        );
    });
}
