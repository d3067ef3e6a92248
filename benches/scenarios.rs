//! The six scenarios of BENCHMARKING.md, snowmint against every peer it names, in one run.
//!
//! | group or table | scenario | what it measures |
//! |---|---|---|
//! | `s1-saturation-twitter/<contender>/<threads>` | 1 | one shared generator on the Twitter layout (41 time, 10 node, 12 sequence bits), 1, 2 and 8 threads; aggregate IDs/s, and the percentage of the layout's ceiling (4,096,000 IDs/s) from a separate run of 0.5 s ([`saturation_rate`]) |
//! | `s2-hot-path/<contender>/<threads>` | 2 | one shared generator on 41/0/22 (never capped by its sequence), 1, 2 and 4 threads; ns/ID |
//! | `s3-sharded/<N>-threads` | 3 | N = `available_parallelism()` threads, each contender in its own per-thread or shared form; aggregate IDs/s |
//! | `s4-batch/64`, `s4-batch/4096` | 4 | one thread fills a reused buffer; a batch API where the contender has one, else one at a time; ns/ID |
//! | table "s5" | 5 | one mint every 500 ns on one thread, on the Twitter layout: p50, p99, p99.9 and max of each call |
//! | table "s6" | 6 | the largest gap, in ticks, between an ID's time and the wall clock read right after it, in scenario 1's check pass and in scenario 5 |
//! | table "Targets" | 1, 2, 3, 5 | the targets, each with a verdict ([`targets`]): scenario 2 with 1 and 2 threads, default-built `LocalGenerator`s on 2 threads, and scenario 5's p99.9, as medians of ratios to ferroid's shared `AtomicSnowflakeGenerator` over 24 rounds that each measure the contenders back to back; scenario 1's % of the ceiling with 1, 2 and 8 threads, and with 2 threads while another process spins on every core; the default clock's wake-ups per second while its generators sit idle |
//!
//! # Contenders, and how each is set up
//!
//! - `snowmint`: a shared [`Generator`] built as a user builds it,
//!   `Generator::builder(layout)`, its node fields set, `.build()`, so on the default clock, [`CachedClock::global`]
//!   (one load from a `static` per reading, refreshed by one process-wide thread);
//!   `snowmint-monotonic`: the same on a [`MonotonicClock`], for a user who wants no thread
//!   (the CPU's counter read on every mint). In scenario 3, `snowmint-local-shards`: one
//!   default-built [`LocalGenerator`] per thread from
//!   `build_local_shards(Shards::SplitSequence(n))`.
//! - `ferroid` 2.0: `AtomicSnowflakeGenerator` on ferroid's `MonotonicClock::<1>::with_epoch
//!   (TWITTER_EPOCH)`, backing off with `thread::yield_now`, as ferroid's README sets it up
//!   ("Setting Up a Clock", "Basic Usage"). Twitter layout: its `SnowflakeTwitterId`; 41/0/22:
//!   a `define_snowflake_id!` type with 0 machine bits. Scenario 3 gives each thread its own
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
//!   and one per thread in scenario 3, as its docs' example (an overflow of the random bits
//!   would commit the increment, as the example shows). No ceiling.
//!
//! # Reading the figures
//!
//! Multi-threaded benches use `iter_custom`: T threads start together at a barrier and each
//! mints `iters` IDs; the duration is from the first thread's start to the last thread's end.
//! So the per-iteration `time` is **ns per ID per thread**, and, each thread count setting
//! `Throughput::Elements(T)`, `thrpt` is the **aggregate** IDs/s. The SVGs under
//! `target/criterion/s1-saturation-twitter/report/` and `target/criterion/s2-hot-path/report/`
//! (`lines.svg`: time against threads, `lines_throughput.svg`: aggregate IDs/s against
//! threads) draw scenarios 1 and 2 against the thread count; plots are on for this bench only.
//!
//! Every contender's `mint` wrapper is `#[inline(always)]`, so the timed loop holds the
//! library's own code, as a caller's function would, and no call the harness adds: left to
//! the inliner, some wrappers were inlined and others were not, which cost the others about
//! 0.4 ns an ID. For the same reason closures reach the timed loops by value, never through
//! a reference (see [`check_and_bench_owning`]).
//!
//! `SNOWMINT_PAIRED_ONLY=1 cargo bench --bench scenarios` runs only the targets' table
//! (under a minute on two cores).
//!
//! # Saturation
//!
//! [`saturation_rate`] counts only the IDs of whole ticks, those after every thread's first
//! tick and before every thread's last (a run's first and last ticks are partial), so a run's
//! edges add nothing to the figure and a tick nobody minted in counts as lost; no contender
//! here runs its time ahead of the clock (snowmint borrows only when told to), so its ticks
//! are the clock's. The busy row runs another process, this bench's
//! own executable with `SNOWMINT_SPIN_SECONDS` set ([`Spinner`]), which spins one thread per
//! core until it is killed (or for that many seconds, if this one dies first).
//!
//! # Checks
//!
//! Before each scenario is timed, every contender mints through the same code, on the same
//! thread counts, and the run panics unless the IDs are unique and strictly increasing per
//! thread (every contender here promises it, except `rs-snowflake-bucket`); scenario 5 checks
//! the IDs it minted the same way.
//!
//! Run with `cargo bench --bench scenarios` (about six minutes on two cores). The summary
//! tables at the end are markdown, medians of criterion's estimates read back from
//! `target/criterion`.

mod support;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::hint::{black_box, spin_loop};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, PlottingBackend, SamplingMode, Throughput,
};
use ferroid::generator::{AtomicSnowflakeGenerator, BasicSnowflakeGenerator};
use ferroid::id::{SnowflakeId, SnowflakeTwitterId};
use ferroid::time::{MonotonicClock as FerroidClock, TWITTER_EPOCH};
use snowmint::{
    Clock, Generator, GeneratorBuilder, Id, Layout, LocalGenerator,
    clock::{CachedClock, MonotonicClock},
    shard::Shards,
};
use support::{EPOCH_MS, HOT, on_threads, timed_on_threads};

/// Sonyflake's fixed epoch, 2014-09-01T00:00:00Z, in Unix milliseconds.
const SONYFLAKE_EPOCH_MS: u64 = 1_409_529_600_000;

// ferroid accepts a 0-bit machine field, so its layout is exactly 41/0/22.
ferroid::define_snowflake_id!(
    /// ferroid's 41/0/22 ID: 1 reserved bit, 41 time bits, no machine bits, 22 sequence bits.
    FerroidHot, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 0,
    sequence: 22
);

ferroid::define_snowflake_id!(
    /// ferroid's per-thread ID of scenario 3: 41 time bits, 4 machine bits (one value per
    /// thread, up to 16), 18 sequence bits.
    FerroidShard, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 4,
    sequence: 18
);

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
/// Rounds of the paired comparisons ([`targets`]), after one round of warm-up: a multiple of
/// 6, so that three contenders run in each of their six orders equally often.
const PAIRED_ROUNDS: usize = 24;
/// Rounds of the saturation targets, after one of warm-up: a multiple of 4, so that each of
/// the two contenders runs first equally often.
const SATURATION_ROUNDS: usize = 4;
/// One run of a saturation target, per contender and round.
const TARGET_SATURATION_RUN: Duration = Duration::from_millis(300);
/// How long the idle target holds its generators before it counts wake-ups, and how long it
/// counts.
const IDLE_SETTLE: Duration = Duration::from_millis(200);
const IDLE_WINDOW: Duration = Duration::from_secs(2);
/// Set in the environment of the [`Spinner`]'s process: it spins this many seconds and exits.
const SPIN_ENV: &str = "SNOWMINT_SPIN_SECONDS";
/// The longest a spinner spins if nobody kills it: the busy saturation target takes
/// 2 × (`SATURATION_ROUNDS` + 1) runs of `TARGET_SATURATION_RUN`, 3 s.
const SPIN_LIMIT: Duration = Duration::from_secs(15);
/// IDs per contender per round of the paired scenario 2, shared out among the threads.
const PAIRED_IDS: u64 = 4_000_000;
/// Mints per contender per round of the paired scenario 5.
const PAIRED_PACED_MINTS: usize = 50_000;
/// IDs each thread mints in a check (sonyflake: fewer, see [`Spec::check_per_thread`]).
const CHECK_PER_THREAD: usize = 100_000;

