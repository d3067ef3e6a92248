//! Six scenarios, tail latencies and a scaling run, snowmint against every peer in
//! BENCHMARKS.md, in one run.
//!
//! | group or table | scenario | what it measures |
//! |---|---|---|
//! | `s1-saturation-twitter/<contender>/<threads>` | 1 | one shared generator on the Twitter layout (41 time, 10 node, 12 sequence bits), 1, 2 and 8 threads; aggregate IDs/s, and the percentage of the layout's ceiling (4,096,000 IDs/s) from a separate run of 0.5 s (3 s for xid, whose ticks are seconds) ([`saturation_rate`]) |
//! | `s2-hot-path/<contender>/<threads>` | 2 | one shared generator on 41/0/22 (never capped by its sequence), 1, 2 and 4 threads; ns/ID |
//! | `s3-sharded/<N>-threads` | 3 | N = `available_parallelism()` threads: snowmint's per-core shards (a `ShardedGenerator`, its shard looked up per mint or once per thread, and one `LocalGenerator` per thread) and each peer's per-thread form, against one shared generator of snowmint and of each peer (the process-wide one of uuid, scru128, xid and yitter); aggregate IDs/s |
//! | `s4-batch/64`, `s4-batch/4096` | 4 | one thread fills a reused buffer: snowmint's `mint_batch` and snowflake_me's `next_ids_into`, every other contender one ID at a time; ns/ID |
//! | table "s5" | 5 | one mint every 500 ns on one thread, on the Twitter layout: p50, p99, p99.9 and max of each call |
//! | table "s6" | 6 | the largest gap, in ticks, between an ID's time and the wall clock read right after it, in scenario 1's check pass and in scenario 5 |
//! | tables "Tails" | — | one thread, the Twitter layout (41/10/12), every contender of scenario 5: single mint calls one every 250 ns (4.0 M/s, 97.7% of the ceiling) for 0.1 s, then back to back for 409,600 mints (100 full ticks); p50, p99, p99.9, p99.99 and max of each call, and the rate kept; then one call every 500 ns for 1.5 s with the clock stepped back 5 ms or 1 s 0.25 s in, for snowmint under `ClockBehind::Wait`, `Error` and `TickTock` (on 41 time bits, a tick-tock bit, 9 machine bits, 12 sequence bits) for ferroid (it waits), and for snowflake_me under its `ClockDriftStrategy` `Wait`, `Error` and `LastTimestamp`: the same percentiles over the window, refused calls counted as calls and their number and latency given; a row for each peer that reads the system clock itself and cannot be stepped ([`tails::tails`]) |
//! | tables "Scaling" | — | 1, 2, 4, 8 and 16 threads on 41/0/22 (counts beyond `available_parallelism()` marked oversubscribed), three pairings, all default-built: a `LocalGenerator` per thread against ferroid's `BasicSnowflakeGenerator` per thread (log2(threads) machine bits, so each thread's sequence is as wide as a snowmint shard's), a `ShardedGenerator` handle (a shard per thread, looked up per mint) against `LocalGenerator`s, and the shared `Generator` against ferroid's shared `AtomicSnowflakeGenerator`; aggregate IDs/s of each and the median of the per-round ratios over 8 paired rounds ([`scaling::scaling`]) |
//! | table "Targets" | 1, 2, 3, 5 | the targets, each with a verdict ([`targets::targets`]): scenario 2 with 1 and 2 threads, default-built `LocalGenerator`s on 2 threads, and scenario 5's p99.9, as medians of ratios to ferroid's shared `AtomicSnowflakeGenerator` over 24 rounds that each measure the contenders back to back; scenario 1's % of the ceiling with 1, 2 and 8 threads, and with 2 threads while another process spins on every core (also over the ticks in which a minting thread had a core, and the share of ticks in which none had); the default clock's wake-ups per second while its generators sit idle |
//!
//! # Contenders, and how each is set up
//!
//! Every contender is a [`Contender`]: each minting thread takes what it mints through (the
//! shared generator, or one of its own from a pool), untimed, then mints in the one timed loop
//! ([`measure::timed`]). snowmint's generators are one contender type, generic over
//! [`snowmint::Mint`].
//!
//! - `snowmint`: a shared [`Generator`](snowmint::Generator) built as a user builds it,
//!   `Generator::builder(layout)`, its node fields set, `.build()`, so on the default clock,
//!   `CachedClock::global()` (one load from a `static` per reading, refreshed by one
//!   process-wide thread just after each millisecond begins; a full tick reads the precise
//!   time); `snowmint-monotonic`: the same on a `MonotonicClock`, for a user who wants no
//!   thread (the CPU's counter read on every mint). In scenario 3, `snowmint-sharded`
//!   (`build_sharded(Shards::SplitSequence(n))`, each thread's shard looked up on every mint),
//!   `snowmint-sharded-local` (the same, each thread looking its shard up once with
//!   `ShardedGenerator::local`, as a thread minting in a loop would),
//!   `snowmint-sharded-monotonic`, and `snowmint-local-shards`: one default-built
//!   `LocalGenerator` per thread from `build_local_shards(Shards::SplitSequence(n))`, as a
//!   server with one event loop per core would (a load and a store per ID instead of a
//!   compare-and-swap).
//! - `ferroid` 2.0: `AtomicSnowflakeGenerator` on ferroid's `MonotonicClock::<1>::with_epoch
//!   (TWITTER_EPOCH)`, backing off with `thread::yield_now`, as ferroid's README sets it up
//!   ("Setting Up a Clock", "Basic Usage"). Twitter layout: its `SnowflakeTwitterId`; 41/0/22:
//!   a `define_snowflake_id!` type with 0 machine bits. `ferroid-spin` (scenarios 2 and 3, 2
//!   threads or more) backs off with `spin_loop`, as ferroid's own benches do: the two differ
//!   only when a CAS is lost. Scenario 3 also gives each thread its own
//!   `BasicSnowflakeGenerator` (feature `basic`, a `Cell` state and no atomic), which its
//!   README recommends for one generator per thread, on 41/4/18, machine ID = the thread's
//!   index.
//! - `snowflake_me` 2.2: `Snowflake::builder()` with explicit node IDs and Twitter's epoch,
//!   shared by reference, as its README's "Multi-threaded Usage" shares one generator
//!   (`Arc`); Twitter layout: its default widths 41/5/5/12; 41/0/22: 0 data-center and machine
//!   bits. Batches: `next_ids_into`.
//! - `snowflaked` 1.0: `sync::Generator` (feature `sync`), as its README's "Snowflake
//!   Generation" shows for threads, built with `Generator::builder().instance(0).epoch(Twitter)`.
//!   Its layout is fixed at 41/10/12 (the Twitter layout), so in scenario 2 it runs on that,
//!   the closest it allows: its figures there are capped at 4,096,000 IDs/s. Scenario 3: its
//!   plain `Generator` per thread (the README's single-threaded form), instance = the thread's
//!   index.
//! - `rs-snowflake` 0.6: `SnowflakeIdGenerator::with_epoch(0, 0, Twitter)` and
//!   `real_time_generate`, the method whose IDs carry the time of the call (its README's
//!   "Getting Started"); it mints through `&mut self` and its docs say nothing about sharing,
//!   so shared it sits behind a `std::sync::Mutex`; in scenarios 3 and 4 each thread owns one
//!   (node ID = the thread's index). Its layout is fixed (42 time bits from the epoch, 5
//!   machine, 5 node, 12 sequence), so it is capped at 4,096,000 IDs/s in scenario 2 too.
//!   `rs-snowflake-bucket` (scenario 4 only): `SnowflakeIdBucket::get_id`, its README's buffered
//!   form; the bucket refills with `lazy_generate`, which advances its time by one ms per 4096
//!   IDs whatever the clock says, and hands IDs out in decreasing order within a refill: the
//!   check asks it for uniqueness only, and its times run ahead of the wall clock.
//! - `sonyflake` 0.5: `Sonyflake::builder().machine_id(&|| Ok(1)).finalize()`, shared by
//!   reference (it is an `Arc` around a `Mutex`; its docs clone it to share). Built without its
//!   default `pnet` feature, which only finds a machine ID from a private IP address; the
//!   builder's `machine_id` is the documented alternative. Its layout is fixed: 39 bits of
//!   10 ms, 8 sequence bits, 16 machine bits: a ceiling of 25,600 IDs/s, against which its
//!   saturation figure is given, in every scenario.
//! - `uuid` 1.x: `Uuid::now_v7()` (feature `v7`), as its docs show; ordered within a process.
//!   No sequence ceiling: its IDs/s are reported, its percentage is n/a.
//! - `ulid` 3.0: the monotonic `ulid::Generator` (`&mut self`), behind a `Mutex` when shared
//!   and one per thread in scenarios 3 and 4, as its docs' example (an overflow of the random
//!   bits would commit the increment, as the example shows). No ceiling.
//! - `scru128` 4.x: `scru128::new()`, its README's form: one process-wide generator behind a
//!   mutex, reading the system clock and drawing a random number on every mint. A SCRU128
//!   ID is 128 bits: 48 of Unix ms, a 24-bit counter re-randomized each second, a 24-bit
//!   counter re-randomized each ms, 32 random bits. It has no node field and its layout is
//!   fixed, so it cannot run on 41/10/12; it sits where `uuid` and `ulid` sit, with no
//!   ceiling (2^48 IDs a ms), and in every scenario on its own layout. `id128.rs` sets it
//!   beside snowmint's ULID generators, whose IDs have the same shape.
//! - `xid` 1.x (the Rust port of rs/xid): `xid::new()`, its README's form, one process-wide
//!   generator. An xid is 96 bits (widened here to 128): 4 bytes of Unix seconds, 3 of
//!   machine, 2 of process ID, 3 of a counter that starts at a random value, counts every ID
//!   of the process, and wraps. Its fixed layout has no ms and no sequence bound, so it
//!   cannot run on 41/10/12: it runs on its own in every scenario. Its "sortable" holds by
//!   the second only (the counter wraps within one), so its check asks that each thread's
//!   seconds never go back, not that its IDs increase. It never waits: past 16,777,216 IDs
//!   in one second its counter has wrapped and it repeats IDs, so that rate is given as its
//!   ceiling, and a figure above it is one at which it repeated IDs (scenario 1 counts whole
//!   seconds, and says so in the cell). Its checks, 200,000 IDs a thread, stay below it.
//! - `yitter`: Yitter's "drift" IdGenerator in the `yit_id_generator` crate 1.0 (published
//!   from yitter/IdGenerator; `idgenerator` 2.0 is a third party's port of it, not run here),
//!   its README's form: options set once (`IdGeneratorOptions::New`,
//!   `YitIdHelper::SetIdGenerator`), then `YitIdHelper::NextId()` from any thread (a
//!   process-wide generator behind a mutex, reading the system clock through chrono on every
//!   mint). Its worker and sequence widths are options, so it runs on the true 41/10/12:
//!   `WorkerIdBitLength` 10 (worker 0), `SeqBitLength` 12, `BaseTime` Twitter's epoch, and
//!   `MaxSeqNumber` 4095, without which the crate caps the sequence at 63 whatever
//!   `SeqBitLength` says. The rest stays at its defaults: sequence numbers 0 to 4 of each
//!   tick are kept back (for clock rollback), so a tick holds 4,091 IDs, and a full tick
//!   does not wait but borrows the next one, up to 2000 ticks (`TopOverCostCount`) ahead of
//!   the clock, then sleeps in steps of 1 ms until the clock catches up. So its IDs/s can
//!   pass the ceiling for a while, its IDs' time runs up to 2 s ahead of the clock (its check
//!   allows that much more; scenario 6 shows how far), and its saturation figure counts IDs
//!   over the run's wall time, not over its IDs' ticks. Its options are one process-wide
//!   setting, so in scenario 2 it runs on 41/10/12 too (it allows 41/1/21 at most, never
//!   41/0/22), capped like snowflaked. The crate sleeps 500 ms when it makes its generator
//!   and again when it sets the options: that happens once, when a thread first takes it,
//!   untimed.
//!
//! ferroid's clock and snowmint's default clock are both one load of an atomic that a
//! background thread updates every millisecond, while `snowmint-monotonic` reads a hardware
//! counter and snowflake_me the system clock on every mint; a ferroid thread that loses a CAS
//! yields the CPU, so two ferroid threads mostly take turns on the shared word, while snowmint
//! backs off with a doubling spin.
//!
//! # Reading the figures
//!
//! Multi-threaded benches use `iter_custom`: T threads start together at a barrier and each
//! mints `iters` IDs; the duration is from the first thread's start to the last thread's end.
//! So the per-iteration `time` is **ns per ID per thread**, and, each thread count setting
//! `Throughput::Elements(T)`, `thrpt` is the **aggregate** IDs/s. Batch benches set
//! `Throughput::Elements(batch)`: `time` is per batch, ns/ID is `time / batch`. The SVGs
//! under `target/criterion/s1-saturation-twitter/report/` and
//! `target/criterion/s2-hot-path/report/` (`lines.svg`: time against threads,
//! `lines_throughput.svg`: aggregate IDs/s against threads) draw scenarios 1 and 2 against
//! the thread count; plots are on for this bench only.
//!
//! Every contender's `mint` is `#[inline(always)]` and reached through its concrete type,
//! never through a closure behind a reference, so the timed loop holds the library's own code,
//! as a caller's function would, and no call the harness adds: left to the inliner, some
//! wrappers were inlined and others were not, which cost the others about 0.4 ns an ID.
//!
//! A snowmint bench on 41/0/22 that fills whole ticks prints a note after its figures: it ran
//! into the layout's ceiling of 4.19 IDs per ns (2^22 per ms), so its figure is a saturation
//! figure, not the code's own cost. `mint_batch` of 4096 can get there on a fast core.
//!
//! `SNOWMINT_PAIRED_ONLY=1 cargo bench --bench peers` runs only the targets' table (about 30 s
//! on two cores), `SNOWMINT_SCALING_ONLY=1 cargo bench --bench peers` only the scaling tables
//! (about 30 s), `SNOWMINT_TAILS_ONLY=1 cargo bench --bench peers` only the tails' tables
//! (about 30 s); one group with e.g. `cargo bench --bench peers -- s3-sharded`.
//!
//! # Tails
//!
//! The tails' steps back go through clocks of the bench's own: snowmint's default clock,
//! `CachedClock::global()`, read through a [`snowmint::Clock`] that subtracts the step (an
//! `Arc<AtomicU64>` the run sets), ferroid's ticker clock through a `TimeSource` that does
//! the same, and snowflake_me's through its builder's `clock_source` (the system clock less
//! the step). Every other peer reads the system clock itself and gets a row saying so. Each run
//! checks what it minted ([`check_ids`]): under `Error` a refused call is counted, never an ID
//! repeated; `TickTock`'s IDs after the step are lower than those before it, so its check asks
//! uniqueness only. With `SNOWMINT_BENCH_OUT` set the section also writes `tails.svg`, the
//! p99.9 of each row.
//!
//! # Paired rounds, and a busy machine
//!
//! The targets and the scaling tables time the contenders of a row back to back, in rounds
//! that alternate which goes first ([`rounds::rotated`], after one round of warm-up), and give
//! the median of the ratios taken within each round, with the lowest and the highest. A
//! figure the machine kept the bench from taking (a saturation run in which some thread sat
//! descheduled so long that the run spanned no whole tick) makes its round inconclusive: the
//! round is left out, the row says so ("inconclusive: 1 of 4 rounds"), and the bench goes on;
//! a row with no conclusive round shows "inconclusive". Only a check fails a run.
//!
//! # Saturation
//!
//! [`saturation_rate`] counts only the IDs of whole ticks, those after every thread's first
//! tick and before every thread's last (a run's first and last ticks are partial), so a run's
//! edges add nothing to the figure and a tick nobody minted in counts as lost; a run lasts at
//! least three ticks. No contender but yitter runs its time ahead of the clock (snowmint
//! borrows only when told to), so their ticks are the clock's; yitter's drift borrows ticks,
//! so its figure is its IDs over the run's wall time. Over whole ticks a figure above the
//! ceiling means a tick held more IDs than the layout has values for, so IDs repeated: xid's
//! can. The busy row runs another process, this bench's own executable with
//! `SNOWMINT_SPIN_SECONDS` set (`targets::Spinner`), which spins one thread per core until it
//! is killed (or for that many seconds, if this one dies first).
//!
//! # Checks
//!
//! Before each scenario is timed, every contender mints through the same code, on the same
//! thread counts ([`check`]: 200,000 IDs per thread, sonyflake 2,560; batches 300,000), and
//! the run panics (`CHECK FAILED`) unless the IDs are unique, strictly increasing per thread,
//! and carry a time within 2 s of the wall clock read right after each (yitter's up to 2 s
//! more ahead, its drift). Every contender here promises that order, except xid, whose
//! seconds are checked never to go back instead, and `rs-snowflake-bucket`, checked for
//! uniqueness only; a contender minting constant or time-less IDs, or on another layout than
//! the bench assumes, fails. Scenario 5 checks the IDs it minted the same way; scenario 3
//! also checks that the sharded generator's threads mint from distinct shards (the scaling
//! run notes it in the row instead, since its handles are the library's assignment under
//! test, not a wrong contender).
//!
//! Run with `cargo bench --bench peers` (about eight minutes on two cores). The summary tables
//! at the end are markdown, medians of criterion's estimates read back from
//! `target/criterion`. With `SNOWMINT_BENCH_OUT=DIR` set, the run also writes them into DIR,
//! a stamped file per section, with a plot of the scaling figures and one of the tails'
//! p99.9 ([`report`]);
//! `benches/regenerate` runs the bench so and splices the files into BENCHMARKS.md.

