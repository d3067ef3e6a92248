//! UUIDv7 and ULID minting: snowmint's 128-bit generators against `uuid`'s `Uuid::now_v7`,
//! `ulid`'s monotonic `Generator`, ferroid 2.0's ULID generators and `scru128::new`, in
//! paired rounds.
//!
//! Each round times every contender of a row back to back (alternating which goes first) for
//! [`WINDOW`] on 1 thread, then on 2; a ratio is taken within each round, and the report gives
//! each contender's median ns/ID (per thread) and each target's median ratio with its lowest
//! and highest. Before timing, each contender's IDs are checked: unique and increasing.
//!
//! Contenders, built as each crate's README builds them:
//! - `snowmint-shared`: `Uuid7Generator::builder().build()` / `UlidGenerator::builder().build()`
//!   (the default clock), shared by reference.
//! - `snowmint-local`: `build_local()`, one per thread.
//! - `snowmint-uuid7-now`, `snowmint-ulid-now`: `Uuid7::now()` / `Ulid::now()`, the
//!   process-wide generators: one call, as `uuid`'s.
//! - `uuid-now_v7`: `uuid::Uuid::now_v7()` (feature `v7`).
//! - `ulid-generator`: `ulid::Generator::new()` and `generate()`, one per thread (it mints
//!   through `&mut self`).
//! - `ferroid-lock-mono`: ferroid's shared `LockMonoUlidGenerator` on its `MonotonicClock`
//!   and `ThreadRandom`, `try_next_id` yielding while pending.
//! - `ferroid-thread-local`: ferroid's `thread_local::Ulid::new_ulid_mono`, yielding while
//!   pending.
//! - `scru128-new`: `scru128::new()` (4.x), its README's form: one process-wide generator
//!   behind a mutex. A SCRU128 ID is a ULID's shape, 48 bits of Unix ms over 80 others (two
//!   24-bit counters, the upper one re-randomized each second, and 32 random bits on every
//!   ID), so it is set beside snowmint's ULID generators, without a target. It has no node
//!   field and a fixed 128-bit layout, so it cannot run on a 64-bit Snowflake layout; the peer
//!   bench (`peers.rs`) also runs it, beside `uuid` and `ulid`, in its scenarios.
//! - `snowmint-uuid7-sharded`, `snowmint-ulid-sharded`: `build_sharded(Shards::SplitSequence(n))`,
//!   a shard for each thread of the largest count.
//! - `snowmint-64-shared`, `snowmint-64-local`, `snowmint-64-sharded`: the 64-bit engine alone
//!   on the 128-bit generators' layout (42 bits of Unix ms, 22 of sequence), for what the
//!   128-bit IDs add at each thread count: at most 1.3 times the engine's time on the shared
//!   and sharded engines (each remembers its millisecond's start per thread).
//!
//! Run: `cargo bench --bench id128` (`ROUNDS=`, `WINDOW_MS=` and `THREADS=1,2,4` override the defaults;
//! `ONLY=local` keeps the contenders whose names contain `local`).

use std::hint::black_box;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use ferroid::generator::LockMonoUlidGenerator;
use ferroid::generator::thread_local::Ulid as FerroidThreadLocal;
use ferroid::id::ULID;
use ferroid::rand::ThreadRandom;
use ferroid::time::MonotonicClock;
use snowmint::family::{Family, FamilyGenerator};
use snowmint::id128::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};
use snowmint::shard::Shards;

/// How long each contender mints in each round.
const WINDOW: Duration = Duration::from_millis(20);
/// Paired rounds per thread count.
const ROUNDS: usize = 15;
/// Mints between two reads of the time.
const CHUNK: usize = 1024;

/// Something that mints 128-bit IDs, through a handle each minting thread takes. Every
/// contender's `mint` is inlined into the timed loop, so none pays for a call the others
/// do not.
trait Contender: Sync {
    type Handle<'a>
    where
        Self: 'a;
    fn handle(&self) -> Self::Handle<'_>;
    fn mint(handle: &mut Self::Handle<'_>) -> u128;
}

/// An ID family's bits.
trait Bits: Family + 'static {
    fn bits(self) -> u128;
}
impl Bits for Uuid7 {
    fn bits(self) -> u128 {
        self.to_u128()
    }
}
impl Bits for Ulid {
    fn bits(self) -> u128 {
        self.to_u128()
    }
}