// ---------------------------------------------------------------------------------------------
// Contenders
// ---------------------------------------------------------------------------------------------

/// What a scenario needs to know of a contender's IDs and layout.
#[derive(Clone, Copy)]
struct Spec {
    name: &'static str,
    /// Bits below the time field.
    time_shift: u32,
    /// Width of the time field.
    time_bits: u32,
    /// The Unix ms the time field counts from.
    epoch_ms: u64,
    /// Milliseconds per tick of the time field.
    tick_ms: u64,
    /// IDs per second one generator can mint on its layout, if its sequence caps it.
    ceiling: Option<u64>,
    /// IDs per thread in a check.
    check_per_thread: usize,
}

impl Spec {
    /// A Snowflake layout with `sequence_and_node` bits below `time_bits` of 1 ms ticks.
    const fn snowflake(name: &'static str, time_bits: u32, below: u32, sequence: u32) -> Spec {
        Spec {
            name,
            time_shift: below,
            time_bits,
            epoch_ms: EPOCH_MS,
            tick_ms: 1,
            ceiling: Some((1 << sequence) * 1000),
            check_per_thread: CHECK_PER_THREAD,
        }
    }

    /// A 128-bit ID with 48 bits of Unix ms on top (UUID v7, ULID).
    const fn unix_ms_128(name: &'static str) -> Spec {
        Spec {
            name,
            time_shift: 80,
            time_bits: 48,
            epoch_ms: 0,
            tick_ms: 1,
            ceiling: None,
            check_per_thread: CHECK_PER_THREAD,
        }
    }

    fn of_layout(name: &'static str, layout: &Layout) -> Spec {
        let time = layout.time_field();
        Spec {
            name,
            time_shift: time.shift(),
            time_bits: time.bits(),
            epoch_ms: layout.epoch_ms(),
            tick_ms: layout.tick_ms(),
            ceiling: Some((layout.max_sequence() + 1) * 1000 / layout.tick_ms()),
            check_per_thread: CHECK_PER_THREAD,
        }
    }

    fn ticks(&self, id: u128) -> i64 {
        ((id >> self.time_shift) & ((1u128 << self.time_bits) - 1)) as i64
    }

    fn wall_ticks(&self, unix_ms: u64) -> i64 {
        (unix_ms.saturating_sub(self.epoch_ms) / self.tick_ms) as i64
    }
}

/// A generator shared by every minting thread.
trait Contender: Sync {
    fn spec(&self) -> &Spec;
    /// One ID, widened to 128 bits.
    fn mint(&self) -> u128;
}

struct Snowmint<C: Clock> {
    spec: Spec,
    generator: Generator<C>,
}

impl<C: Clock> Contender for Snowmint<C>
where
    Generator<C>: Sync,
{
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        self.generator
            .mint()
            .expect("snowmint mint")
            .to_u64()
            .into()
    }
}

/// A builder for `layout` with every node field 0, as the peers' node IDs are.
fn node_zero(layout: Layout) -> GeneratorBuilder {
    Generator::builder(layout).default_nodes()
}

/// snowmint as a user builds it: on the default clock, [`CachedClock::global`].
fn snowmint_default(layout: Layout) -> Snowmint<CachedClock> {
    Snowmint {
        spec: Spec::of_layout("snowmint", &layout),
        generator: node_zero(layout).build().expect("valid layout"),
    }
}

/// snowmint on a [`MonotonicClock`]: no thread, the CPU's counter read on every mint.
fn snowmint_monotonic(layout: Layout) -> Snowmint<MonotonicClock> {
    Snowmint {
        spec: Spec::of_layout("snowmint-monotonic", &layout),
        generator: node_zero(layout)
            .clock(MonotonicClock::new())
            .build()
            .expect("valid layout"),
    }
}

struct Ferroid<T: SnowflakeId<Ty = u64>> {
    spec: Spec,
    generator: AtomicSnowflakeGenerator<T, FerroidClock>,
}

macro_rules! ferroid_contender {
    ($id:ty) => {
        impl Contender for Ferroid<$id> {
            fn spec(&self) -> &Spec {
                &self.spec
            }

            #[inline(always)]
            fn mint(&self) -> u128 {
                // As ferroid's docs examples: yield to the scheduler when told to wait.
                self.generator
                    .next_id(|_| thread::yield_now())
                    .to_raw()
                    .into()
            }
        }
    };
}

ferroid_contender!(SnowflakeTwitterId);
ferroid_contender!(FerroidHot);

fn ferroid_clock() -> FerroidClock {
    FerroidClock::<1>::with_epoch(TWITTER_EPOCH)
}

fn ferroid_twitter() -> Ferroid<SnowflakeTwitterId> {
    Ferroid {
        spec: Spec::snowflake("ferroid", 41, 22, 12),
        generator: AtomicSnowflakeGenerator::new(0, ferroid_clock()),
    }
}

fn ferroid_hot() -> Ferroid<FerroidHot> {
    Ferroid {
        spec: Spec::snowflake("ferroid", 41, 22, 22),
        generator: AtomicSnowflakeGenerator::new(0, ferroid_clock()),
    }
}

struct SnowflakeMe {
    spec: Spec,
    generator: snowflake_me::Snowflake,
}

impl Contender for SnowflakeMe {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        self.generator
            .next_id()
            .expect("snowflake_me next_id")
            .as_u64()
            .into()
    }
}

/// snowflake_me with `node_bits` each for data center and machine, both IDs 0.
fn snowflake_me(node_bits: u8) -> SnowflakeMe {
    let sequence = 22 - 2 * node_bits;
    SnowflakeMe {
        spec: Spec::snowflake("snowflake_me", 41, 22, u32::from(sequence)),
        generator: snowflake_me::Snowflake::builder()
            .bit_len_time(41)
            .bit_len_sequence(sequence)
            .bit_len_data_center_id(node_bits)
            .bit_len_machine_id(node_bits)
            .machine_id(&|| Ok(0))
            .data_center_id(&|| Ok(0))
            .start_time(EPOCH_MS as i64)
            .finalize()
            .expect("valid snowflake_me configuration"),
    }
}

struct Snowflaked {
    spec: Spec,
    generator: snowflaked::sync::Generator,
}

impl Contender for Snowflaked {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        self.generator.generate::<u64>().into()
    }
}

fn twitter_epoch() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(EPOCH_MS)
}

fn snowflaked() -> Snowflaked {
    Snowflaked {
        spec: Spec::snowflake("snowflaked", 42, 22, 12),
        generator: snowflaked::sync::Generator::builder()
            .instance(0)
            .epoch(twitter_epoch())
            .build(),
    }
}

struct RsSnowflake {
    spec: Spec,
    generator: Mutex<snowflake::SnowflakeIdGenerator>,
}

