//! Async minting on Tokio: a full tick and a clock behind are waited out asleep on the
//! runtime's timer, so a 1 ms timer on the same thread stays on time; a future dropped mid-wait
//! loses nothing.
#![cfg(feature = "tokio")]

mod common;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
use snowmint::shard::Shards;
use snowmint::sno::{SnoGenerator, SnoId};
use snowmint::tokio::MintAsync;
use snowmint::{
    Attempt, ClockBehind, Error, Generator, Id, Layout, Mint, OnFull, clock::ManualClock,
};
use tokio::task::LocalSet;
use tokio::time::{MissedTickBehavior, timeout};

use common::asyncs::{IDS, MAX_LATE, Random, SteppedBack, TIMED, on_time};
use common::checks::{assert_increasing, assert_unique_and_increasing};
use common::clocks::{T0, on_manual_clock};
use common::files::TempDir;
#[cfg(unix)]
#[cfg(unix)]
use common::forks::is_forked;

/// Runs `work` on a current-thread runtime, beside a task whose 1 ms interval timer measures
/// how late each of its ticks is: `work`'s output, the greatest lateness, and the tick count.
fn beside_a_ticker<F: Future>(work: F) -> (F::Output, Duration, u32) {
    // One timed run at a time: the control's blocking mint would take a core from the others.
    let _alone = TIMED.lock().unwrap_or_else(PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    LocalSet::new().block_on(&runtime, async {
        let done = Rc::new(Cell::new(false));
        let ticker = tokio::task::spawn_local({
            let done = Rc::clone(&done);
            async move {
                let mut interval = tokio::time::interval(Duration::from_millis(1));
                interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
                let (mut late, mut ticks) = (Duration::ZERO, 0);
                while !done.get() {
                    let due = interval.tick().await;
                    late = late.max(due.elapsed());
                    ticks += 1;
                }
                (late, ticks)
            }
        });
        // Let the ticker start before the work does.
        tokio::task::yield_now().await;
        let output = work.await;
        done.set(true);
        let (late, ticks) = ticker.await.unwrap();
        (output, late, ticks)
    })
}

fn sonyflake() -> Generator {
    Generator::builder(Layout::SONYFLAKE)
        .node("machine", 1)
        .build()
        .unwrap()
}

#[test]
fn minting_at_ten_times_sonyflakes_capacity_leaves_a_1ms_timer_on_time() {
    on_time(|| {
        let generator = Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .build_local()
            .unwrap();
        let ((ids, took), late, ticks) = beside_a_ticker(async {
            let start = Instant::now();
            let mut ids = Vec::with_capacity(IDS);
            for _ in 0..IDS {
                ids.push(generator.mint_async().await.unwrap());
            }
            (ids, start.elapsed())
        });
        assert_increasing(&ids);
        // Nine tick boundaries at least, each waited for.
        assert!(took >= Duration::from_millis(80), "{IDS} IDs in {took:?}");
        assert!(ticks >= 40, "{ticks} ticks of the 1 ms timer in {took:?}");
        (late, ticks)
    });
}

#[test]
fn batches_leave_the_timer_on_time_too() {
    on_time(|| {
        let generator = sonyflake();
        let (ids, late, ticks) = beside_a_ticker(async {
            let mut ids = vec![Id::default(); IDS];
            let mut filled = 0;
            while filled < IDS {
                let written = generator
                    .mint_batch_async(&mut ids[filled..])
                    .await
                    .unwrap();
                assert!((1..=256).contains(&written), "{written} IDs in one batch");
                filled += written;
            }
            ids
        });
        assert_increasing(&ids);
        (late, ticks)
    });
}

/// The control: the same measure catches a mint that blocks its thread for a full tick, even
/// one that yields to the other task after every ID.
#[test]
fn a_blocking_mint_makes_the_same_timer_late() {
    let generator = sonyflake();
    let (ids, late, _) = beside_a_ticker(async {
        let mut ids = Vec::with_capacity(IDS);
        for _ in 0..IDS {
            ids.push(generator.mint().unwrap());
            tokio::task::yield_now().await;
        }
        ids
    });
    assert_increasing(&ids);
    assert!(
        late > MAX_LATE,
        "blocking mints left the timer late by only {late:?}"
    );
}

#[test]
fn a_clock_stepped_back_200ms_is_waited_out_asleep() {
    on_time(|| {
        let clock = SteppedBack::new();
        let generator = Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .clock(&clock)
            .on_clock_behind(ClockBehind::Wait { max_ms: 1_000 })
            .build_local()
            .unwrap();
        let ((before, after, took), late, ticks) = beside_a_ticker(async {
            let before = generator.mint_async().await.unwrap();
            clock.step_back(200);
            let start = Instant::now();
            let after = generator.mint_async().await.unwrap();
            (before, after, start.elapsed())
        });
        assert!(after > before);
        assert!(
            (Duration::from_millis(180)..Duration::from_millis(1_000)).contains(&took),
            "waited {took:?} for a clock 200 ms behind"
        );
        assert!(generator.stats().regressions >= 1);
        assert!(ticks >= 150, "{ticks} ticks of the 1 ms timer in {took:?}");
        (late, ticks)
    });
}

/// A generator on a manual clock at [`T0`] that has minted once, under `Wait { max_ms }`.
fn waiting(max_ms: u64) -> (Generator<ManualClock>, ManualClock) {
    let (generator, clock) = on_manual_clock(
        Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .on_clock_behind(ClockBehind::Wait { max_ms }),
        T0,
    );
    generator.mint().unwrap();
    (generator, clock)
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn a_regression_past_max_ms_is_the_blocking_mints_error_at_once() {
    let (generator, clock) = waiting(100);
    clock.set(T0 - 200);
    let start = Instant::now();
    let err = current_thread()
        .block_on(generator.mint_async())
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_millis(100));
    assert!(matches!(
        err,
        Error::ClockBehind {
            behind_ms: 200,
            max_wait_ms: 100,
            ..
        }
    ));
    assert_eq!(Err(err), generator.mint());
}

#[test]
fn a_clock_that_stays_behind_fails_after_max_ms_in_all() {
    let (generator, clock) = waiting(100);
    clock.set(T0 - 40);
    let start = Instant::now();
    let err = current_thread()
        .block_on(generator.mint_async())
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        (Duration::from_millis(100)..Duration::from_millis(1_000)).contains(&took),
        "gave up after {took:?}, expected 100 ms"
    );
    assert!(matches!(
        err,
        Error::ClockBehind {
            behind_ms: 40,
            max_wait_ms: 100,
            ..
        }
    ));
    assert_eq!(Err(err), generator.mint());
    // The clock catches up: minting goes on above the last ID.
    clock.set(T0 + 10);
    let id = current_thread().block_on(generator.mint_async()).unwrap();
    assert_eq!(Layout::SONYFLAKE.decode(id).unwrap().unix_ms(), T0 + 10);
}

