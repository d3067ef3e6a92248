//! Single-thread minting cost on `twitter` and on a 41/0/22 layout.
//!
//! `twitter` is capped by its layout: 4,096 IDs per millisecond, so one thread converges on
//! about 244 ns/ID whatever the code costs (saturation). The 41/0/22 layout has 4.19 M IDs
//! per millisecond of sequence, so its figure is the code's own cost (hot path). The clock
//! read alone is measured beside them, since it dominates the hot path.
//! Run with `cargo bench --bench mint`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use snowmint::{Clock, Generator, Layout, MonotonicClock};

/// 41 time bits, no node bits, 22 sequence bits.
const HOT: Layout = Layout::builder("41/0/22", 63)
    .time(41)
    .sequence(22)
    .epoch_ms(1_288_834_974_657)
    .build_const();

fn single_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("mint/1-thread");
    group.throughput(Throughput::Elements(1));

    let clock = MonotonicClock::new();
    group.bench_function("clock-read", |b| b.iter(|| black_box(clock.unix_ms())));

    let hot = Generator::builder(HOT).build().expect("valid layout");
    group.bench_function("41-0-22", |b| {
        b.iter(|| black_box(hot.mint().expect("mint")))
    });

    let twitter = Generator::builder(Layout::TWITTER)
        .build()
        .expect("valid layout");
    group.bench_function("twitter", |b| {
        b.iter(|| black_box(twitter.mint().expect("mint")))
    });
    group.finish();

    // Every scenario checks what it minted: unique and increasing.
    for generator in [&hot, &twitter] {
        let ids: Vec<_> = (0..100_000)
            .map(|_| generator.mint().expect("mint"))
            .collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "bench minted non-increasing ids"
        );
    }
}

criterion_group!(benches, single_thread);
criterion_main!(benches);
