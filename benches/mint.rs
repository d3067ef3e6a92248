//! Single-thread minting cost on `twitter` and on a 41/0/22 layout.
//!
//! `twitter` is capped by its layout: 4,096 IDs per millisecond, so one thread converges on
//! about 244 ns/ID whatever the code costs (saturation). The 41/0/22 layout has 4.19 M IDs
//! per millisecond of sequence, so its figure is the code's own cost (hot path). Every
//! generator is built as a user builds it, `Generator::builder(layout)`, its node fields set,
//! `.build()`, on the default clock ([`CachedClock::global`]); `41-0-22-monotonic` is the same
//! generator on a [`MonotonicClock`], which reads the CPU's counter on every mint and starts no
//! thread. The two clocks' reads alone are measured beside them.
//!
//! `mask/*`: an ID masked and unmasked again (`snowmint::mask`) at each width, over a run of
//! consecutive IDs as a generator mints them; the time is the two calls together, each
//! depending on the one before (latency, not throughput); `mask-page-of-100-64` masks a page
//! of 100 independent IDs, as a response does (throughput, per ID); `facade+back-uuid7` a
//! UUIDv7 behind its version 4 facade and back.
//! Run with `cargo bench --bench mint`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use snowmint::{
    Clock, Generator, Id, Layout,
    clock::{CachedClock, MonotonicClock},
    id128::Uuid7,
    mask::{FacadeMasker, MaskKey, MaskWidth, Masker},
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

fn mask(c: &mut Criterion) {
    let mut group = c.benchmark_group("mask");
    group.throughput(Throughput::Elements(1));
    let key = MaskKey::from_bytes(*b"snowmint-bench-k");
    let first = Layout::TWITTER
        .parse("1541815603606036480")
        .expect("a twitter id")
        .to_u64()
        >> 11;
    for (name, width) in [
        ("mask+unmask-64", MaskWidth::U64),
        ("mask+unmask-63-bigint", MaskWidth::BIGINT),
        ("mask+unmask-53-js", MaskWidth::JS_SAFE),
    ] {
        let masker = Masker::new(&key, width);
        group.bench_function(name, |b| {
            let mut id = first;
            b.iter(|| {
                let masked = masker.mask(Id::from_u64(id)).expect("fits the width");
                let back = masker.unmask(masked).expect("in the width").to_u64();
                assert_eq!(back, id, "unmask is mask's inverse");
                id = back + 1;
                black_box(masked)
            })
        });
    }
    // A page of 100 IDs masked for a response: independent IDs, whose encryptions the CPU
    // overlaps (throughput per ID, mask only).
    let masker = Masker::new(&key, MaskWidth::U64);
    let page: Vec<Id> = (first..first + 100).map(Id::from_u64).collect();
    let mut out = vec![0u64; page.len()];
    group.throughput(Throughput::Elements(page.len() as u64));
    group.bench_function("mask-page-of-100-64", |b| {
        b.iter(|| {
            for (slot, &id) in out.iter_mut().zip(black_box(&page)) {
                *slot = masker.mask(id).expect("fits the width");
            }
            black_box(&out);
        })
    });
    // A UUIDv7 behind its version 4 facade and back.
    let facade = FacadeMasker::new(&key);
    let mut uuid = Uuid7::now().expect("a uuidv7");
    group.throughput(Throughput::Elements(1));
    group.bench_function("facade+back-uuid7", |b| {
        b.iter(|| {
            let shown = facade.mask_uuid7(black_box(uuid));
            let back = facade.unmask_uuid7(shown);
            assert_eq!(back, uuid, "unmask is mask's inverse");
            uuid = Uuid7::from_u128(back.to_u128() + 1).expect("still a uuidv7");
            black_box(shown)
        })
    });
    group.finish();
}

criterion_group!(benches, single_thread, mask);
criterion_main!(benches);