impl Contender for RsSnowflake {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        let id = self
            .generator
            .lock()
            .expect("rs-snowflake lock")
            .real_time_generate();
        (id as u64).into()
    }
}

fn rs_snowflake_generator(node: i32) -> snowflake::SnowflakeIdGenerator {
    snowflake::SnowflakeIdGenerator::with_epoch(0, node, twitter_epoch())
}

fn rs_snowflake() -> RsSnowflake {
    RsSnowflake {
        spec: Spec::snowflake("rs-snowflake", 42, 22, 12),
        generator: Mutex::new(rs_snowflake_generator(0)),
    }
}

struct Sonyflake {
    spec: Spec,
    generator: sonyflake::Sonyflake,
}

impl Contender for Sonyflake {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        self.generator
            .next_id()
            .expect("sonyflake next_id")
            .to_u64()
            .into()
    }
}

fn sonyflake() -> Sonyflake {
    Sonyflake {
        spec: Spec {
            name: "sonyflake",
            time_shift: 24,
            time_bits: 39,
            epoch_ms: SONYFLAKE_EPOCH_MS,
            tick_ms: 10,
            ceiling: Some(25_600),
            // 10 ticks' worth per thread: enough to cross ticks, short enough to wait for.
            check_per_thread: 2_560,
        },
        generator: sonyflake::Sonyflake::builder()
            .machine_id(&|| Ok(1))
            .finalize()
            .expect("sonyflake with machine ID 1"),
    }
}

struct UuidV7 {
    spec: Spec,
}

impl Contender for UuidV7 {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        uuid::Uuid::now_v7().as_u128()
    }
}

fn uuid_v7() -> UuidV7 {
    UuidV7 {
        spec: Spec::unix_ms_128("uuid-v7"),
    }
}

struct Ulid {
    spec: Spec,
    generator: Mutex<ulid::Generator>,
}

impl Contender for Ulid {
    fn spec(&self) -> &Spec {
        &self.spec
    }

    #[inline(always)]
    fn mint(&self) -> u128 {
        mint_ulid(&mut self.generator.lock().expect("ulid lock"))
    }
}

/// As ulid's `Generator` example: an overflow of the random bits commits the increment.
fn mint_ulid(generator: &mut ulid::Generator) -> u128 {
    match generator.generate() {
        Ok(id) => id,
        Err(overflow) => overflow.commit_overflow_increment(),
    }
    .into()
}

/// A default-built [`LocalGenerator`]'s mint, widened.
#[inline(always)]
fn mint_local(generator: &mut LocalGenerator) -> u128 {
    generator
        .mint()
        .expect("snowmint local mint")
        .to_u64()
        .into()
}

fn ulid() -> Ulid {
    Ulid {
        spec: Spec::unix_ms_128("ulid"),
        generator: Mutex::new(ulid::Generator::new()),
    }
}

/// Every contender of scenarios 1, 2 and 5 as one shared generator; `F` is ferroid's
/// contender on the set's layout.
struct SharedSet<F> {
    snowmint: Snowmint<CachedClock>,
    snowmint_monotonic: Snowmint<MonotonicClock>,
    ferroid: F,
    snowflake_me: SnowflakeMe,
    snowflaked: Snowflaked,
    rs_snowflake: RsSnowflake,
    sonyflake: Sonyflake,
    uuid: UuidV7,
    ulid: Ulid,
}

/// Runs `$body` with `$x` bound to each contender of a [`SharedSet`] in turn, in the order of
/// its fields.
macro_rules! each_shared {
    ($set:expr, |$x:ident| $body:expr) => {
        each_shared!(@fields $set, $x, $body,
            snowmint snowmint_monotonic ferroid snowflake_me snowflaked
            rs_snowflake sonyflake uuid ulid)
    };
    (@fields $set:expr, $x:ident, $body:expr, $($field:ident)*) => {{
        let set = $set;
        $({
            let $x = &set.$field;
            $body;
        })*
    }};
}

/// Scenario 1's and 5's set: every contender on its Twitter layout (sonyflake on its own).
fn twitter_set() -> SharedSet<Ferroid<SnowflakeTwitterId>> {
    SharedSet {
        snowmint: snowmint_default(Layout::TWITTER),
        snowmint_monotonic: snowmint_monotonic(Layout::TWITTER),
        ferroid: ferroid_twitter(),
        snowflake_me: snowflake_me(5),
        snowflaked: snowflaked(),
        rs_snowflake: rs_snowflake(),
        sonyflake: sonyflake(),
        uuid: uuid_v7(),
        ulid: ulid(),
    }
}

/// Scenario 2's set: 41/0/22 where the contender allows it, its own layout otherwise.
fn hot_set() -> SharedSet<Ferroid<FerroidHot>> {
    SharedSet {
        snowmint: snowmint_default(HOT),
        snowmint_monotonic: snowmint_monotonic(HOT),
        ferroid: ferroid_hot(),
        snowflake_me: snowflake_me(0),
        snowflaked: snowflaked(),
        rs_snowflake: rs_snowflake(),
        sonyflake: sonyflake(),
        uuid: uuid_v7(),
        ulid: ulid(),
    }
}

// ---------------------------------------------------------------------------------------------
// Checks and clocks
// ---------------------------------------------------------------------------------------------

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

/// The largest gaps between an ID's time and the wall clock read right after it, in ticks.
#[derive(Clone, Copy, Default)]
struct Gap {
    /// The most an ID's tick was after the wall clock's.
    ahead: i64,
    /// The most an ID's tick was before the wall clock's.
    behind: i64,
}

impl Gap {
    fn record(&mut self, spec: &Spec, id: u128, wall_ms: u64) {
        let gap = spec.ticks(id) - spec.wall_ticks(wall_ms);
        self.ahead = self.ahead.max(gap);
        self.behind = self.behind.max(-gap);
    }

    fn merge(self, other: Gap) -> Gap {
        Gap {
            ahead: self.ahead.max(other.ahead),
            behind: self.behind.max(other.behind),
        }
    }

    fn largest(self) -> i64 {
        self.ahead.max(self.behind)
    }
}

/// Panics unless all IDs are unique and, if `increasing`, each thread's strictly increase.
fn check_ids(contender: &str, config: &str, per_thread: &[Vec<u128>], increasing: bool) {
    if increasing {
        for (thread, ids) in per_thread.iter().enumerate() {
            if let Some(pair) = ids.windows(2).find(|pair| pair[0] >= pair[1]) {
                panic!(
                    "CHECK FAILED: {contender} ({config}): thread {thread} minted {} then {}: \
                     not strictly increasing",
                    pair[0], pair[1]
                );
            }
        }
    }
    let total: usize = per_thread.iter().map(Vec::len).sum();
    let unique: HashSet<u128> = per_thread.iter().flatten().copied().collect();
    assert_eq!(
        unique.len(),
        total,
        "CHECK FAILED: {contender} ({config}): {} duplicate IDs among {total}",
        total - unique.len()
    );
}