#[path = "peers/contenders.rs"]
mod contenders;
#[path = "peers/measure.rs"]
mod measure;
#[path = "peers/plot.rs"]
mod plot;
#[path = "peers/report.rs"]
mod report;
#[path = "peers/rounds.rs"]
mod rounds;
#[path = "peers/scaling.rs"]
mod scaling;
#[path = "peers/summary.rs"]
mod summary;
#[allow(
    dead_code,
    reason = "this bench times through `measure::timed`, whose threads mint through `&mut`"
)]
mod support;
#[path = "peers/tails.rs"]
mod tails;
#[path = "peers/targets.rs"]
mod targets;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, PlottingBackend, SamplingMode, Throughput};
use snowmint::Id;

use contenders::{
    Contender, Spec, each_shared, ferroid_own, ferroid_spin, hot_set, rs_snowflake_bucket,
    rs_snowflake_own, snowflaked_own, snowmint_local_shards, snowmint_shard_local,
    snowmint_sharded, snowmint_sharded_monotonic, twitter_set, ulid_own,
};
use measure::{
    Gap, bench_threads, check, check_distinct_shards, check_ids, noting_full_ticks, paced_run,
    percentile, saturation_rate, wall_ms,
};
use summary::{Cell, Summary, columns, median_cell, millions, ns_per_id_of_batch, percent_of};

