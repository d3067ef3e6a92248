//! Async minting on smol's timer (`async-io`): a full tick and a clock behind are waited out
//! asleep, so a 1 ms timer on the same thread stays on time; a future dropped mid-wait loses
//! nothing. The runtime-independent checks (errors, every generator) are in async_tokio.rs.
#![cfg(feature = "smol")]

mod common;

use std::cell::Cell;
use std::future::Future;
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use async_executor::LocalExecutor;
use async_io::Timer;
use futures_lite::{FutureExt, StreamExt};
use snowmint::smol::MintAsync;
use snowmint::{ClockBehind, Generator, Id, Layout};

use common::asyncs::{IDS, MAX_LATE, Random, SteppedBack, TIMED, on_time};
use common::checks::{assert_increasing, assert_unique_and_increasing};
#[cfg(unix)]
#[cfg(unix)]
use common::forks::is_forked;

/// Runs `work` on a local executor driven by `async_io::block_on`, beside a task whose 1 ms
/// interval timer measures how late each of its ticks is: `work`'s output, the greatest
/// lateness, and the tick count.
fn beside_a_ticker<F: Future>(work: F) -> (F::Output, Duration, u32) {
    // One timed run at a time: the control's blocking mint would take a core from the others.
    let _alone = TIMED.lock().unwrap_or_else(PoisonError::into_inner);
    let done = Cell::new(false);
    let executor = LocalExecutor::new();
    let ticker = executor.spawn(async {
        let mut interval = Timer::interval(Duration::from_millis(1));
        let (mut late, mut ticks) = (Duration::ZERO, 0);
        while !done.get() {
            let due = interval.next().await.unwrap();
            late = late.max(due.elapsed());
            ticks += 1;
        }
        (late, ticks)
    });
    async_io::block_on(executor.run(async {
        // Let the ticker start before the work does.
        futures_lite::future::yield_now().await;
        let output = work.await;
        done.set(true);
        let (late, ticks) = ticker.await;
        (output, late, ticks)
    }))
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
            for _ in 0..IDS / 2 {
                ids.push(generator.mint_async().await.unwrap());
            }
            let mut batch = [Id::default(); 100];
            while ids.len() < IDS {
                let want = (IDS - ids.len()).min(batch.len());
                let written = generator
                    .mint_batch_async(&mut batch[..want])
                    .await
                    .unwrap();
                ids.extend_from_slice(&batch[..written]);
            }
            (ids, start.elapsed())
        });
        assert_increasing(&ids);
        assert!(took >= Duration::from_millis(80), "{IDS} IDs in {took:?}");
        assert!(ticks >= 40, "{ticks} ticks of the 1 ms timer in {took:?}");
        (late, ticks)
    });
}

#[test]
fn a_blocking_mint_makes_the_same_timer_late() {
    let generator = Generator::builder(Layout::SONYFLAKE)
        .node("machine", 1)
        .build()
        .unwrap();
    let (ids, late, _) = beside_a_ticker(async {
        let mut ids = Vec::with_capacity(IDS);
        for _ in 0..IDS {
            ids.push(generator.mint().unwrap());
            futures_lite::future::yield_now().await;
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

/// `future`'s output, or `None` if `within` passes first (the future is then dropped).
async fn before<T>(within: Duration, future: impl Future<Output = T>) -> Option<T> {
    async { Some(future.await) }
        .or(async {
            Timer::after(within).await;
            None
        })
        .await
}

#[test]
fn futures_dropped_mid_wait_lose_nothing() {
    let generator = Generator::builder(Layout::SONYFLAKE)
        .node("machine", 1)
        .build()
        .unwrap();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut random = Random(seed);
    let (ids, dropped) = async_io::block_on(async {
        let (mut ids, mut dropped) = (Vec::new(), 0);
        let mut batch = [Id::default(); 100];
        for _ in 0..600 {
            // Up to 3 ms: often inside a wait for the next 10 ms tick.
            let within = Duration::from_micros(random.below(3_000));
            if random.below(2) == 0 {
                match before(within, generator.mint_async()).await {
                    Some(id) => ids.push(id.unwrap()),
                    None => dropped += 1,
                }
            } else {
                match before(within, generator.mint_batch_async(&mut batch)).await {
                    Some(written) => ids.extend_from_slice(&batch[..written.unwrap()]),
                    None => dropped += 1,
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

/// A generator inherited across `fork()` fails in the child through the async methods, in
/// their first poll: `Error::Forked` is not an error the retry loop sleeps on. (Polled without
/// a timer: the child has none of its parent's reactor thread.)
#[cfg(unix)]
#[test]
fn an_inherited_generator_fails_in_the_first_poll_in_a_forked_child() {
    let parent = std::process::id();
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let before = generator.mint().unwrap();
    let status = common::forks::in_child(std::time::Duration::from_secs(30), || {
        let first_poll = |what: &str| format!("{what} was pending after its first poll");
        let minted =
            futures_lite::future::block_on(futures_lite::future::poll_once(generator.mint_async()));
        is_forked(
            "mint_async",
            minted.ok_or_else(|| first_poll("mint_async"))?,
            "Generator",
            parent,
        )?;
        let mut out = [Id::default(); 4];
        let minted = futures_lite::future::block_on(futures_lite::future::poll_once(
            generator.mint_batch_async(&mut out),
        ));
        let minted = minted.ok_or_else(|| first_poll("mint_batch_async"))?;
        is_forked("mint_batch_async", minted, "Generator", parent)
    });
    assert_eq!(status, 0, "see the child's stderr");
    assert!(generator.mint().unwrap() > before);
}