/// Mints through `c` on `threads` threads, reading the wall clock after each mint, checks the
/// IDs and returns the largest gaps.
fn check_shared<C: Contender>(c: &C, config: &str, threads: usize) -> Gap {
    let spec = c.spec();
    let results = on_threads(threads, || {
        let mut gap = Gap::default();
        let ids: Vec<u128> = (0..spec.check_per_thread)
            .map(|_| {
                let id = c.mint();
                gap.record(spec, id, wall_ms());
                id
            })
            .collect();
        (ids, gap)
    });
    let gap = results
        .iter()
        .fold(Gap::default(), |all, (_, _, (_, gap))| all.merge(*gap));
    let per_thread: Vec<Vec<u128>> = results.into_iter().map(|(_, _, (ids, _))| ids).collect();
    check_ids(spec.name, config, &per_thread, true);
    gap
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/// Times `c` on `threads` threads (see the module docs for how to read the figure).
fn bench_shared<C: Contender>(group: &mut BenchmarkGroup<'_, WallTime>, c: &C, threads: usize) {
    group.throughput(Throughput::Elements(threads as u64));
    group.bench_function(BenchmarkId::new(c.spec().name, threads), |b| {
        b.iter_custom(|iters| timed_on_threads(threads, iters, || c.mint() as u64))
    });
}

/// Checks `c` on `threads` threads, then times it as `<name>-shared`; returns that name.
fn bench_named<C: Contender>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    c: &C,
    threads: usize,
) -> String {
    check_shared(c, &format!("{threads} threads, shared"), threads);
    let function = format!("{}-shared", c.spec().name);
    group.bench_function(&function, |b| {
        b.iter_custom(|iters| timed_on_threads(threads, iters, || c.mint() as u64))
    });
    function
}

/// IDs/s of `c` on `threads` threads minting for `run`, counted over whole ticks: the IDs
/// whose time is a tick after every thread's first and before every thread's last, divided by
/// those ticks' length. Each thread's IDs increase (the checks make sure), so its ticks come
/// in order and it counts them as they come.
fn saturation_rate<C: Contender>(c: &C, threads: usize, run: Duration) -> f64 {
    let spec = c.spec();
    let runs = on_threads(threads, || {
        let deadline = Instant::now() + run;
        // (tick, IDs minted in it), in order.
        let mut ticks: Vec<(i64, u64)> = Vec::with_capacity(4096);
        let mut tick = spec.ticks(c.mint());
        let mut minted = 1;
        loop {
            for _ in 0..64 {
                let next = spec.ticks(c.mint());
                if next == tick {
                    minted += 1;
                } else {
                    ticks.push((tick, minted));
                    (tick, minted) = (next, 1);
                }
            }
            if Instant::now() >= deadline {
                ticks.push((tick, minted));
                return ticks;
            }
        }
    });
    let first = runs.iter().map(|(_, _, ticks)| ticks[0].0).max();
    let last = runs
        .iter()
        .map(|(_, _, ticks)| ticks[ticks.len() - 1].0)
        .min();
    let (first, last) = (first.expect("one thread"), last.expect("one thread"));
    assert!(
        last - first >= 2,
        "{}: a saturation run of {run:?} spanned no whole tick in which every thread minted",
        spec.name
    );
    let minted: u64 = runs
        .iter()
        .flat_map(|(_, _, ticks)| ticks)
        .filter(|(tick, _)| first < *tick && *tick < last)
        .map(|(_, minted)| minted)
        .sum();
    let whole_ms = ((last - first - 1) as u64 * spec.tick_ms) as f64;
    minted as f64 * 1000.0 / whole_ms
}

/// As `timed_on_threads`, each thread minting through a value it owns for the run, taken
/// from `pool` (untimed) and given back after.
fn timed_owning<T: Send>(
    threads: usize,
    iters: u64,
    pool: &Mutex<Vec<T>>,
    mint: impl Fn(&mut T) -> u128 + Sync,
) -> Duration {
    let barrier = Barrier::new(threads);
    let spans = on_threads(threads, || {
        let mut owned = take(pool);
        barrier.wait();
        let start = Instant::now();
        for _ in 0..iters {
            black_box(mint(&mut owned));
        }
        let end = Instant::now();
        give_back(pool, owned);
        (start, end)
    });
    let start = spans.iter().map(|span| span.2.0).min().expect("one thread");
    let end = spans.iter().map(|span| span.2.1).max().expect("one thread");
    end - start
}

fn take<T>(pool: &Mutex<Vec<T>>) -> T {
    pool.lock()
        .expect("pool lock")
        .pop()
        .expect("one pooled generator per thread")
}

fn give_back<T>(pool: &Mutex<Vec<T>>, value: T) {
    pool.lock().expect("pool lock").push(value);
}

/// Checks per-thread generators from `pool`, then times them.
fn check_and_bench_owning<T: Send>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    threads: usize,
    pool: &Mutex<Vec<T>>,
    mint: impl Fn(&mut T) -> u128 + Sync + Copy,
) {
    check_owning(name, threads, pool, mint);
    // By value: through a reference the timed loop called `<&F as Fn>::call`, which the
    // inliner kept out of line for some contenders and not others.
    group.bench_function(name, |b| {
        b.iter_custom(|iters| timed_owning(threads, iters, pool, mint))
    });
}

/// Panics unless `threads` threads, each minting through its own value from `pool`, mint
/// unique IDs, strictly increasing per thread.
fn check_owning<T: Send>(
    name: &str,
    threads: usize,
    pool: &Mutex<Vec<T>>,
    mint: impl Fn(&mut T) -> u128 + Sync,
) {
    let per_thread: Vec<Vec<u128>> = on_threads(threads, || {
        let mut owned = take(pool);
        let ids = (0..CHECK_PER_THREAD).map(|_| mint(&mut owned)).collect();
        give_back(pool, owned);
        ids
    })
    .into_iter()
    .map(|(_, _, ids)| ids)
    .collect();
    check_ids(
        name,
        &format!("{threads} threads, own generators"),
        &per_thread,
        true,
    );
}

// ---------------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------------

/// A figure of the summary: printed during the run, or criterion's median read at the end.
enum Cell {
    Text(String),
    /// The median time per iteration of `group/function/value`, shown as `format` of it.
    Median {
        path: String,
        format: fn(f64) -> String,
    },
}

/// One markdown table of the summary.
struct Table {
    title: String,
    /// The header of the first column, which names the rows.
    rows_are: String,
    columns: Vec<String>,
    rows: Vec<(String, BTreeMap<String, Cell>)>,
}

#[derive(Default)]
struct Summary {
    tables: Vec<Table>,
}

impl Summary {
    fn table(&mut self, title: &str, columns: &[String]) -> usize {
        self.table_of("contender", title, columns)
    }

    /// A table whose rows are `rows_are` (the header of its first column).
    fn table_of(&mut self, rows_are: &str, title: &str, columns: &[String]) -> usize {
        self.tables.push(Table {
            title: title.to_owned(),
            rows_are: rows_are.to_owned(),
            columns: columns.to_vec(),
            rows: Vec::new(),
        });
        self.tables.len() - 1
    }

    fn set(&mut self, table: usize, row: &str, column: &str, cell: Cell) {
        let rows = &mut self.tables[table].rows;
        let index = match rows.iter().position(|(name, _)| name == row) {
            Some(index) => index,
            None => {
                rows.push((row.to_owned(), BTreeMap::new()));
                rows.len() - 1
            }
        };
        rows[index].1.insert(column.to_owned(), cell);
    }

    fn print(&self) {
        let root = criterion_home();
        println!("\n# Summary (medians of criterion's estimates; printed figures of this run)\n");
        for table in &self.tables {
            println!("### {}\n", table.title);
            println!("| {} | {} |", table.rows_are, table.columns.join(" | "));
            println!("|---|{}", "---|".repeat(table.columns.len()));
            for (row, cells) in &table.rows {
                let shown: Vec<String> = table
                    .columns
                    .iter()
                    .map(|column| match cells.get(column) {
                        None => String::new(),
                        Some(Cell::Text(text)) => text.clone(),
                        Some(Cell::Median { path, format }) => {
                            median_ns(&root, path).map_or_else(|| "n/a".to_owned(), format)
                        }
                    })
                    .collect();
                println!("| {row} | {} |", shown.join(" | "));
            }
            println!();
        }
    }
}