/// Thread counts of scenario 1.
const S1_THREADS: [usize; 3] = [1, 2, 8];
/// Thread counts of scenario 2.
const S2_THREADS: [usize; 3] = [1, 2, 4];
/// Batch sizes of scenario 4.
const BATCHES: [usize; 2] = [64, 4096];
/// Scenario 1's separately timed run, per contender and thread count.
const SATURATION_RUN: Duration = Duration::from_millis(500);
/// Scenario 5: one mint every this many ns, and this many mints.
const PACE_NS: u64 = 500;
const PACED_MINTS: usize = 200_000;
/// Scenario 5 for sonyflake: the same share of its ceiling (2 M/s of 4.096 M/s is 49%;
/// 12,500/s of 25,600/s is too), and fewer mints so it takes 2 s.
const SONYFLAKE_PACE_NS: u64 = 80_000;
const SONYFLAKE_PACED_MINTS: usize = 25_000;

/// Scenario 1, with scenario 6's pass on its checks.
fn saturation(c: &mut Criterion, summary: &mut Summary, gaps: &RefCell<BTreeMap<String, Gap>>) {
    let set = twitter_set();
    let columns: Vec<String> = S1_THREADS
        .iter()
        .flat_map(|threads| {
            [
                format!("{threads} thr, median"),
                format!("{threads} thr, 0.5 s run, % of ceiling"),
            ]
        })
        .collect();
    let table = summary.table(
        "Scenario 1: saturation, Twitter layout, one shared generator (aggregate IDs/s; \
         ceiling 4,096,000/s, sonyflake 25,600/s, xid 16,777,216/s where its counter wraps; \
         yitter over wall time)",
        &columns,
    );
    for threads in S1_THREADS {
        each_shared!(&set, |x| {
            let gap = check(x, "s1", threads);
            let mut gaps = gaps.borrow_mut();
            let entry = gaps.entry(format!("{}|s1", x.spec().name)).or_default();
            *entry = entry.merge(gap);
        });
    }
    for threads in S1_THREADS {
        each_shared!(&set, |x| {
            let cell = match saturation_rate(x, threads, SATURATION_RUN) {
                Some(rate) => {
                    let spec = x.spec();
                    let percent = percent_of(spec, rate);
                    // Over whole ticks, more than the ceiling is more IDs in a tick than the
                    // layout has values for; over wall time, IDs stamped ahead of the clock.
                    let beyond = match spec.ceiling {
                        Some(ceiling) if rate > ceiling as f64 && spec.drift_ms > 0 => {
                            ", its IDs' time ahead of the clock"
                        }
                        Some(ceiling) if rate > ceiling as f64 => ", so it repeated IDs",
                        _ => "",
                    };
                    println!(
                        "s1 saturation: {:<16} {threads} threads: {:>14.0} IDs/s = {percent} \
                         of the layout's ceiling ({} IDs/s){beyond}",
                        spec.name,
                        rate,
                        spec.ceiling
                            .map_or_else(|| "none".to_owned(), |c| c.to_string()),
                    );
                    format!("{} ({percent}{beyond})", millions(rate))
                }
                None => "inconclusive (no whole tick)".to_owned(),
            };
            summary.set(
                table,
                x.spec().name,
                &format!("{threads} thr, 0.5 s run, % of ceiling"),
                Cell::Text(cell),
            );
        });
    }
    let mut group = c.benchmark_group("s1-saturation-twitter");
    for threads in S1_THREADS {
        group.throughput(Throughput::Elements(threads as u64));
        each_shared!(&set, |x| {
            bench_threads(
                &mut group,
                BenchmarkId::new(x.spec().name, threads),
                x,
                threads,
            );
            summary.set(
                table,
                x.spec().name,
                &format!("{threads} thr, median"),
                median_cell(
                    format!("s1-saturation-twitter/{}/{threads}", x.spec().name),
                    threads,
                ),
            );
        });
    }
    group.finish();
}