struct Shared<K: Family>(FamilyGenerator<K>);
impl<K: Bits> Contender for Shared<K> {
    type Handle<'a> = &'a FamilyGenerator<K>;
    fn handle(&self) -> Self::Handle<'_> {
        &self.0
    }
    #[inline(always)]
    fn mint(handle: &mut Self::Handle<'_>) -> u128 {
        handle.mint().unwrap().bits()
    }
}

struct Local<K>(std::marker::PhantomData<fn() -> K>);
impl<K: Bits> Contender for Local<K> {
    type Handle<'a> = FamilyGenerator<K, snowmint::LocalGenerator>;
    fn handle(&self) -> Self::Handle<'_> {
        FamilyGenerator::<K>::builder().build_local().unwrap()
    }
    #[inline(always)]
    fn mint(handle: &mut Self::Handle<'_>) -> u128 {
        handle.mint().unwrap().bits()
    }
}

/// The 64-bit layout the 128-bit generators mint on (42 bits of Unix ms, 22 of sequence):
/// the engine alone, for the cost the 128-bit IDs add.
const ENGINE: snowmint::Layout = snowmint::Layout::builder("engine", 64)
    .time(42)
    .sequence(22)
    .build_const();

struct Engine64(snowmint::Generator);
impl Contender for Engine64 {
    type Handle<'a> = &'a snowmint::Generator;
    fn handle(&self) -> Self::Handle<'_> {
        &self.0
    }
    #[inline(always)]
    fn mint(handle: &mut Self::Handle<'_>) -> u128 {
        u128::from(handle.mint().unwrap().to_u64())
    }
}

struct EngineLocal64;
impl Contender for EngineLocal64 {
    type Handle<'a> = snowmint::LocalGenerator;
    fn handle(&self) -> snowmint::LocalGenerator {
        snowmint::Generator::builder(ENGINE).build_local().unwrap()
    }
    #[inline(always)]
    fn mint(handle: &mut snowmint::LocalGenerator) -> u128 {
        u128::from(handle.mint().unwrap().to_u64())
    }
}

struct Sharded<K: Family>(FamilyGenerator<K, snowmint::shard::ShardedGenerator>);
impl<K: Bits> Contender for Sharded<K> {
    type Handle<'a> = &'a FamilyGenerator<K, snowmint::shard::ShardedGenerator>;
    fn handle(&self) -> Self::Handle<'_> {
        &self.0
    }
    #[inline(always)]
    fn mint(handle: &mut Self::Handle<'_>) -> u128 {
        handle.mint().unwrap().bits()
    }
}

struct EngineSharded64(snowmint::shard::ShardedGenerator);
impl Contender for EngineSharded64 {
    type Handle<'a> = &'a snowmint::shard::ShardedGenerator;
    fn handle(&self) -> Self::Handle<'_> {
        &self.0
    }
    #[inline(always)]
    fn mint(handle: &mut Self::Handle<'_>) -> u128 {
        u128::from(handle.mint().unwrap().to_u64())
    }
}

struct UuidNowV7;
impl Contender for UuidNowV7 {
    type Handle<'a> = ();
    fn handle(&self) {}
    #[inline(always)]
    fn mint(_: &mut ()) -> u128 {
        uuid::Uuid::now_v7().as_u128()
    }
}

struct UlidCrate;
impl Contender for UlidCrate {
    type Handle<'a> = ulid::Generator;
    fn handle(&self) -> ulid::Generator {
        ulid::Generator::new()
    }
    #[inline(always)]
    fn mint(generator: &mut ulid::Generator) -> u128 {
        generator.generate().unwrap().0
    }
}

struct SnowmintNow<K>(std::marker::PhantomData<fn() -> K>);
impl Contender for SnowmintNow<Uuid7> {
    type Handle<'a> = ();
    fn handle(&self) {}
    #[inline(always)]
    fn mint(_: &mut ()) -> u128 {
        Uuid7::now().unwrap().to_u128()
    }
}
impl Contender for SnowmintNow<Ulid> {
    type Handle<'a> = ();
    fn handle(&self) {}
    #[inline(always)]
    fn mint(_: &mut ()) -> u128 {
        Ulid::now().unwrap().to_u128()
    }
}

struct Scru128New;
impl Contender for Scru128New {
    type Handle<'a> = ();
    fn handle(&self) {}
    #[inline(always)]
    fn mint(_: &mut ()) -> u128 {
        scru128::new().to_u128()
    }
}

