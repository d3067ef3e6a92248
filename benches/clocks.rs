//! The default clock against the alternatives: on the hot path, and with more minting threads
//! than cores.
//!
//! | clock | a reading is |
//! |---|---|
//! | `global` ([`CachedClock::global`], the default of every generator) | one load from a `static`, refreshed by one process-wide thread just after each millisecond begins |
//! | `private` ([`CachedClock::new`] over a [`MonotonicClock`]) | one load through the clock's handle, refreshed by a thread of its own once a millisecond |
//! | `monotonic` ([`MonotonicClock`], no thread) | quanta's counter, scaled, plus an offset to the wall clock |
//! | `quanta-raw` (`quanta::Clock::raw`) | the counter alone, unscaled: the floor of any counter-based clock, not a time a generator can use |
//! | `system-time` (`SystemTime::now`) | the operating system's wall clock (a vDSO call on Linux) |
//!
//! Groups:
//! - `clock-read`: one reading, one thread.
//! - `clock-mint/1-thread`: a mint on the 41/0/22 layout (never capped by its sequence) from one
//!   generator on each clock: what the clock costs a mint.
//! - `clock-mint/oversubscribed`: 4 threads per core (8 on two cores), each minting from its
//!   own shard of a `ShardedGenerator` on each clock: the cached clocks' refresher must compete
//!   with them for a core. The time is per ID per thread.
//!
//! # Checks
//!
//! Before timing, each clock's generator mints on as many threads as the oversubscribed group
//! uses, and the run panics unless the IDs are unique and strictly increasing per thread. It
//! prints, per clock, the largest gap between an ID's time and the wall clock read right after
//! it, in milliseconds (1 ms ticks). With more threads than cores that gap includes any
//! preemption between the mint and the wall-clock read, so it is large for every clock, the
//! system clock too (21 to 32 ms in one run on two cores); compare the cached clocks' figures
//! with the others', not with zero.
//!
//! Run with `cargo bench --bench clocks` (about a minute and a half on two cores).

mod support;

use std::collections::HashSet;
use std::hint::black_box;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use snowmint::{
    Clock, Generator,
    clock::{CachedClock, MonotonicClock},
    shard::{ShardedGenerator, Shards},
};
use support::{HOT, on_threads, timed_on_threads};

/// Minting threads per core in the oversubscribed group.
const THREADS_PER_CORE: usize = 4;
/// IDs each thread mints in the check.
const CHECK_PER_THREAD: usize = 100_000;

/// The operating system's wall clock, read on every call.
struct SystemClock;

impl Clock for SystemClock {
    fn unix_ms(&self) -> u64 {
        wall_ms()
    }
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

fn sharded<C: Clock>(clock: C, shards: usize) -> ShardedGenerator<C> {
    Generator::builder(HOT)
        .clock(clock)
        .build_sharded(Shards::SplitSequence(shards))
        .expect("valid 41/0/22 layout and shard count")
}

fn single<C: Clock>(clock: C) -> Generator<C> {
    Generator::builder(HOT)
        .clock(clock)
        .build()
        .expect("valid 41/0/22 layout")
}

/// Mints on `threads` threads from `generator`; panics unless the IDs are unique and
/// increasing per thread; returns the largest lag of an ID's time behind the wall clock read
/// right after it, in ms.
fn check<C: Clock + Send + Sync>(
    name: &str,
    generator: &ShardedGenerator<C>,
    threads: usize,
) -> u64 {
    let results = on_threads(threads, || {
        let mut ids = Vec::with_capacity(CHECK_PER_THREAD);
        let mut lag = 0;
        for _ in 0..CHECK_PER_THREAD {
            let id = generator.mint().expect("mint");
            let after = wall_ms();
            let minted = HOT.epoch_ms() + (id.to_u64() >> 22);
            lag = lag.max(after.saturating_sub(minted));
            ids.push(id.to_u64());
        }
        (ids, lag)
    });
    let mut unique = HashSet::new();
    let mut lag = 0;
    for (_, _, (ids, thread_lag)) in &results {
        assert!(
            ids.windows(2).all(|pair| pair[0] < pair[1]),
            "{name}: a thread's IDs did not strictly increase"
        );
        unique.extend(ids.iter().copied());
        lag = lag.max(*thread_lag);
    }
    assert_eq!(
        unique.len(),
        threads * CHECK_PER_THREAD,
        "{name}: duplicate IDs"
    );
    lag
}

fn clocks(c: &mut Criterion) {
    let cores = thread::available_parallelism().map_or(2, usize::from);
    let threads = cores * THREADS_PER_CORE;
    let monotonic = MonotonicClock::new();
    let raw = quanta::Clock::new();
    let global = CachedClock::global();
    let private = CachedClock::new(MonotonicClock::new());

    let mut group = c.benchmark_group("clock-read");
    group.throughput(Throughput::Elements(1));
    group.bench_function("global", |b| b.iter(|| black_box(global.unix_ms())));
    group.bench_function("private", |b| b.iter(|| black_box(private.unix_ms())));
    group.bench_function("monotonic", |b| b.iter(|| black_box(monotonic.unix_ms())));
    group.bench_function("quanta-raw", |b| b.iter(|| black_box(raw.raw())));
    group.bench_function("system-time", |b| b.iter(|| black_box(wall_ms())));
    group.finish();

    let mut group = c.benchmark_group("clock-mint/1-thread");
    group.throughput(Throughput::Elements(1));
    let on_global = single(global);
    let on_private = single(private.clone());
    let on_monotonic = single(monotonic.clone());
    let on_system = single(SystemClock);
    group.bench_function("global", |b| b.iter(|| on_global.mint()));
    group.bench_function("private", |b| b.iter(|| on_private.mint()));
    group.bench_function("monotonic", |b| b.iter(|| on_monotonic.mint()));
    group.bench_function("system-time", |b| b.iter(|| on_system.mint()));
    group.finish();

    let sharded_global = sharded(global, threads);
    let sharded_private = sharded(private, threads);
    let sharded_monotonic = sharded(monotonic, threads);
    let sharded_system = sharded(SystemClock, threads);
    for (name, lag) in [
        ("global", check("global", &sharded_global, threads)),
        ("private", check("private", &sharded_private, threads)),
        ("monotonic", check("monotonic", &sharded_monotonic, threads)),
        (
            "system-time",
            check("system-time", &sharded_system, threads),
        ),
    ] {
        eprintln!(
            "note: clock-mint/oversubscribed/{name}: {threads} threads on {cores} cores; the \
             largest lag of an ID's time behind the wall clock read after it: {lag} ms"
        );
    }

    let mut group = c.benchmark_group("clock-mint/oversubscribed");
    group.throughput(Throughput::Elements(threads as u64));
    let mut bench = |name: &str, mint: &(dyn Fn() -> u64 + Sync)| {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| timed_on_threads(threads, iters, mint))
        });
    };
    bench("global", &|| sharded_global.mint().expect("mint").to_u64());
    bench("private", &|| {
        sharded_private.mint().expect("mint").to_u64()
    });
    bench("monotonic", &|| {
        sharded_monotonic.mint().expect("mint").to_u64()
    });
    bench("system-time", &|| {
        sharded_system.mint().expect("mint").to_u64()
    });
    group.finish();
}

criterion_group!(
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .without_plots();
    targets = clocks
);
criterion_main!(benches);