/// Scenario 2, with `ferroid-spin` beside ferroid where threads contend.
fn hot_path(c: &mut Criterion, summary: &mut Summary) {
    let set = hot_set();
    let spin = ferroid_spin();
    for threads in S2_THREADS {
        each_shared!(&set, |x| {
            check(x, "s2", threads);
        });
        if threads > 1 {
            check(&spin, "s2", threads);
        }
    }
    let columns: Vec<String> = S2_THREADS
        .iter()
        .map(|threads| format!("{threads} thr: ns/ID per thread (aggregate)"))
        .collect();
    let table = summary.table(
        "Scenario 2: hot path, 41/0/22 (snowflaked, rs-snowflake, yitter: 41/10/12, sonyflake: \
         its own; capped), one shared generator",
        &columns,
    );
    let mut group = c.benchmark_group("s2-hot-path");
    for (threads, column) in S2_THREADS.into_iter().zip(&columns) {
        group.throughput(Throughput::Elements(threads as u64));
        each_shared!(&set, |x| {
            let name = x.spec().name;
            let path = format!("s2-hot-path/{name}/{threads}");
            noting_full_ticks(
                &path,
                || x.full_ticks(),
                || bench_threads(&mut group, BenchmarkId::new(name, threads), x, threads),
            );
            summary.set(table, name, column, median_cell(path, threads));
        });
        if threads > 1 {
            // Alone, ferroid never loses a CAS, so the back-off never runs.
            let name = spin.spec().name;
            bench_threads(&mut group, BenchmarkId::new(name, threads), &spin, threads);
            let path = format!("s2-hot-path/{name}/{threads}");
            summary.set(table, name, column, median_cell(path, threads));
        }
    }
    group.finish();
}

