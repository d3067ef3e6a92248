//! Single-thread minting cost on `twitter` and on a 41/0/22 layout.
//!
//! `twitter` is capped by its layout: 4,096 IDs per millisecond, so one thread converges on
//! about 244 ns/ID whatever the code costs (saturation). The 41/0/22 layout has 4.19 M IDs
//! per millisecond of sequence, so its figure is the code's own cost (hot path). Every
//! generator is built as a user builds it, `Generator::builder(layout)`, its node fields set,
//! `.build()`, on the default clock ([`CachedClock::global`]); `41-0-22-monotonic` is the same
//! generator on a [`MonotonicClock`], which reads the CPU's counter on every mint and starts no
//! thread. The two clocks' reads alone are measured beside them.
//! Run with `cargo bench --bench mint`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use snowmint::{
    Clock, Generator, Layout,
    clock::{CachedClock, MonotonicClock},
};

/// 41 time bits, no node bits, 22 sequence bits.
const HOT: Layout = Layout::builder("41/0/22", 63)
    .time(41)
    .sequence(22)
    .epoch_ms(1_288_834_974_657)
    .build_const();

fn single_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("mint/1-thread");
    group.throughput(Throughput::Elements(1));

    let cached = CachedClock::global();
    group.bench_function("clock-read", |b| b.iter(|| black_box(cached.unix_ms())));
    let monotonic = MonotonicClock::new();
    group.bench_function("clock-read-monotonic", |b| {
        b.iter(|| black_box(monotonic.unix_ms()))
    });

    let hot = Generator::builder(HOT).build().expect("valid layout");
    group.bench_function("41-0-22", |b| {
        b.iter(|| black_box(hot.mint().expect("mint")))
    });

    let hot_monotonic = Generator::builder(HOT)
        .clock(monotonic.clone())
        .build()
        .expect("valid layout");
    group.bench_function("41-0-22-monotonic", |b| {
        b.iter(|| black_box(hot_monotonic.mint().expect("mint")))
    });

    let twitter = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build()
        .expect("valid layout");
    group.bench_function("twitter", |b| {
        b.iter(|| black_box(twitter.mint().expect("mint")))
    });
    group.finish();

    // Every scenario checks what it minted: unique and increasing.
    let check = |mint: &dyn Fn() -> u64| {
        let ids: Vec<_> = (0..100_000).map(|_| mint()).collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "bench minted non-increasing ids"
        );
    };
    check(&|| hot.mint().expect("mint").to_u64());
    check(&|| hot_monotonic.mint().expect("mint").to_u64());
    check(&|| twitter.mint().expect("mint").to_u64());
}

criterion_group!(benches, single_thread);
criterion_main!(benches);
