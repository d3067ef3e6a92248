//! What the benches share: the hot-path layout, and running a mint on several threads at once
//! and timing it.

use std::hint::black_box;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use snowmint::Layout;

/// Twitter's epoch, in Unix milliseconds: every Snowflake contender counts from it.
pub const EPOCH_MS: u64 = 1_288_834_974_657;

/// snowmint's 41/0/22 layout: 1 unused bit, 41 time bits, no node bits, 22 sequence bits, so
/// the sequence never caps a figure and the figure is the code's own cost.
pub const HOT: Layout = Layout::builder("bench-41-0-22", 64)
    .unused(1)
    .time(41)
    .sequence(22)
    .epoch_ms(EPOCH_MS)
    .build_const();

/// Runs `work` on `threads` threads released together by a barrier and returns each thread's
/// result with the instants it started and finished.
pub fn on_threads<T: Send>(
    threads: usize,
    work: impl Fn() -> T + Sync,
) -> Vec<(Instant, Instant, T)> {
    let barrier = Barrier::new(threads);
    thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    let result = work();
                    (start, Instant::now(), result)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("bench thread panicked"))
            .collect()
    })
}

/// The wall time in which `threads` threads, started together, each called `mint` `iters`
/// times: from the first thread's start to the last thread's end.
pub fn timed_on_threads(threads: usize, iters: u64, mint: impl Fn() -> u64 + Sync) -> Duration {
    timed_on_threads_with(threads, iters, || (), |()| mint())
}

/// As [`timed_on_threads`], with a value each thread makes once (untimed) and mints through.
pub fn timed_on_threads_with<T>(
    threads: usize,
    iters: u64,
    setup: impl Fn() -> T + Sync,
    mint: impl Fn(&T) -> u64 + Sync,
) -> Duration {
    let barrier = Barrier::new(threads);
    let spans = on_threads(threads, || {
        let local = setup();
        barrier.wait();
        let start = Instant::now();
        for _ in 0..iters {
            black_box(mint(&local));
        }
        (start, Instant::now())
    });
    let start = spans.iter().map(|span| span.2.0).min().expect("one thread");
    let end = spans.iter().map(|span| span.2.1).max().expect("one thread");
    end - start
}