/// Checks `c` on `threads` threads, then times it as `function` of scenario 3's `group`
/// (named `name`), noting full ticks; the summary's cell for it.
fn sharded_bench<C: Contender>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    threads: usize,
    c: &C,
    function: &str,
) -> Cell {
    check(c, "s3", threads);
    noting_full_ticks(
        &format!("{name}/{function}"),
        || c.full_ticks(),
        || bench_threads(group, BenchmarkId::from_parameter(function), c, threads),
    );
    // criterion's directory for a group named `a/b` is `a_b`.
    median_cell(format!("{}/{function}", name.replace('/', "_")), threads)
}

/// Scenario 3: as many threads as cores, each contender in its per-thread, sharded or shared
/// form.
fn sharded(c: &mut Criterion, summary: &mut Summary) {
    let threads = thread::available_parallelism().map_or(2, usize::from);
    let name = format!("s3-sharded/{threads}-threads");
    let column = format!("{threads} thr: ns/ID per thread (aggregate)");
    let table = summary.table(
        &format!(
            "Scenario 3: {threads} threads, per-thread, sharded or shared, 41/0/22 where allowed"
        ),
        std::slice::from_ref(&column),
    );
    let mut group = c.benchmark_group(&name);
    group.throughput(Throughput::Elements(threads as u64));
    let mut row = |row: &str, cell: Cell| summary.set(table, row, &column, cell);

    // Generators of the thread's own.
    let cell = sharded_bench(
        &mut group,
        &name,
        threads,
        &snowmint_local_shards(threads),
        "snowmint-local-shards",
    );
    row("snowmint-local-shards (own)", cell);
    let cell = sharded_bench(
        &mut group,
        &name,
        threads,
        &ferroid_own(threads),
        "ferroid-own",
    );
    row("ferroid (own, 41/4/18)", cell);
    let own = snowflaked_own(threads);
    let cell = sharded_bench(&mut group, &name, threads, &own, "snowflaked-own");
    row("snowflaked (own, 41/10/12)", cell);
    let own = rs_snowflake_own(threads);
    let cell = sharded_bench(&mut group, &name, threads, &own, "rs-snowflake-own");
    row("rs-snowflake (own, 42/5/5/12)", cell);
    let cell = sharded_bench(&mut group, &name, threads, &ulid_own(threads), "ulid-own");
    row("ulid (own)", cell);

    // snowmint's shards, one per thread.
    let sharded = snowmint_sharded(threads);
    check_distinct_shards("snowmint-sharded", &sharded.generator, threads);
    let cell = sharded_bench(&mut group, &name, threads, &sharded, "snowmint-sharded");
    row("snowmint-sharded (a shard per thread)", cell);
    let local = snowmint_shard_local(threads);
    check_distinct_shards("snowmint-sharded-local", &local.0.generator, threads);
    let cell = sharded_bench(&mut group, &name, threads, &local, "snowmint-sharded-local");
    row("snowmint-sharded-local (shard looked up once)", cell);
    let monotonic = snowmint_sharded_monotonic(threads);
    check_distinct_shards("snowmint-sharded-monotonic", &monotonic.generator, threads);
    let cell = sharded_bench(
        &mut group,
        &name,
        threads,
        &monotonic,
        "snowmint-sharded-monotonic",
    );
    row("snowmint-sharded-monotonic", cell);

    // The shared forms.
    let set = hot_set();
    let spin = ferroid_spin();
    for (label, cell) in [
        (
            "snowmint (shared)",
            sharded_bench(&mut group, &name, threads, &set.snowmint, "snowmint-shared"),
        ),
        (
            "ferroid (shared)",
            sharded_bench(&mut group, &name, threads, &set.ferroid, "ferroid-shared"),
        ),
        (
            "ferroid-spin (shared)",
            sharded_bench(&mut group, &name, threads, &spin, "ferroid-spin-shared"),
        ),
        (
            "snowflake_me (shared, 41/0/0/22)",
            sharded_bench(
                &mut group,
                &name,
                threads,
                &set.snowflake_me,
                "snowflake_me-shared",
            ),
        ),
        (
            "sonyflake (shared, capped)",
            sharded_bench(
                &mut group,
                &name,
                threads,
                &set.sonyflake,
                "sonyflake-shared",
            ),
        ),
        (
            "uuid-v7 (process-wide)",
            sharded_bench(&mut group, &name, threads, &set.uuid, "uuid-v7-shared"),
        ),
        (
            "scru128 (process-wide)",
            sharded_bench(&mut group, &name, threads, &set.scru128, "scru128-shared"),
        ),
        (
            "xid (process-wide, 96 bits)",
            sharded_bench(&mut group, &name, threads, &set.xid, "xid-shared"),
        ),
        (
            "yitter (process-wide, 41/10/12)",
            sharded_bench(&mut group, &name, threads, &set.yitter, "yitter-shared"),
        ),
    ] {
        row(label, cell);
    }
    group.finish();
}