#[test]
fn futures_dropped_mid_wait_lose_nothing() {
    let generator = sonyflake();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut random = Random(seed);
    let (ids, dropped) = current_thread().block_on(async {
        let (mut ids, mut dropped) = (Vec::new(), 0);
        let mut batch = [Id::default(); 100];
        for _ in 0..600 {
            // Up to 3 ms: often inside a wait for the next 10 ms tick.
            let within = Duration::from_micros(random.below(3_000));
            if random.below(2) == 0 {
                match timeout(within, generator.mint_async()).await {
                    Ok(id) => ids.push(id.unwrap()),
                    Err(_) => dropped += 1,
                }
            } else {
                match timeout(within, generator.mint_batch_async(&mut batch)).await {
                    Ok(written) => ids.extend_from_slice(&batch[..written.unwrap()]),
                    Err(_) => dropped += 1,
                }
            }
        }
        // Minting resumes where it stopped.
        ids.push(generator.mint_async().await.unwrap());
        (ids, dropped)
    });
    assert!(dropped > 0, "no future was dropped (seed {seed})");
    assert_unique_and_increasing([ids.iter().copied()]);
    assert!(generator.mint().unwrap() > *ids.last().unwrap());
}

/// A generator on a manual clock whose non-waiting attempts are recorded, and whose clock
/// moves on by each wait answered, as the time the task then sleeps.
struct Recorded {
    generator: Generator<ManualClock>,
    clock: ManualClock,
    answers: RefCell<Vec<Attempt<()>>>,
}

impl Recorded {
    fn answer<T>(&self, attempt: Result<Attempt<T>, Error>) -> Result<Attempt<T>, Error> {
        if let Ok(answer) = &attempt {
            let answer = match answer {
                Attempt::Minted(_) => Attempt::Minted(()),
                Attempt::Wait(wait) => {
                    self.clock.advance(wait.as_millis() as u64);
                    Attempt::Wait(*wait)
                }
            };
            self.answers.borrow_mut().push(answer);
        }
        attempt
    }
}

impl Mint for Recorded {
    type Id = Id;

    fn mint_run(&self, out: &mut [Id], on_full: OnFull) -> Result<Attempt<usize>, Error> {
        match on_full {
            OnFull::Answer => self.answer(self.generator.mint_run(out, on_full)),
            OnFull::Wait | OnFull::Fail => self.generator.mint_run(out, on_full),
        }
    }
}