struct FerroidLock(LockMonoUlidGenerator<ULID, MonotonicClock, ThreadRandom>);
impl Contender for FerroidLock {
    type Handle<'a> = &'a LockMonoUlidGenerator<ULID, MonotonicClock, ThreadRandom>;
    fn handle(&self) -> Self::Handle<'_> {
        &self.0
    }
    #[inline(always)]
    fn mint(generator: &mut Self::Handle<'_>) -> u128 {
        generator
            .try_next_id(|_| thread::yield_now())
            .unwrap()
            .to_raw()
    }
}

struct FerroidLocal;
impl Contender for FerroidLocal {
    type Handle<'a> = ();
    fn handle(&self) {}
    #[inline(always)]
    fn mint(_: &mut ()) -> u128 {
        FerroidThreadLocal::new_ulid_mono(|_| thread::yield_now()).to_raw()
    }
}

/// A contender as a row holds it: its name, a check and a timed run.
trait Measure: Sync {
    fn name(&self) -> &'static str;
    /// Mints 100,000 IDs on one thread: panics unless they are unique and increasing.
    fn check(&self);
    /// ns per ID per thread, `threads` threads minting for `window`.
    fn measure(&self, threads: usize, window: Duration) -> f64;
}

struct Named<C>(&'static str, C);

impl<C: Contender> Measure for Named<C> {
    fn name(&self) -> &'static str {
        self.0
    }

    fn check(&self) {
        let mut handle = self.1.handle();
        let ids: Vec<u128> = (0..100_000).map(|_| C::mint(&mut handle)).collect();
        assert!(
            ids.windows(2).all(|pair| pair[0] < pair[1]),
            "{}: IDs do not increase",
            self.0
        );
    }

    fn measure(&self, threads: usize, window: Duration) -> f64 {
        let start = Barrier::new(threads);
        let runs: Vec<(u64, Duration)> = thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut handle = self.1.handle();
                        // Warm the handle (a thread's first mint may claim or build state).
                        black_box(C::mint(&mut handle));
                        start.wait();
                        let began = Instant::now();
                        let mut count = 0u64;
                        loop {
                            for _ in 0..CHUNK {
                                black_box(C::mint(&mut handle));
                            }
                            count += CHUNK as u64;
                            let elapsed = began.elapsed();
                            if elapsed >= window {
                                return (count, elapsed);
                            }
                        }
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let total: u64 = runs.iter().map(|(count, _)| count).sum();
        let longest = runs
            .iter()
            .map(|(_, elapsed)| *elapsed)
            .max()
            .unwrap_or_default();
        longest.as_nanos() as f64 * threads as f64 / total as f64
    }
}