/// IDs a batch check mints: half as many again as a thread's check (300,000 on a 1 ms
/// layout), and at least one batch.
fn batch_check_ids(spec: &Spec, batch: usize) -> usize {
    (spec.check_per_thread * 3 / 2).max(batch)
}

/// Scenario 4: one thread fills a reused buffer of 64 or 4096 IDs.
fn batch(c: &mut Criterion, summary: &mut Summary) {
    let columns: Vec<String> = BATCHES
        .iter()
        .map(|b| format!("batch {b}: ns/ID"))
        .collect();
    let table = summary.table(
        "Scenario 4: batches on one thread (41/0/22 where allowed)",
        &columns,
    );
    let set = hot_set();
    let rs_snowflake = rs_snowflake_own(1);
    let bucket = rs_snowflake_bucket();
    let ulid = ulid_own(1);

    for (column, batch) in columns.iter().zip(BATCHES) {
        let name = format!("s4-batch/{batch}");
        let mut group = c.benchmark_group(&name);
        group.throughput(Throughput::Elements(batch as u64));
        // Sonyflake fills 4096 IDs in 160 ms: flat sampling keeps it to 20 batches.
        group.sampling_mode(SamplingMode::Flat);
        let mut ids = vec![Id::from_u64(0); batch];
        let mut raw = vec![0u128; batch];
        let mut peer = Vec::with_capacity(batch);
        let format: fn(f64) -> String = if batch == 64 {
            ns_per_id_of_batch::<64>
        } else {
            ns_per_id_of_batch::<4096>
        };
        // Checks whole batches of `fill`, then times it. Each fill writes its buffer in place;
        // asked to (`collect`), it also returns the batch for the check. Only the fill is timed.
        let mut run = |spec: &Spec,
                       row: &str,
                       function: &str,
                       full_ticks: &dyn Fn() -> Option<u64>,
                       fill: &mut dyn FnMut(bool) -> Option<Vec<u128>>| {
            let mut minted = Vec::new();
            let mut gap = Gap::default();
            while minted.len() < batch_check_ids(spec, batch) {
                let ids = fill(true).expect("the batch, when asked for");
                let wall = wall_ms();
                assert_eq!(ids.len(), batch, "CHECK FAILED: {row}: short batch");
                for &id in &ids {
                    gap.record(spec, id, wall);
                }
                minted.extend(ids);
            }
            let config = format!("s4 {row}, batches of {batch}");
            check_ids(spec, &config, &[minted], gap);
            noting_full_ticks(&format!("{name}/{function}"), full_ticks, || {
                group.bench_function(function, |b| b.iter(|| black_box(fill(false))));
            });
            summary.set(
                table,
                row,
                column,
                Cell::Median {
                    path: format!("{}/{function}", name.replace('/', "_")),
                    format,
                },
            );
        };
        run(
            set.snowmint.spec(),
            "snowmint mint_batch",
            "snowmint-mint_batch",
            &|| set.snowmint.full_ticks(),
            &mut |collect| {
                let mut filled = 0;
                while filled < ids.len() {
                    filled += set
                        .snowmint
                        .generator
                        .mint_batch(&mut ids[filled..])
                        .expect("snowmint mint_batch");
                }
                collect.then(|| ids.iter().map(|id| u128::from(id.to_u64())).collect())
            },
        );
        run(
            set.snowflake_me.spec(),
            "snowflake_me next_ids_into",
            "snowflake_me-next_ids_into",
            &|| None,
            &mut |collect| {
                peer.clear();
                set.snowflake_me
                    .generator
                    .next_ids_into(batch, &mut peer)
                    .expect("snowflake_me next_ids_into");
                collect.then(|| peer.iter().map(|id| u128::from(id.as_u64())).collect())
            },
        );
        // The others one ID at a time, the `&mut self` ones through a generator of their own.
        macro_rules! one_at_a_time {
            ($x:expr, $row:expr, $function:expr) => {{
                let x = $x;
                x.with_local(|local| {
                    run(
                        x.spec(),
                        $row,
                        $function,
                        &|| x.full_ticks(),
                        &mut |collect| {
                            for slot in raw.iter_mut() {
                                *slot = x.mint(local);
                            }
                            collect.then(|| raw.clone())
                        },
                    )
                })
            }};
        }
        each_shared!(&set, |x| {
            let name = x.spec().name;
            if name != "rs-snowflake" && name != "ulid" {
                one_at_a_time!(
                    x,
                    &format!("{name} one at a time"),
                    &format!("{name}-one-at-a-time")
                );
            }
        });
        one_at_a_time!(
            &rs_snowflake,
            "rs-snowflake one at a time (own)",
            "rs-snowflake-one-at-a-time"
        );
        one_at_a_time!(
            &bucket,
            "rs-snowflake-bucket get_id (own)",
            "rs-snowflake-bucket"
        );
        one_at_a_time!(&ulid, "ulid one at a time (own)", "ulid-one-at-a-time");
        group.finish();
    }
}