#[test]
fn a_full_tick_met_by_a_clock_behind_is_slept_out_once() {
    let (generator, clock) = on_manual_clock(
        Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .on_clock_behind(ClockBehind::Wait { max_ms: 50 }),
        T0,
    );
    let recorded = Recorded {
        generator,
        clock,
        answers: RefCell::new(Vec::new()),
    };
    let mut tick = [Id::default(); 256];
    assert_eq!(recorded.generator.mint_batch(&mut tick).unwrap(), 256);
    // The tick is full and the clock reads 2 ms before it: the next 10 ms tick is 12 ms away.
    recorded.clock.set(T0 - 2);
    let id = current_thread().block_on(recorded.mint_async()).unwrap();
    assert!(id > tick[255]);
    assert_eq!(
        recorded.answers.take(),
        [
            Attempt::Wait(Duration::from_millis(12)),
            Attempt::Minted(())
        ]
    );
    let mut batch = [Id::default(); 300];
    recorded.clock.set(T0 + 10);
    recorded.generator.mint_batch(&mut batch).unwrap();
    recorded.clock.set(T0 + 5);
    let written = current_thread()
        .block_on(recorded.mint_batch_async(&mut batch))
        .unwrap();
    assert!(written > 0 && batch[0] > id);
    assert_eq!(
        recorded.answers.take(),
        [
            Attempt::Wait(Duration::from_millis(15)),
            Attempt::Minted(())
        ]
    );
}

/// Mints `n` IDs with `mint_async`, across full ticks.
async fn across_ticks<G: MintAsync>(generator: &G, n: usize) -> Vec<G::Id> {
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(generator.mint_async().await.unwrap());
    }
    ids
}

#[test]
fn every_generator_mints_across_full_ticks() {
    let dir = TempDir::new("async-tokio");
    current_thread().block_on(async {
        assert_increasing(&across_ticks(&sonyflake(), 600).await);
        let local = Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .build_local()
            .unwrap();
        assert_increasing(&across_ticks(&local, 600).await);
        let sharded = Generator::builder(Layout::SONYFLAKE)
            .node("machine", 1)
            .build_sharded(Shards::SplitSequence(2))
            .unwrap();
        assert_increasing(&across_ticks(&sharded, 300).await);
        let file = MarkFile::open(dir.join("mark"), Duration::from_secs(1)).unwrap();
        let inner = file
            .resume(Layout::SONYFLAKE)
            .node("machine", 1)
            .build()
            .unwrap();
        let marked = MarkedGenerator::<_, MarkFileStore>::new(inner, file).unwrap();
        assert_increasing(&across_ticks(&marked, 600).await);
        let sno = SnoGenerator::builder()
            .partition(7)
            .sequence_range(0..=99)
            .build()
            .unwrap();
        let ids: Vec<SnoId> = across_ticks(&sno, 300).await;
        assert_increasing(&ids);
    });
}

#[test]
fn a_shared_generators_futures_are_send() {
    let generator = Arc::new(sonyflake());
    let ids = current_thread().block_on(async {
        let tasks: Vec<_> = (0..2)
            .map(|_| {
                let generator = Arc::clone(&generator);
                tokio::spawn(async move {
                    let mut ids = [Id::default(); 300];
                    let mut filled = 0;
                    while filled < ids.len() {
                        filled += generator
                            .mint_batch_async(&mut ids[filled..])
                            .await
                            .unwrap();
                    }
                    ids
                })
            })
            .collect();
        let mut all = Vec::new();
        for task in tasks {
            all.push(task.await.unwrap());
        }
        all
    });
    assert_unique_and_increasing(ids.iter().map(|ids| ids.iter().copied()));
}

/// A generator inherited across `fork()` fails in the child through the async methods too, at
/// once: `Error::Forked` is not an error the retry loop sleeps on.
#[cfg(unix)]
#[test]
fn an_inherited_generator_fails_at_once_in_a_forked_child() {
    let parent = std::process::id();
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let sno = SnoGenerator::builder().partition(1).build().unwrap();
    let before = generator.mint().unwrap();
    let status = common::forks::in_child(std::time::Duration::from_secs(30), || {
        let at_once = Duration::from_secs(1);
        current_thread().block_on(async {
            let late = |what: &str| format!("{what} was still pending after {at_once:?}");
            let mut out = [Id::default(); 4];
            let minted = timeout(at_once, generator.mint_async()).await;
            is_forked(
                "mint_async",
                minted.map_err(|_| late("mint_async"))?,
                "Generator",
                parent,
            )?;
            let minted = timeout(at_once, generator.mint_batch_async(&mut out)).await;
            let minted = minted.map_err(|_| late("mint_batch_async"))?;
            is_forked("mint_batch_async", minted, "Generator", parent)?;
            let minted = timeout(at_once, sno.mint_async()).await;
            let minted = minted.map_err(|_| late("sno mint_async"))?;
            is_forked("sno mint_async", minted, "SnoGenerator", parent)
        })
    });
    assert_eq!(status, 0, "see the child's stderr");
    assert!(generator.mint().unwrap() > before);
}