/// Where criterion writes its estimates, as criterion finds it.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("criterion")
}

/// The median time per iteration, in ns, criterion estimated for `path` in this run.
fn median_ns(root: &std::path::Path, path: &str) -> Option<f64> {
    let file = root.join(path).join("new").join("estimates.json");
    let text = std::fs::read_to_string(file).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

fn millions(ids_per_s: f64) -> String {
    format!("{:.2} M/s", ids_per_s / 1e6)
}

fn percent_of(spec: &Spec, ids_per_s: f64) -> String {
    spec.ceiling.map_or_else(
        || "n/a".to_owned(),
        |ceiling| format!("{:.1}%", 100.0 * ids_per_s / ceiling as f64),
    )
}

/// `ns per ID per thread (aggregate)`, for a thread count known at compile time.
fn per_thread_and_aggregate<const THREADS: u64>(ns: f64) -> String {
    format!("{ns:.1} ns ({})", millions(THREADS as f64 * 1e9 / ns))
}

fn ns_per_id<const BATCH: u64>(ns: f64) -> String {
    format!("{:.3} ns", ns / BATCH as f64)
}

fn median_cell(path: String, threads: usize) -> Cell {
    let format: fn(f64) -> String = match threads {
        1 => per_thread_and_aggregate::<1>,
        2 => per_thread_and_aggregate::<2>,
        4 => per_thread_and_aggregate::<4>,
        8 => per_thread_and_aggregate::<8>,
        16 => per_thread_and_aggregate::<16>,
        _ => |ns| format!("{ns:.1} ns per ID per thread"),
    };
    Cell::Median { path, format }
}

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

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
         ceiling 4,096,000/s, sonyflake 25,600/s)",
        &columns,
    );
    for threads in S1_THREADS {
        each_shared!(&set, |x| {
            let gap = check_shared(x, &format!("s1, {threads} threads"), threads);
            let mut gaps = gaps.borrow_mut();
            let entry = gaps.entry(format!("{}|s1", x.spec().name)).or_default();
            *entry = entry.merge(gap);
        });
    }
    for threads in S1_THREADS {
        each_shared!(&set, |x| {
            let rate = saturation_rate(x, threads, SATURATION_RUN);
            let percent = percent_of(x.spec(), rate);
            println!(
                "s1 saturation: {:<16} {threads} threads: {:>14.0} IDs/s = {percent} of the \
                 layout's ceiling ({} IDs in {} s)",
                x.spec().name,
                rate,
                x.spec()
                    .ceiling
                    .map_or_else(|| "none".to_owned(), |c| c.to_string()),
                SATURATION_RUN.as_secs_f64()
            );
            summary.set(
                table,
                x.spec().name,
                &format!("{threads} thr, 0.5 s run, % of ceiling"),
                Cell::Text(format!("{} ({percent})", millions(rate))),
            );
        });
    }
    let mut group = c.benchmark_group("s1-saturation-twitter");
    for threads in S1_THREADS {
        each_shared!(&set, |x| {
            bench_shared(&mut group, x, threads);
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

/// Scenario 2.
fn hot_path(c: &mut Criterion, summary: &mut Summary) {
    let set = hot_set();
    for threads in S2_THREADS {
        each_shared!(&set, |x| {
            check_shared(x, &format!("s2, {threads} threads"), threads);
        });
    }
    let columns: Vec<String> = S2_THREADS
        .iter()
        .map(|threads| format!("{threads} thr: ns/ID per thread (aggregate)"))
        .collect();
    let table = summary.table(
        "Scenario 2: hot path, 41/0/22 (snowflaked, rs-snowflake: 41/10/12, sonyflake: its own; \
         capped), one shared generator",
        &columns,
    );
    let mut group = c.benchmark_group("s2-hot-path");
    for threads in S2_THREADS {
        each_shared!(&set, |x| {
            bench_shared(&mut group, x, threads);
            summary.set(
                table,
                x.spec().name,
                &columns[S2_THREADS
                    .iter()
                    .position(|&t| t == threads)
                    .expect("a scenario 2 thread count")],
                median_cell(format!("s2-hot-path/{}/{threads}", x.spec().name), threads),
            );
        });
    }
    group.finish();
}

/// Scenario 3: as many threads as cores, each contender in its per-thread or shared form.
fn sharded(c: &mut Criterion, summary: &mut Summary) {
    let threads = thread::available_parallelism().map_or(2, usize::from);
    assert!(
        threads <= 16,
        "ferroid's per-thread layout has 4 machine bits"
    );
    let name = format!("s3-sharded/{threads}-threads");
    let column = format!("{threads} thr: ns/ID per thread (aggregate)");
    let table = summary.table(
        &format!("Scenario 3: {threads} threads, per-thread or shared, 41/0/22 where allowed"),
        std::slice::from_ref(&column),
    );
    let mut group = c.benchmark_group(&name);
    group.throughput(Throughput::Elements(threads as u64));
    let mut row = |row: &str, function: &str| {
        summary.set(
            table,
            row,
            &column,
            // criterion's directory for a group named `a/b` is `a_b`.
            median_cell(format!("{}/{function}", name.replace('/', "_")), threads),
        );
    };

    let local_shards = Mutex::new(
        Generator::builder(HOT)
            .build_local_shards(Shards::SplitSequence(threads))
            .expect("valid 41/0/22 layout and shard count"),
    );
    check_and_bench_owning(
        &mut group,
        "snowmint-local-shards",
        threads,
        &local_shards,
        mint_local,
    );
    row("snowmint-local-shards (own)", "snowmint-local-shards");

    let clock = ferroid_clock();
    let ferroid = Mutex::new(
        (0..threads)
            .map(|machine| {
                BasicSnowflakeGenerator::<FerroidShard, _>::new(machine as u64, clock.clone())
            })
            .collect::<Vec<_>>(),
    );
    check_and_bench_owning(&mut group, "ferroid-own", threads, &ferroid, |g| {
        u128::from(g.next_id(|_| thread::yield_now()).to_raw())
    });
    row("ferroid (own, 41/4/18)", "ferroid-own");

    let snowflaked = Mutex::new(
        (0..threads)
            .map(|instance| {
                snowflaked::Generator::builder()
                    .instance(instance as u16)
                    .epoch(twitter_epoch())
                    .build()
            })
            .collect::<Vec<snowflaked::Generator>>(),
    );
    check_and_bench_owning(&mut group, "snowflaked-own", threads, &snowflaked, |g| {
        u128::from(g.generate::<u64>())
    });
    row("snowflaked (own, 41/10/12)", "snowflaked-own");

    let rs_snowflake = Mutex::new(
        (0..threads)
            .map(|node| rs_snowflake_generator(node as i32))
            .collect::<Vec<_>>(),
    );
    check_and_bench_owning(
        &mut group,
        "rs-snowflake-own",
        threads,
        &rs_snowflake,
        |g| u128::from(g.real_time_generate() as u64),
    );
    row("rs-snowflake (own, 42/5/5/12)", "rs-snowflake-own");

    let ulid = Mutex::new((0..threads).map(|_| ulid::Generator::new()).collect());
    check_and_bench_owning(&mut group, "ulid-own", threads, &ulid, mint_ulid);
    row("ulid (own)", "ulid-own");

    // The shared forms.
    let set = hot_set();
    for (row_name, function) in [
        (
            "snowmint (shared)",
            bench_named(&mut group, &set.snowmint, threads),
        ),
        (
            "snowflake_me (shared, 41/0/0/22)",
            bench_named(&mut group, &set.snowflake_me, threads),
        ),
        (
            "sonyflake (shared, capped)",
            bench_named(&mut group, &set.sonyflake, threads),
        ),
        (
            "uuid-v7 (process-wide)",
            bench_named(&mut group, &set.uuid, threads),
        ),
    ] {
        row(row_name, &function);
    }
    group.finish();
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
    let mut rs_snowflake = rs_snowflake_generator(0);
    let mut bucket = snowflake::SnowflakeIdBucket::with_epoch(0, 0, twitter_epoch());
    let mut ulid = ulid::Generator::new();

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
            ns_per_id::<64>
        } else {
            ns_per_id::<4096>
        };
        let mut run = |row: &str,
                       function: &str,
                       increasing: bool,
                       check_ids_wanted: usize,
                       fill: &mut dyn FnMut(bool) -> Option<Vec<u128>>| {
            let mut minted = Vec::new();
            while minted.len() < check_ids_wanted.max(batch) {
                minted.extend(fill(true).expect("the batch, when asked for"));
            }
            check_ids(row, &format!("batches of {batch}"), &[minted], increasing);
            group.bench_function(function, |b| b.iter(|| black_box(fill(false))));
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
        // Each closure fills its buffer in place; asked to (`collect`), it also returns the
        // batch for the check. Only the fill is timed.
        run(
            "snowmint mint_batch",
            "snowmint-mint_batch",
            true,
            CHECK_PER_THREAD,
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
            "snowflake_me next_ids_into",
            "snowflake_me-next_ids_into",
            true,
            CHECK_PER_THREAD,
            &mut |collect| {
                peer.clear();
                set.snowflake_me
                    .generator
                    .next_ids_into(batch, &mut peer)
                    .expect("snowflake_me next_ids_into");
                collect.then(|| peer.iter().map(|id| u128::from(id.as_u64())).collect())
            },
        );
        each_shared!(&set, |x| {
            if x.spec().name != "rs-snowflake" && x.spec().name != "ulid" {
                let row = format!("{} one at a time", x.spec().name);
                let function = format!("{}-one-at-a-time", x.spec().name);
                run(
                    &row,
                    &function,
                    true,
                    x.spec().check_per_thread,
                    &mut |collect| one_at_a_time(&mut raw, collect, || x.mint()),
                );
            }
        });
        run(
            "rs-snowflake one at a time (own)",
            "rs-snowflake-one-at-a-time",
            true,
            CHECK_PER_THREAD,
            &mut |collect| {
                one_at_a_time(&mut raw, collect, || {
                    u128::from(rs_snowflake.real_time_generate() as u64)
                })
            },
        );
        run(
            "rs-snowflake-bucket get_id (own)",
            "rs-snowflake-bucket",
            false,
            CHECK_PER_THREAD,
            &mut |collect| one_at_a_time(&mut raw, collect, || u128::from(bucket.get_id() as u64)),
        );
        run(
            "ulid one at a time (own)",
            "ulid-one-at-a-time",
            true,
            CHECK_PER_THREAD,
            &mut |collect| one_at_a_time(&mut raw, collect, || mint_ulid(&mut ulid)),
        );
        group.finish();
    }
}

/// Percentile `q` of sorted `values`.
fn percentile(sorted: &[u64], q: f64) -> u64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// One mint every `pace` ns, `count` times, on this thread: each call's latency, sorted, and
/// the largest gaps to the wall clock. Panics unless the IDs are unique and increasing.
fn paced_run<C: Contender>(
    x: &C,
    clock: &quanta::Clock,
    pace: u64,
    count: usize,
) -> (Vec<u64>, Gap) {
    let spec = x.spec();
    let mut latencies = Vec::with_capacity(count);
    let mut ids = Vec::with_capacity(count);
    let mut gap = Gap::default();
    let base = clock.raw();
    let mut due = 0;
    for _ in 0..count {
        while clock.delta_as_nanos(base, clock.raw()) < due {
            spin_loop();
        }
        let start = clock.raw();
        let id = x.mint();
        let end = clock.raw();
        gap.record(spec, id, wall_ms());
        latencies.push(clock.delta_as_nanos(start, end));
        ids.push(id);
        // No catching up after a stall: the next mint is one period after this one.
        due = (due + pace).max(clock.delta_as_nanos(base, end));
    }
    check_ids(spec.name, "s5 paced", &[ids], true);
    latencies.sort_unstable();
    (latencies, gap)
}

/// Scenario 4's fill of `raw` one ID at a time with `mint`; a copy of the IDs when asked to
/// (`collect`), for the check.
#[inline(always)]
fn one_at_a_time(
    raw: &mut [u128],
    collect: bool,
    mut mint: impl FnMut() -> u128,
) -> Option<Vec<u128>> {
    for slot in raw.iter_mut() {
        *slot = mint();
    }
    collect.then(|| raw.to_vec())
}

/// Scenario 5 (and scenario 6's second pass): one mint every `PACE_NS` on one thread.
fn paced(summary: &mut Summary, gaps: &RefCell<BTreeMap<String, Gap>>) {
    let set = twitter_set();
    let clock = quanta::Clock::new();
    let columns: Vec<String> = ["mints", "every", "p50", "p99", "p99.9", "max"]
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
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
        let (latencies, gap) = paced_run(x, &clock, pace, count);
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
    let columns: Vec<String> = [
        "tick",
        "s1 (1, 2, 8 thr): ahead / behind",
        "s5 (paced): ahead / behind",
        "largest",
    ]
    .iter()
    .map(|c| (*c).to_owned())
    .collect();
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

/// A bound the issue sets on a figure.
#[derive(Clone, Copy)]
enum Bound {
    AtMost(f64),
    AtLeast(f64),
}

impl Bound {
    /// "met", or by how much, relative to the bound, `figure` missed it.
    fn verdict(self, figure: f64) -> String {
        let missed = match self {
            Bound::AtMost(bound) => figure / bound - 1.0,
            Bound::AtLeast(bound) => 1.0 - figure / bound,
        };
        if missed <= 0.0 {
            "met".to_owned()
        } else {
            format!("missed by {:.1}%", 100.0 * missed)
        }
    }
}

/// The median of some figures, with the lowest and the highest.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    low: f64,
    high: f64,
}

impl Spread {
    fn of(figures: impl Iterator<Item = f64>) -> Spread {
        let mut figures: Vec<f64> = figures.collect();
        figures.sort_by(f64::total_cmp);
        Spread {
            median: median(figures.iter().copied()),
            low: figures[0],
            high: figures[figures.len() - 1],
        }
    }

    /// `**median** (lowest–highest)`, with `decimals` decimals and `unit` after each figure.
    fn shown(self, decimals: usize, unit: &str) -> String {
        format!(
            "**{:.decimals$}{unit}** ({:.decimals$}–{:.decimals$}{unit})",
            self.median, self.low, self.high
        )
    }
}

/// The targets, each with its verdict:
///
/// - scenario 2 (41/0/22, one shared generator, 1 and 2 threads): snowmint's ns per ID per
///   thread ÷ ferroid's ≤ 1 (and `snowmint-monotonic`'s ratio, without a target);
/// - default-built `LocalGenerator`s, one per thread, on 2 threads: ns per ID per thread ÷
///   ferroid's shared generator's on 2 threads ≤ 0.5 (twice its aggregate IDs/s);
/// - scenario 5 (one mint every 500 ns, Twitter layout): snowmint's p99.9 ÷ ferroid's ≤ 1
///   (and `snowmint-monotonic`'s, without a target);
/// - scenario 1 (Twitter layout, one shared generator): ≥ 99.5% of the ceiling with 1, 2 and
///   8 threads, and ≥ 97% with 2 threads while another process spins on every core
///   ([`Spinner`]), ferroid's figure beside it;
/// - the default clock, idle: at most 10 wake-ups a second of [`CachedClock::global`] while
///   default-built generators are held but not used.
///
/// Every contender is built as a user builds it, and checked first, as in the scenarios. The
/// ratios come from rounds that measure the contenders of a row back to back, in an order
/// that changes from round to round (every rotation, forwards and backwards), each divided by
/// ferroid's within the round, so that drift in the machine's speed (another tenant,
/// frequency) falls on all of them alike instead of on whichever criterion happened to time
/// during it. A round of scenarios 2 and 3 mints `PAIRED_IDS` per contender, shared out among
/// the threads; of scenario 5, `PAIRED_PACED_MINTS` at one every `PACE_NS`. Scenario 1's
/// percentages are medians of `SATURATION_ROUNDS` rounds of `TARGET_SATURATION_RUN` each, in
/// alternating order.
fn targets(summary: &mut Summary) {
    let columns: Vec<String> = ["median (lowest–highest)", "target", "verdict", "beside it"]
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    let table = summary.table_of(
        "target",
        &format!(
            "Targets (ratios: medians of per-round ratios to ferroid's shared \
             AtomicSnowflakeGenerator over {PAIRED_ROUNDS} rounds; saturation: medians of \
             {SATURATION_ROUNDS} rounds)"
        ),
        &columns,
    );
    println!("\ntargets:");
    let mut row =
        |name: &str, shown: String, figure: f64, target: Option<(Bound, &str)>, beside| {
            let (target, verdict) = target
                .map_or(("none".to_owned(), "—".to_owned()), |(bound, text)| {
                    (text.to_owned(), bound.verdict(figure))
                });
            println!("target {name}: {shown}; target {target}: {verdict}; {beside}");
            for (column, text) in columns.iter().zip([shown, target, verdict, beside]) {
                summary.set(table, name, column, Cell::Text(text));
            }
        };
    let at_most_1 = Some((Bound::AtMost(1.0), "≤ 1.00"));

    // Scenario 2.
    let hot = hot_set();
    for threads in [1, 2] {
        let config = format!("targets, s2, {threads} threads");
        check_shared(&hot.snowmint, &config, threads);
        check_shared(&hot.snowmint_monotonic, &config, threads);
        check_shared(&hot.ferroid, &config, threads);
        let iters = PAIRED_IDS / threads as u64;
        let rounds: Vec<[f64; 3]> = rotated(PAIRED_ROUNDS, |k| match k {
            0 => hot_ns(&hot.snowmint, threads, iters),
            1 => hot_ns(&hot.snowmint_monotonic, threads, iters),
            _ => hot_ns(&hot.ferroid, threads, iters),
        });
        let ns = medians(&rounds);
        for (k, contender, target) in [(0, "snowmint", at_most_1), (1, "snowmint-monotonic", None)]
        {
            let ratio = ratio_to_last(&rounds, k);
            row(
                &format!("s2 hot path, shared, {threads} thr: {contender} ÷ ferroid (ns/ID)"),
                ratio.shown(2, ""),
                ratio.median,
                target,
                format!("{:.2} / {:.2} ns per ID per thread", ns[k], ns[2]),
            );
        }
    }

    // Per-thread generators against ferroid's shared one, on 2 threads: twice its aggregate
    // IDs/s is half its ns per ID per thread.
    let threads = 2;
    let local = Mutex::new(
        Generator::builder(HOT)
            .build_local_shards(Shards::SplitSequence(threads))
            .expect("41/0/22 shards"),
    );
    check_owning("snowmint-local-shards", threads, &local, mint_local);
    check_shared(&hot.ferroid, "targets, per-thread, 2 threads", threads);
    let iters = PAIRED_IDS / threads as u64;
    let rounds: Vec<[f64; 2]> = rotated(PAIRED_ROUNDS, |k| match k {
        0 => timed_owning(threads, iters, &local, mint_local).as_nanos() as f64 / iters as f64,
        _ => hot_ns(&hot.ferroid, threads, iters),
    });
    let ratio = ratio_to_last(&rounds, 0);
    let ns = medians(&rounds);
    row(
        "per-thread LocalGenerator, 2 thr ÷ ferroid shared, 2 thr (ns/ID)",
        ratio.shown(2, ""),
        ratio.median,
        Some((Bound::AtMost(0.5), "≤ 0.50 (2× the IDs/s)")),
        format!("{:.2} / {:.2} ns per ID per thread", ns[0], ns[1]),
    );

    // Scenario 5 (`paced_run` checks what it mints). A p99.9 of one round's mints is a few
    // ticks of a 10 ns timer, so the row also gives each contender's p99.9 over all rounds.
    let twitter = twitter_set();
    let clock = quanta::Clock::new();
    let mut pooled: [Vec<u64>; 3] = Default::default();
    let mut runs = 0;
    let rounds: Vec<[f64; 3]> = rotated(PAIRED_ROUNDS, |k| {
        let (latencies, _) = match k {
            0 => paced_run(&twitter.snowmint, &clock, PACE_NS, PAIRED_PACED_MINTS),
            1 => paced_run(
                &twitter.snowmint_monotonic,
                &clock,
                PACE_NS,
                PAIRED_PACED_MINTS,
            ),
            _ => paced_run(&twitter.ferroid, &clock, PACE_NS, PAIRED_PACED_MINTS),
        };
        let p999 = percentile(&latencies, 0.999) as f64;
        // The warm-up round's three runs are left out, as `rotated` leaves out its figures.
        runs += 1;
        if runs > 3 {
            pooled[k].extend(latencies);
        }
        p999
    });
    let overall: Vec<u64> = pooled
        .iter_mut()
        .map(|latencies| {
            latencies.sort_unstable();
            percentile(latencies, 0.999)
        })
        .collect();
    let ns = medians(&rounds);
    for (k, contender, target) in [(0, "snowmint", at_most_1), (1, "snowmint-monotonic", None)] {
        let ratio = ratio_to_last(&rounds, k);
        row(
            &format!("s5 paced, 1 per {PACE_NS} ns, twitter: {contender} ÷ ferroid (p99.9)"),
            ratio.shown(2, ""),
            ratio.median,
            target,
            format!(
                "{:.0} / {:.0} ns (medians); over all rounds {} / {} ns",
                ns[k], ns[2], overall[k], overall[2]
            ),
        );
    }

    // Scenario 1, and with another process spinning on every core.
    let ceiling = twitter
        .snowmint
        .spec()
        .ceiling
        .expect("the Twitter layout's ceiling") as f64;
    let saturation = |threads: usize| -> [Spread; 2] {
        let rounds: Vec<[f64; 2]> = rotated(SATURATION_ROUNDS, |k| match k {
            0 => saturation_rate(&twitter.snowmint, threads, TARGET_SATURATION_RUN),
            _ => saturation_rate(&twitter.ferroid, threads, TARGET_SATURATION_RUN),
        });
        [0, 1].map(|k| Spread::of(rounds.iter().map(|r| 100.0 * r[k] / ceiling)))
    };
    let mut saturation_row = |name: &str, [snowmint, ferroid]: [Spread; 2], bound: f64| {
        row(
            name,
            snowmint.shown(1, "%"),
            snowmint.median,
            Some((Bound::AtLeast(bound), &format!("≥ {bound}%"))),
            format!("ferroid {}", ferroid.shown(1, "%").replace("**", "")),
        );
    };
    for threads in S1_THREADS {
        let config = format!("targets, s1, {threads} threads");
        check_shared(&twitter.snowmint, &config, threads);
        check_shared(&twitter.ferroid, &config, threads);
        saturation_row(
            &format!("s1 saturation, twitter, shared, {threads} thr: snowmint, % of ceiling"),
            saturation(threads),
            99.5,
        );
    }
    let busy = {
        let _spinner = Spinner::start();
        saturation(2)
    };
    saturation_row(
        "s1 saturation, twitter, shared, 2 thr, every core busy: snowmint, % of ceiling",
        busy,
        97.0,
    );

    // The default clock while its generators sit idle.
    let (wakeups, idle) = idle_wakeups();
    let rate = wakeups as f64 / idle.as_secs_f64();
    row(
        "idle: CachedClock::global() wake-ups per second, default-built generators held",
        format!("**{rate:.1}/s**"),
        rate,
        Some((Bound::AtMost(10.0), "≤ 10/s")),
        format!(
            "{wakeups} wake-ups in {:.2} s, after {} ms of settling",
            idle.as_secs_f64(),
            IDLE_SETTLE.as_millis()
        ),
    );
}

/// Builds default-built generators of every form, mints a little from each, and holds them
/// unused for `IDLE_SETTLE` and then `IDLE_WINDOW`: how many times the default clock's
/// refresher woke in the window, and the window's length.
fn idle_wakeups() -> (u64, Duration) {
    let shared = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build()
        .expect("valid layout");
    let local = Generator::builder(HOT).build_local().expect("valid layout");
    let sharded = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build_sharded(Shards::SplitSequence(2))
        .expect("valid layout and shard count");
    let local_shards = Generator::builder(HOT)
        .build_local_shards(Shards::SplitSequence(2))
        .expect("valid layout and shard count");
    for _ in 0..1_000 {
        black_box(shared.mint().expect("mint"));
        black_box(local.mint().expect("mint"));
        black_box(sharded.mint().expect("mint"));
        for generator in &local_shards {
            black_box(generator.mint().expect("mint"));
        }
    }
    thread::sleep(IDLE_SETTLE);
    let (before, start) = (CachedClock::global().wakeups(), Instant::now());
    thread::sleep(IDLE_WINDOW);
    let (after, idle) = (CachedClock::global().wakeups(), start.elapsed());
    black_box((&shared, &local, &sharded, &local_shards));
    (after - before, idle)
}

/// Another process spinning one thread per core, until dropped: this bench's own executable,
/// run with `SPIN_ENV` set (see [`spin`]). Dropping it kills the process, also when a panic
/// unwinds past it; if this process dies without unwinding, the spinner stops on its own
/// after `SPIN_LIMIT`.
struct Spinner(Child);

impl Spinner {
    /// Starts the spinner and returns once its threads spin.
    fn start() -> Spinner {
        let mut child = Command::new(std::env::current_exe().expect("this bench's executable"))
            .env(SPIN_ENV, SPIN_LIMIT.as_secs().to_string())
            .env_remove("SNOWMINT_PAIRED_ONLY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the spinning process");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the spinner's stdout");
        let spinner = Spinner(child);
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the spinner's stdout");
        assert_eq!(line.trim(), "spinning", "the spinner did not start");
        spinner
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        // The process may have ended on its own (after `SPIN_LIMIT`): nothing to kill then.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The spinner's `main`: one thread per core spins for `seconds`, then the process ends.
fn spin(seconds: &str) {
    let seconds: u64 = seconds
        .parse()
        .expect("SNOWMINT_SPIN_SECONDS: whole seconds");
    let until = Instant::now() + Duration::from_secs(seconds);
    let cores = thread::available_parallelism().map_or(2, usize::from);
    thread::scope(|s| {
        for _ in 0..cores {
            s.spawn(|| {
                while Instant::now() < until {
                    for _ in 0..1_000 {
                        spin_loop();
                    }
                }
            });
        }
        let mut stdout = std::io::stdout();
        writeln!(stdout, "spinning").expect("tell the bench the threads spin");
        stdout.flush().expect("tell the bench the threads spin");
    });
}

/// `measure(k)` of contenders k = 0..N in `rounds` rounds after one of warm-up, each round in
/// another order: the rotations of 0..N, forwards and then backwards. The figures, by round
/// and contender.
fn rotated<const N: usize>(rounds: usize, mut measure: impl FnMut(usize) -> f64) -> Vec<[f64; N]> {
    (0..=rounds)
        .map(|round| {
            let mut figures = [0.0; N];
            for step in 0..N {
                let step = if (round / N) % 2 == 0 {
                    step
                } else {
                    N - 1 - step
                };
                let k = (round + step) % N;
                figures[k] = measure(k);
            }
            figures
        })
        .skip(1)
        .collect()
}

/// ns per ID per thread of `c` minting `iters` IDs on each of `threads` threads.
fn hot_ns<C: Contender>(c: &C, threads: usize, iters: u64) -> f64 {
    timed_on_threads(threads, iters, || c.mint() as u64).as_nanos() as f64 / iters as f64
}

/// Contender `k`'s figure divided by the last's, round by round.
fn ratio_to_last<const N: usize>(rounds: &[[f64; N]], k: usize) -> Spread {
    Spread::of(rounds.iter().map(|r| r[k] / r[N - 1]))
}

/// Each contender's median figure over the rounds.
fn medians<const N: usize>(rounds: &[[f64; N]]) -> [f64; N] {
    std::array::from_fn(|k| median(rounds.iter().map(|r| r[k])))
}

/// The median: the middle figure, or the mean of the two middle ones.
fn median(figures: impl Iterator<Item = f64>) -> f64 {
    let mut figures: Vec<f64> = figures.collect();
    figures.sort_by(f64::total_cmp);
    let middle = figures.len() / 2;
    if figures.len() % 2 == 0 {
        (figures[middle - 1] + figures[middle]) / 2.0
    } else {
        figures[middle]
    }
}

fn main() {
    if let Some(seconds) = std::env::var_os(SPIN_ENV) {
        spin(&seconds.to_string_lossy());
        return;
    }
    let mut criterion = Criterion::default()
        // 87 benches at about 3 s each (with analysis and plots) keep the whole run near
        // five minutes on two cores; a tenth of the default resamples makes the plots' density
        // estimates ten times cheaper (they were 3.7 s a bench).
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .nresamples(10_000)
        // Plots for this bench only: the SVGs of scenarios 1 and 2 against the thread count.
        .plotting_backend(PlottingBackend::Plotters)
        .configure_from_args();
    let started = Instant::now();
    let mut summary = Summary::default();
    let gaps = RefCell::new(BTreeMap::new());
    let cores = thread::available_parallelism().map_or(0, usize::from);
    if std::env::var("SNOWMINT_PAIRED_ONLY").is_ok_and(|only| only == "1") {
        targets(&mut summary);
        summary.print();
        println!(
            "targets ran in {:.0} s on {cores} cores",
            started.elapsed().as_secs_f64()
        );
        return;
    }
    saturation(&mut criterion, &mut summary, &gaps);
    hot_path(&mut criterion, &mut summary);
    sharded(&mut criterion, &mut summary);
    batch(&mut criterion, &mut summary);
    paced(&mut summary, &gaps);
    accuracy(&mut summary, &gaps.borrow());
    targets(&mut summary);
    criterion.final_summary();
    summary.print();
    println!(
        "scenarios ran in {:.0} s on {cores} cores",
        started.elapsed().as_secs_f64()
    );
}