/// Scenario 5 (and scenario 6's second pass): one mint every `PACE_NS` on one thread.
fn paced(summary: &mut Summary, gaps: &RefCell<BTreeMap<String, Gap>>) {
    let set = twitter_set();
    let clock = quanta::Clock::new();
    let columns = columns(&["mints", "every", "p50", "p99", "p99.9", "max"]);
    let table = summary.table(
        "Scenario 5: paced latency, one thread, Twitter layout (ns per call)",
        &columns,
    );
    println!("\ns5 paced latency (ns per call, quanta raw counter around each mint):");
    each_shared!(&set, |x| {
        let spec = x.spec();
        let (pace, count) = if spec.name == "sonyflake" {
            (SONYFLAKE_PACE_NS, SONYFLAKE_PACED_MINTS)
        } else {
            (PACE_NS, PACED_MINTS)
        };
        let (latencies, gap, _) = paced_run(x, &clock, pace, count, "s5 paced");
        let figures = [
            count.to_string(),
            format!("{pace} ns"),
            percentile(&latencies, 0.5).to_string(),
            percentile(&latencies, 0.99).to_string(),
            percentile(&latencies, 0.999).to_string(),
            latencies[latencies.len() - 1].to_string(),
        ];
        println!(
            "s5 paced: {:<16} {}",
            spec.name,
            columns
                .iter()
                .zip(&figures)
                .map(|(c, f)| format!("{c} {f}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (column, figure) in columns.iter().zip(figures) {
            summary.set(table, spec.name, column, Cell::Text(figure));
        }
        gaps.borrow_mut().insert(format!("{}|s5", spec.name), gap);
    });
}

/// Scenario 6's table, from the passes of scenarios 1 and 5.
fn accuracy(summary: &mut Summary, gaps: &BTreeMap<String, Gap>) {
    let columns = columns(&[
        "tick",
        "s1 (1, 2, 8 thr): ahead / behind",
        "s5 (paced): ahead / behind",
        "largest",
    ]);
    let table = summary.table(
        "Scenario 6: largest gap between an ID's time and the wall clock read right after it, \
         in ticks",
        &columns,
    );
    println!("\ns6 timestamp accuracy (ticks; ahead = the ID's time is after the wall clock):");
    let set = twitter_set();
    each_shared!(&set, |x| {
        let spec = x.spec();
        let s1 = gaps
            .get(&format!("{}|s1", spec.name))
            .copied()
            .unwrap_or_default();
        let s5 = gaps
            .get(&format!("{}|s5", spec.name))
            .copied()
            .unwrap_or_default();
        let figures = [
            format!("{} ms", spec.tick_ms),
            format!("{} / {}", s1.ahead, s1.behind),
            format!("{} / {}", s5.ahead, s5.behind),
            s1.merge(s5).largest().to_string(),
        ];
        println!(
            "s6 accuracy: {:<16} tick {}, s1 ahead {} behind {}, s5 ahead {} behind {}",
            spec.name, spec.tick_ms, s1.ahead, s1.behind, s5.ahead, s5.behind
        );
        for (column, figure) in columns.iter().zip(figures) {
            summary.set(table, spec.name, column, Cell::Text(figure));
        }
    });
}

fn main() {
    if let Some(seconds) = std::env::var_os(targets::SPIN_ENV) {
        targets::spin(&seconds.to_string_lossy());
        return;
    }
    let mut criterion = Criterion::default()
        // 121 benches at about 3 s each (with analysis and plots) keep the whole run near eight
        // minutes on two cores; a tenth of the default resamples makes the plots'
        // density estimates ten times cheaper (they were 3.7 s a bench).
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .nresamples(10_000)
        // Plots for this bench only: the SVGs of scenarios 1 and 2 against the thread count.
        .plotting_backend(PlottingBackend::Plotters)
        .configure_from_args();
    let started = Instant::now();
    let report = report::Report::from_env();
    let mut summary = Summary::default();
    let gaps = RefCell::new(BTreeMap::new());
    if std::env::var("SNOWMINT_PAIRED_ONLY").is_ok_and(|only| only == "1") {
        summary.section("targets");
        targets::targets(&mut summary);
        finish(&summary, report.as_ref(), "targets", started);
        return;
    }
    if std::env::var(scaling::SCALING_ONLY_ENV).is_ok_and(|only| only == "1") {
        summary.section("scaling");
        scaling::scaling(&mut summary);
        finish(&summary, report.as_ref(), "scaling", started);
        return;
    }
    if std::env::var(tails::TAILS_ONLY_ENV).is_ok_and(|only| only == "1") {
        summary.section("tails");
        tails::tails(&mut summary);
        finish(&summary, report.as_ref(), "tails", started);
        return;
    }
    summary.section("scenarios");
    saturation(&mut criterion, &mut summary, &gaps);
    hot_path(&mut criterion, &mut summary);
    sharded(&mut criterion, &mut summary);
    batch(&mut criterion, &mut summary);
    paced(&mut summary, &gaps);
    accuracy(&mut summary, &gaps.borrow());
    summary.section("tails");
    tails::tails(&mut summary);
    summary.section("scaling");
    scaling::scaling(&mut summary);
    summary.section("targets");
    targets::targets(&mut summary);
    criterion.final_summary();
    finish(&summary, report.as_ref(), "peers", started);
}

/// Prints the summary, writes the report where one was asked for, and says how long the run
/// (`what`) took.
fn finish(summary: &Summary, report: Option<&report::Report>, what: &str, started: Instant) {
    summary.print();
    if let Some(report) = report {
        report.write(summary);
    }
    let cores = thread::available_parallelism().map_or(0, usize::from);
    println!(
        "{what} ran in {:.0} s on {cores} cores",
        started.elapsed().as_secs_f64()
    );
}