/// Lowest, median and highest of `values`.
fn spread(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[0],
        values[values.len() / 2],
        values[values.len() - 1],
    )
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is ignored.
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let window = std::env::var("WINDOW_MS")
        .ok()
        .and_then(|w| w.parse().ok())
        .map_or(WINDOW, Duration::from_millis);
    // `THREADS=1,2,4,8,16` measures at those thread counts (default 1 and 2); a sharded
    // generator has a shard for each thread of the largest count.
    let thread_counts: Vec<usize> = std::env::var("THREADS")
        .ok()
        .map(|t| t.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .filter(|t: &Vec<usize>| !t.is_empty())
        .unwrap_or_else(|| vec![1, 2]);
    let threads_max = thread_counts.iter().copied().max().unwrap_or(1);
    let contenders: Vec<Box<dyn Measure>> = vec![
        Box::new(Named(
            "snowmint-uuid7-shared",
            Shared(Uuid7Generator::builder().build().unwrap()),
        )),
        Box::new(Named(
            "snowmint-uuid7-local",
            Local::<Uuid7>(Default::default()),
        )),
        Box::new(Named(
            "snowmint-uuid7-now",
            SnowmintNow::<Uuid7>(Default::default()),
        )),
        Box::new(Named("uuid-now_v7", UuidNowV7)),
        Box::new(Named(
            "snowmint-ulid-shared",
            Shared(UlidGenerator::builder().build().unwrap()),
        )),
        Box::new(Named(
            "snowmint-ulid-local",
            Local::<Ulid>(Default::default()),
        )),
        Box::new(Named(
            "snowmint-ulid-now",
            SnowmintNow::<Ulid>(Default::default()),
        )),
        Box::new(Named("ulid-generator", UlidCrate)),
        Box::new(Named(
            "ferroid-lock-mono",
            FerroidLock(LockMonoUlidGenerator::new(
                MonotonicClock::default(),
                ThreadRandom,
            )),
        )),
        Box::new(Named("ferroid-thread-local", FerroidLocal)),
        Box::new(Named("scru128-new", Scru128New)),
        Box::new(Named(
            "snowmint-64-shared",
            Engine64(snowmint::Generator::builder(ENGINE).build().unwrap()),
        )),
        Box::new(Named("snowmint-64-local", EngineLocal64)),
        Box::new(Named(
            "snowmint-uuid7-sharded",
            Sharded(
                Uuid7Generator::builder()
                    .build_sharded(Shards::SplitSequence(threads_max))
                    .unwrap(),
            ),
        )),
        Box::new(Named(
            "snowmint-ulid-sharded",
            Sharded(
                UlidGenerator::builder()
                    .build_sharded(Shards::SplitSequence(threads_max))
                    .unwrap(),
            ),
        )),
        Box::new(Named(
            "snowmint-64-sharded",
            EngineSharded64(
                snowmint::Generator::builder(ENGINE)
                    .build_sharded(Shards::SplitSequence(threads_max))
                    .unwrap(),
            ),
        )),
    ];
    // `ONLY=local` keeps the contenders whose names contain `local`.
    let only = std::env::var("ONLY").unwrap_or_default();
    let contenders: Vec<Box<dyn Measure>> = contenders
        .into_iter()
        .filter(|c| c.name().contains(only.as_str()))
        .collect();
    for contender in &contenders {
        contender.check();
    }
    let index = |name: &str| contenders.iter().position(|c| c.name() == name);
    // (snowmint contender, peer, target: the ratio to stay at or below, if any)
    let targets = [
        ("snowmint-uuid7-shared", "uuid-now_v7", Some(1.0 / 20.0)),
        ("snowmint-uuid7-local", "uuid-now_v7", Some(1.0 / 20.0)),
        ("snowmint-uuid7-now", "uuid-now_v7", Some(1.0 / 20.0)),
        // The process-wide generator: as cheap as a shared one built by hand.
        ("snowmint-uuid7-now", "snowmint-uuid7-shared", Some(1.1)),
        ("snowmint-ulid-now", "snowmint-ulid-shared", Some(1.1)),
        ("snowmint-ulid-shared", "ulid-generator", Some(1.0 / 3.0)),
        ("snowmint-ulid-local", "ulid-generator", Some(1.0 / 3.0)),
        ("snowmint-ulid-shared", "ferroid-lock-mono", Some(1.0)),
        ("snowmint-ulid-local", "ferroid-thread-local", Some(1.0)),
        // SCRU128, a ULID's shape: beside snowmint's ULID generators, without a target.
        ("snowmint-ulid-shared", "scru128-new", None),
        ("snowmint-ulid-local", "scru128-new", None),
        // Scaling: what the 128-bit IDs add to the engine they wrap, at each thread count.
        ("snowmint-uuid7-shared", "snowmint-64-shared", Some(1.3)),
        ("snowmint-ulid-shared", "snowmint-64-shared", Some(1.3)),
        ("snowmint-ulid-local", "snowmint-64-local", None),
        ("snowmint-uuid7-sharded", "snowmint-64-sharded", Some(1.3)),
        ("snowmint-ulid-sharded", "snowmint-64-sharded", Some(1.3)),
    ];
    println!(
        "id128 bench: {rounds} paired rounds, {} ms per contender per round, {} CPUs",
        window.as_millis(),
        thread::available_parallelism().map_or(0, |n| n.get())
    );
    for &threads in &thread_counts {
        let mut times = vec![Vec::new(); contenders.len()];
        for round in 0..rounds {
            let mut order: Vec<usize> = (0..contenders.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                times[i].push(contenders[i].measure(threads, window));
            }
        }
        println!("\n{threads} thread(s): ns per ID per thread, median [lowest, highest]");
        for (contender, runs) in contenders.iter().zip(&times) {
            let (low, median, high) = spread(&mut runs.clone());
            println!(
                "  {:<22} {median:>8.2}  [{low:.2}, {high:.2}]",
                contender.name()
            );
        }
        println!("{threads} thread(s): ratios within each round, median [lowest, highest]");
        for (ours, peer, target) in targets {
            let (Some(a), Some(b)) = (index(ours), index(peer)) else {
                continue;
            };
            let (a, b) = (&times[a], &times[b]);
            let mut ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
            let (low, median, high) = spread(&mut ratios);
            let verdict = match target {
                Some(limit) if median <= limit => format!("met (target <= {limit:.3})"),
                Some(limit) => format!("MISSED (target <= {limit:.3})"),
                None => String::new(),
            };
            println!("  {ours:<22} / {peer:<21} {median:>7.3}  [{low:.3}, {high:.3}]  {verdict}");
        }
    }
}
