//! The contenders: one [`Contender`] trait; snowmint's generators behind it once, generic over
//! [`Mint`]; each peer behind it as its README builds it (see the bench's docs).

use std::hint::spin_loop;
use std::sync::{Arc, Mutex, Once};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferroid::generator::{AtomicSnowflakeGenerator, BasicSnowflakeGenerator};
use ferroid::id::{SnowflakeId, SnowflakeTwitterId};
use ferroid::time::{MonotonicClock as FerroidClock, TWITTER_EPOCH};
use snowmint::generator::Stats;
use snowmint::layout::FixedLayout;
use snowmint::{
    Clock, Generator, GeneratorBuilder, Id, Layout, LocalGenerator, Mint,
    clock::{CachedClock, MonotonicClock},
    shard::{ShardedGenerator, Shards},
};
use yit_id_generator::{IdGeneratorOptions, YitIdHelper};

use crate::support::{EPOCH_MS, HOT};

/// Sonyflake's fixed epoch, 2014-09-01T00:00:00Z, in Unix milliseconds.
const SONYFLAKE_EPOCH_MS: u64 = 1_409_529_600_000;
/// IDs each thread mints in a check (sonyflake: fewer, see [`sonyflake`]).
pub const CHECK_PER_THREAD: usize = 200_000;
/// xid's counter: 3 bytes, process-wide, wrapping; more IDs than this in one second repeat.
const XID_COUNTER: u64 = 1 << 24;
/// Yitter's `TopOverCostCount` left at its default: the most ticks its drift borrows ahead of
/// the clock, 1 ms each.
const YITTER_MOST_DRIFT_MS: u64 = 2000;

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

// The scaling scenario's per-thread IDs on k threads: log2(k) machine bits, so each thread's
// sequence is as wide as that of one of k snowmint shards of 41/0/22 (`FerroidHot` for one
// thread, `FerroidShard` for 16).
ferroid::define_snowflake_id!(
    /// ferroid's per-thread ID for 2 threads: 41 time bits, 1 machine bit, 21 sequence bits.
    FerroidShard1, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 1,
    sequence: 21
);

ferroid::define_snowflake_id!(
    /// ferroid's per-thread ID for 4 threads: 41 time bits, 2 machine bits, 20 sequence bits.
    FerroidShard2, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 2,
    sequence: 20
);

ferroid::define_snowflake_id!(
    /// ferroid's per-thread ID for 8 threads: 41 time bits, 3 machine bits, 19 sequence bits.
    FerroidShard3, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 3,
    sequence: 19
);

/// ferroid's shared generator of `T` IDs on its ticker clock.
type Ferroid<T> = AtomicSnowflakeGenerator<T, FerroidClock>;

// ---------------------------------------------------------------------------------------------
// What a scenario knows of a contender
// ---------------------------------------------------------------------------------------------

/// What a scenario needs to know of a contender's IDs and layout.
#[derive(Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    /// Bits below the time field.
    time_shift: u32,
    /// Width of the time field.
    time_bits: u32,
    /// The Unix ms the time field counts from.
    epoch_ms: u64,
    /// Milliseconds per tick of the time field.
    pub tick_ms: u64,
    /// IDs per second one generator can mint on its layout, if its sequence caps it.
    pub ceiling: Option<u64>,
    /// IDs per thread in a check.
    pub check_per_thread: usize,
    /// What the contender promises of each thread's IDs, so what its check asks.
    pub order: Order,
    /// How far ahead of the clock the contender stamps IDs by design, in ms: 0 but for
    /// yitter, whose drift borrows up to 2000 ticks when a tick fills. A check allows it that
    /// much more ahead; a saturation run counts such a contender's IDs over its wall time,
    /// since its ticks are not the clock's ([`crate::measure::saturation_rate`]).
    pub drift_ms: u64,
}

/// What a contender promises of the order of each thread's IDs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each thread's IDs strictly increase and carry the time they were minted at: every
    /// contender's promise but the two below.
    Increasing,
    /// Each thread's IDs carry the time they were minted at, in order of that time only:
    /// xid, whose counter starts at a random value and wraps, so that two IDs of one second
    /// can come in either order (its "sortable" is by the second).
    ByTime,
    /// Unique only: `rs-snowflake-bucket`, whose times run ahead of the clock and whose IDs
    /// decrease within a refill.
    Unordered,
}

impl Spec {
    /// A Snowflake layout with `below` bits (node and sequence) under `time_bits` of 1 ms ticks
    /// from Twitter's epoch, `sequence` of them the sequence.
    pub const fn snowflake(name: &'static str, time_bits: u32, below: u32, sequence: u32) -> Spec {
        Spec {
            name,
            time_shift: below,
            time_bits,
            epoch_ms: EPOCH_MS,
            tick_ms: 1,
            ceiling: Some((1 << sequence) * 1000),
            check_per_thread: CHECK_PER_THREAD,
            order: Order::Increasing,
            drift_ms: 0,
        }
    }

    /// A 128-bit ID with 48 bits of Unix ms on top (UUID v7, ULID, SCRU128).
    const fn unix_ms_128(name: &'static str) -> Spec {
        Spec {
            name,
            time_shift: 80,
            time_bits: 48,
            epoch_ms: 0,
            tick_ms: 1,
            ceiling: None,
            check_per_thread: CHECK_PER_THREAD,
            order: Order::Increasing,
            drift_ms: 0,
        }
    }

    pub fn of_layout(name: &'static str, layout: &Layout) -> Spec {
        let time = layout.time_field();
        Spec {
            name,
            time_shift: time.shift(),
            time_bits: time.bits(),
            epoch_ms: layout.epoch_ms(),
            tick_ms: layout.tick_ms(),
            ceiling: Some((layout.max_sequence() + 1) * 1000 / layout.tick_ms()),
            check_per_thread: CHECK_PER_THREAD,
            order: Order::Increasing,
            drift_ms: 0,
        }
    }

    /// The tick `id` was minted in.
    pub fn ticks(&self, id: u128) -> i64 {
        ((id >> self.time_shift) & ((1u128 << self.time_bits) - 1)) as i64
    }

    /// The tick of the wall clock's `unix_ms`.
    pub fn wall_ticks(&self, unix_ms: u64) -> i64 {
        (unix_ms.saturating_sub(self.epoch_ms) / self.tick_ms) as i64
    }
}

// ---------------------------------------------------------------------------------------------
// The trait
// ---------------------------------------------------------------------------------------------

/// A contender as every scenario runs it: each minting thread gets what it mints through
/// ([`with_local`](Self::with_local), untimed), then mints in a loop ([`mint`](Self::mint)).
pub trait Contender: Sync {
    /// What a minting thread holds while it mints: `()` for a generator the threads share, the
    /// thread's own generator or shard otherwise.
    type Local<'a>
    where
        Self: 'a;

    fn spec(&self) -> &Spec;

    /// Runs `work` on this thread with what the thread mints through.
    fn with_local<'a, R>(&'a self, work: impl FnOnce(&mut Self::Local<'a>) -> R) -> R;

    /// One ID, widened to 128 bits. Every implementation is `#[inline(always)]`, so the timed
    /// loop holds the library's own code, as a caller's function would.
    fn mint(&self, local: &mut Self::Local<'_>) -> u128;

    /// How many times snowmint's generator found its tick full so far (`None` for peers).
    fn full_ticks(&self) -> Option<u64> {
        None
    }
}

/// Implements [`Contender`] for `$ty`, a generator in its `generator` field that every minting
/// thread shares: `$mint` mints one ID, widened, through `$g`, a reference to the generator.
/// Items after a `;` go into the impl too.
macro_rules! shared {
    ([$($params:tt)*] $ty:ty, |$g:ident| $mint:expr $(; $($items:tt)*)?) => {
        impl<$($params)*> Contender for $ty {
            type Local<'a>
                = ()
            where
                Self: 'a;

            fn spec(&self) -> &Spec {
                &self.spec
            }

            fn with_local<'a, R>(&'a self, work: impl FnOnce(&mut Self::Local<'a>) -> R) -> R {
                work(&mut ())
            }

            #[inline(always)]
            fn mint(&self, (): &mut ()) -> u128 {
                let $g = &self.generator;
                $mint
            }

            $($($items)*)?
        }
    };
}

// ---------------------------------------------------------------------------------------------
// snowmint
// ---------------------------------------------------------------------------------------------

/// One of snowmint's generators, shared by every minting thread: a [`Generator`] or a
/// [`ShardedGenerator`] (whose threads each mint from their own shard).
pub struct Snowmint<G> {
    spec: Spec,
    pub generator: G,
    stats: fn(&G) -> Stats,
}

shared!([G: Mint<Id = Id> + Sync] Snowmint<G>, |generator| mint_snowmint(generator);
    fn full_ticks(&self) -> Option<u64> {
        Some((self.stats)(&self.generator).overflows)
    }
);

impl<G> Snowmint<G> {
    fn new(name: &'static str, layout: &Layout, generator: G, stats: fn(&G) -> Stats) -> Self {
        let spec = Spec::of_layout(name, layout);
        Snowmint {
            spec,
            generator,
            stats,
        }
    }
}

/// A mint of any of snowmint's generators, widened.
#[inline(always)]
fn mint_snowmint<G: Mint<Id = Id>>(generator: &G) -> u128 {
    generator.mint().expect("snowmint mint").to_u64().into()
}

/// A builder for `layout` with every node field 0, as the peers' node IDs are.
fn node_zero(layout: Layout) -> GeneratorBuilder {
    Generator::builder(layout).default_nodes()
}

/// snowmint as a user builds it: on the default clock, [`CachedClock::global`].
pub fn snowmint_default(layout: Layout) -> Snowmint<Generator<CachedClock>> {
    let generator = node_zero(layout).build().expect("valid layout");
    Snowmint::new("snowmint", &layout, generator, Generator::stats)
}

/// snowmint on a [`MonotonicClock`]: no thread, the CPU's counter read on every mint.
pub fn snowmint_monotonic(layout: Layout) -> Snowmint<Generator<MonotonicClock>> {
    let builder = node_zero(layout).clock(MonotonicClock::new());
    let generator = builder.build().expect("valid layout");
    Snowmint::new("snowmint-monotonic", &layout, generator, Generator::stats)
}

/// snowmint's per-core shards: a [`ShardedGenerator`] on 41/0/22 with `shards` shards, on the
/// default clock.
pub fn snowmint_sharded(shards: usize) -> Snowmint<ShardedGenerator<CachedClock>> {
    sharded_on("snowmint-sharded", Generator::builder(HOT), shards)
}

/// snowmint's per-core shards on a [`MonotonicClock`].
pub fn snowmint_sharded_monotonic(shards: usize) -> Snowmint<ShardedGenerator<MonotonicClock>> {
    let builder = Generator::builder(HOT).clock(MonotonicClock::new());
    sharded_on("snowmint-sharded-monotonic", builder, shards)
}

fn sharded_on<C: Clock>(
    name: &'static str,
    builder: GeneratorBuilder<C>,
    shards: usize,
) -> Snowmint<ShardedGenerator<C>> {
    let generator = builder
        .build_sharded(Shards::SplitSequence(shards))
        .expect("valid 41/0/22 layout and shard count");
    Snowmint::new(name, &HOT, generator, ShardedGenerator::stats)
}

/// snowmint's per-core shards, each minting thread looking its shard up once
/// ([`ShardedGenerator::local`]), as a thread minting in a loop would.
pub struct ShardLocal<C>(pub Snowmint<ShardedGenerator<C>>);

impl<C: Clock + Send + Sync> Contender for ShardLocal<C> {
    type Local<'a>
        = &'a Generator<Arc<C>>
    where
        Self: 'a;

    fn spec(&self) -> &Spec {
        &self.0.spec
    }

    fn with_local<'a, R>(&'a self, work: impl FnOnce(&mut Self::Local<'a>) -> R) -> R {
        work(&mut self.0.generator.local())
    }

    #[inline(always)]
    fn mint(&self, shard: &mut &Generator<Arc<C>>) -> u128 {
        mint_snowmint(*shard)
    }

    fn full_ticks(&self) -> Option<u64> {
        self.0.full_ticks()
    }
}

pub fn snowmint_shard_local(shards: usize) -> ShardLocal<CachedClock> {
    let mut sharded = snowmint_sharded(shards);
    sharded.spec.name = "snowmint-sharded-local";
    ShardLocal(sharded)
}

/// One default-built [`LocalGenerator`] per thread, each with its part of the sequence, as a
/// server with one event loop per core would: a load and a store per ID, no compare-and-swap.
pub fn snowmint_local_shards(
    shards: usize,
) -> Own<LocalGenerator, impl Fn(&mut LocalGenerator) -> u128 + Sync> {
    let generators = Generator::builder(HOT)
        .build_local_shards(Shards::SplitSequence(shards))
        .expect("valid 41/0/22 layout and shard count");
    Own {
        spec: Spec::of_layout("snowmint-local-shards", &HOT),
        pool: Mutex::new(generators),
        mint: |generator: &mut LocalGenerator| mint_snowmint(generator),
        full_ticks: Some(|generator: &LocalGenerator| generator.stats().overflows),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators of the thread's own
// ---------------------------------------------------------------------------------------------

/// [`HOT`] as a type, for the per-thread generator whose code takes the layout's constants.
pub enum Hot {}

impl FixedLayout for Hot {
    const LAYOUT: Layout = HOT;
}

/// [`snowmint_local_shards`] with the layout fixed by the generator's type
/// (`build_local_shards_fixed`), as ferroid's layout is fixed by its ID type.
pub fn snowmint_local_fixed_shards(
    shards: usize,
) -> Own<
    LocalGenerator<CachedClock, Hot>,
    impl Fn(&mut LocalGenerator<CachedClock, Hot>) -> u128 + Sync,
> {
    let generators = Generator::builder(HOT)
        .build_local_shards_fixed(Shards::SplitSequence(shards))
        .expect("valid 41/0/22 layout and shard count");
    Own {
        spec: Spec::of_layout("snowmint-local-fixed-shards", &HOT),
        pool: Mutex::new(generators),
        mint: |generator: &mut LocalGenerator<CachedClock, Hot>| mint_snowmint(generator),
        full_ticks: Some(|generator: &LocalGenerator<CachedClock, Hot>| {
            generator.stats().overflows
        }),
    }
}

/// One generator per minting thread, taken from a pool for the thread's run and given back
/// after, minted through with `mint`.
pub struct Own<T, F> {
    spec: Spec,
    pool: Mutex<Vec<T>>,
    mint: F,
    /// Counts a generator's full ticks (snowmint's).
    full_ticks: Option<fn(&T) -> u64>,
}

impl<T, F: Fn(&mut T) -> u128 + Sync> Own<T, F> {
    /// A peer's generators, one per thread.
    pub fn new(spec: Spec, generators: impl IntoIterator<Item = T>, mint: F) -> Own<T, F> {
        Own {
            spec,
            pool: Mutex::new(generators.into_iter().collect()),
            mint,
            full_ticks: None,
        }
    }
}

impl<T: Send, F: Fn(&mut T) -> u128 + Sync> Contender for Own<T, F> {
    type Local<'a>
        = T
    where
        Self: 'a;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn with_local<'a, R>(&'a self, work: impl FnOnce(&mut Self::Local<'a>) -> R) -> R {
        let mut owned = self
            .pool
            .lock()
            .expect("pool lock")
            .pop()
            .expect("one pooled generator per thread");
        let result = work(&mut owned);
        self.pool.lock().expect("pool lock").push(owned);
        result
    }

    #[inline(always)]
    fn mint(&self, owned: &mut T) -> u128 {
        (self.mint)(owned)
    }

    fn full_ticks(&self) -> Option<u64> {
        let count = self.full_ticks?;
        Some(self.pool.lock().expect("pool lock").iter().map(count).sum())
    }
}

// ---------------------------------------------------------------------------------------------
// Peers
// ---------------------------------------------------------------------------------------------

/// A peer's generator, shared by every minting thread.
pub struct Peer<G> {
    spec: Spec,
    pub generator: G,
}

// As ferroid's docs examples: yield to the scheduler when told to wait.
shared!([] Peer<Ferroid<SnowflakeTwitterId>>, |g| g
    .next_id(|_| thread::yield_now())
    .to_raw()
    .into());
shared!([] Peer<Ferroid<FerroidHot>>, |g| g
    .next_id(|_| thread::yield_now())
    .to_raw()
    .into());
// As ferroid's own benches: spin when told to wait.
shared!([] Peer<Spinning<Ferroid<FerroidHot>>>, |g| g
    .0
    .next_id(|_| spin_loop())
    .to_raw()
    .into());
shared!([] Peer<snowflake_me::Snowflake>, |g| g
    .next_id()
    .expect("snowflake_me next_id")
    .as_u64()
    .into());
shared!([] Peer<snowflaked::sync::Generator>, |g| g.generate::<u64>().into());
shared!([] Peer<Mutex<snowflake::SnowflakeIdGenerator>>, |g| {
    let id = g.lock().expect("rs-snowflake lock").real_time_generate();
    (id as u64).into()
});
shared!([] Peer<sonyflake::Sonyflake>, |g| g
    .next_id()
    .expect("sonyflake next_id")
    .to_u64()
    .into());
shared!([] Peer<UuidV7>, |_g| uuid::Uuid::now_v7().as_u128());
shared!([] Peer<Mutex<ulid::Generator>>, |g| mint_ulid(
    &mut g.lock().expect("ulid lock")
));
shared!([] Peer<Scru128>, |_g| scru128::new().to_u128());
shared!([] Peer<Xid>, |_g| xid_bits(&xid::new()));

// Not `shared!`: a thread sets the helper's options, once per process, before it mints.
impl Contender for Peer<Yitter> {
    type Local<'a>
        = ()
    where
        Self: 'a;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn with_local<'a, R>(&'a self, work: impl FnOnce(&mut Self::Local<'a>) -> R) -> R {
        yitter_options();
        work(&mut ())
    }

    #[inline(always)]
    fn mint(&self, (): &mut ()) -> u128 {
        u128::from(YitIdHelper::NextId() as u64)
    }
}

/// A generator whose back-off spins instead of yielding.
pub struct Spinning<G>(G);

/// uuid's process-wide v7 context, reached through `Uuid::now_v7`.
pub struct UuidV7;

/// scru128's process-wide generator, reached through `scru128::new`.
pub struct Scru128;

/// xid's process-wide generator, reached through `xid::new`.
pub struct Xid;

/// Yitter's process-wide generator, reached through `YitIdHelper::NextId` once
/// [`yitter_options`] has set it up.
pub struct Yitter;

/// ferroid's ticker clock from Twitter's epoch, as its README sets it up.
pub fn ferroid_clock() -> FerroidClock {
    FerroidClock::<1>::with_epoch(TWITTER_EPOCH)
}

pub fn ferroid_twitter() -> Peer<Ferroid<SnowflakeTwitterId>> {
    Peer {
        spec: Spec::snowflake("ferroid", 41, 22, 12),
        generator: AtomicSnowflakeGenerator::new(0, ferroid_clock()),
    }
}

pub fn ferroid_hot() -> Peer<Ferroid<FerroidHot>> {
    Peer {
        spec: Spec::snowflake("ferroid", 41, 22, 22),
        generator: AtomicSnowflakeGenerator::new(0, ferroid_clock()),
    }
}

/// ferroid on 41/0/22 backing off with `spin_loop`, as ferroid's own benches do: it differs
/// from `ferroid` only when a CAS is lost, so only with 2 threads or more.
pub fn ferroid_spin() -> Peer<Spinning<Ferroid<FerroidHot>>> {
    Peer {
        spec: Spec::snowflake("ferroid-spin", 41, 22, 22),
        generator: Spinning(AtomicSnowflakeGenerator::new(0, ferroid_clock())),
    }
}

/// One `BasicSnowflakeGenerator` per thread on 41/4/18, machine ID = the thread's index.
pub fn ferroid_own(
    threads: usize,
) -> Own<
    BasicSnowflakeGenerator<FerroidShard, FerroidClock>,
    impl Fn(&mut BasicSnowflakeGenerator<FerroidShard, FerroidClock>) -> u128 + Sync,
> {
    ferroid_own_of::<FerroidShard>(threads)
}

/// One `BasicSnowflakeGenerator` of `ID`s (41 time bits, machine and sequence below) per
/// thread, machine ID = the thread's index.
pub fn ferroid_own_of<ID: SnowflakeId<Ty = u64>>(
    threads: usize,
) -> Own<
    BasicSnowflakeGenerator<ID, FerroidClock>,
    impl Fn(&mut BasicSnowflakeGenerator<ID, FerroidClock>) -> u128 + Sync,
> {
    assert!(
        threads as u64 <= ID::max_machine_id() + 1,
        "ferroid's per-thread layout has a machine ID for at most {} threads",
        ID::max_machine_id() + 1
    );
    let clock = ferroid_clock();
    Own::new(
        Spec::snowflake(
            "ferroid-own",
            41,
            22,
            (ID::max_sequence() + 1).trailing_zeros(),
        ),
        (0..threads).map(|machine| BasicSnowflakeGenerator::new(machine as u64, clock.clone())),
        |g: &mut BasicSnowflakeGenerator<ID, FerroidClock>| {
            u128::from(g.next_id(|_| thread::yield_now()).to_raw())
        },
    )
}

/// snowflake_me with `node_bits` each for data center and machine, both IDs 0.
fn snowflake_me(node_bits: u8) -> Peer<snowflake_me::Snowflake> {
    let sequence = 22 - 2 * node_bits;
    Peer {
        spec: Spec::snowflake("snowflake_me", 41, 22, u32::from(sequence)),
        generator: snowflake_me_builder(node_bits)
            .finalize()
            .expect("valid snowflake_me configuration"),
    }
}

/// snowflake_me's builder as [`snowflake_me`] sets it up, before `finalize`.
pub fn snowflake_me_builder(node_bits: u8) -> snowflake_me::Builder<'static> {
    snowflake_me::Snowflake::builder()
        .bit_len_time(41)
        .bit_len_sequence(22 - 2 * node_bits)
        .bit_len_data_center_id(node_bits)
        .bit_len_machine_id(node_bits)
        .machine_id(&|| Ok(0))
        .data_center_id(&|| Ok(0))
        .start_time(EPOCH_MS as i64)
}

fn twitter_epoch() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(EPOCH_MS)
}

fn snowflaked() -> Peer<snowflaked::sync::Generator> {
    Peer {
        spec: Spec::snowflake("snowflaked", 42, 22, 12),
        generator: snowflaked::sync::Generator::builder()
            .instance(0)
            .epoch(twitter_epoch())
            .build(),
    }
}

/// snowflaked's plain `Generator` per thread, instance = the thread's index.
pub fn snowflaked_own(
    threads: usize,
) -> Own<snowflaked::Generator, impl Fn(&mut snowflaked::Generator) -> u128 + Sync> {
    Own::new(
        Spec::snowflake("snowflaked-own", 42, 22, 12),
        (0..threads).map(|instance| {
            snowflaked::Generator::builder()
                .instance(instance as u16)
                .epoch(twitter_epoch())
                .build()
        }),
        |g: &mut snowflaked::Generator| u128::from(g.generate::<u64>()),
    )
}

fn rs_snowflake_generator(node: i32) -> snowflake::SnowflakeIdGenerator {
    snowflake::SnowflakeIdGenerator::with_epoch(0, node, twitter_epoch())
}

fn rs_snowflake() -> Peer<Mutex<snowflake::SnowflakeIdGenerator>> {
    Peer {
        spec: Spec::snowflake("rs-snowflake", 42, 22, 12),
        generator: Mutex::new(rs_snowflake_generator(0)),
    }
}

/// rs-snowflake's `SnowflakeIdGenerator` per thread, node ID = the thread's index.
pub fn rs_snowflake_own(
    threads: usize,
) -> Own<
    snowflake::SnowflakeIdGenerator,
    impl Fn(&mut snowflake::SnowflakeIdGenerator) -> u128 + Sync,
> {
    Own::new(
        Spec::snowflake("rs-snowflake-own", 42, 22, 12),
        (0..threads).map(|node| rs_snowflake_generator(node as i32)),
        |g: &mut snowflake::SnowflakeIdGenerator| u128::from(g.real_time_generate() as u64),
    )
}

/// rs-snowflake's `SnowflakeIdBucket`, for one thread: unique IDs, neither increasing nor on
/// the wall clock's time (see the bench's docs).
pub fn rs_snowflake_bucket()
-> Own<snowflake::SnowflakeIdBucket, impl Fn(&mut snowflake::SnowflakeIdBucket) -> u128 + Sync> {
    Own::new(
        Spec {
            order: Order::Unordered,
            ..Spec::snowflake("rs-snowflake-bucket", 42, 22, 12)
        },
        [snowflake::SnowflakeIdBucket::with_epoch(
            0,
            0,
            twitter_epoch(),
        )],
        |bucket: &mut snowflake::SnowflakeIdBucket| u128::from(bucket.get_id() as u64),
    )
}

fn sonyflake() -> Peer<sonyflake::Sonyflake> {
    Peer {
        spec: Spec {
            name: "sonyflake",
            time_shift: 24,
            time_bits: 39,
            epoch_ms: SONYFLAKE_EPOCH_MS,
            tick_ms: 10,
            ceiling: Some(25_600),
            // 10 ticks' worth per thread: enough to cross ticks, short enough to wait for.
            check_per_thread: 2_560,
            order: Order::Increasing,
            drift_ms: 0,
        },
        generator: sonyflake::Sonyflake::builder()
            .machine_id(&|| Ok(1))
            .finalize()
            .expect("sonyflake with machine ID 1"),
    }
}

fn scru128() -> Peer<Scru128> {
    Peer {
        spec: Spec::unix_ms_128("scru128"),
        generator: Scru128,
    }
}

/// xid's 12 bytes, big-endian, in the low 96 bits: 4 bytes of Unix seconds, 3 of machine,
/// 2 of process, 3 of counter.
#[inline(always)]
fn xid_bits(id: &xid::Id) -> u128 {
    let mut bytes = [0; 16];
    bytes[4..].copy_from_slice(id.as_bytes());
    u128::from_be_bytes(bytes)
}

fn xid() -> Peer<Xid> {
    Peer {
        spec: Spec {
            name: "xid",
            time_shift: 64,
            time_bits: 32,
            epoch_ms: 0,
            tick_ms: 1000,
            // Not a cap it keeps: past this many IDs in one second its counter has wrapped and
            // it repeats IDs.
            ceiling: Some(XID_COUNTER),
            check_per_thread: CHECK_PER_THREAD,
            order: Order::ByTime,
            drift_ms: 0,
        },
        generator: Xid,
    }
}

/// Sets Yitter's process-wide generator up, once, on the Twitter layout: 41 time bits from
/// Twitter's epoch, 10 worker bits (worker 0), 12 sequence bits, as its README's options
/// (`IdGeneratorOptions::New`, then `YitIdHelper::SetIdGenerator`) allow. `MaxSeqNumber` is
/// set to 4095 because the crate, left at its default of 0, caps the sequence at 63 whatever
/// `SeqBitLength` says. Its other defaults stay: sequence numbers 0 to 4 of each tick kept
/// back (for clock rollback), and the drift: a full tick borrows the next one, up to 2000
/// ticks ahead of the clock, before it sleeps until the clock catches up. The crate sleeps
/// 500 ms when it makes its generator and again when it sets the options, so this runs when a
/// thread first mints through it, untimed, not when a set is built.
fn yitter_options() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        let mut options = IdGeneratorOptions::New(0);
        options.BaseTime = EPOCH_MS as i64;
        options.WorkerIdBitLength = 10;
        options.SeqBitLength = 12;
        options.MaxSeqNumber = 4095;
        YitIdHelper::SetIdGenerator(options);
    });
}

fn yitter() -> Peer<Yitter> {
    Peer {
        spec: Spec {
            drift_ms: YITTER_MOST_DRIFT_MS,
            ..Spec::snowflake("yitter", 41, 22, 12)
        },
        generator: Yitter,
    }
}

fn uuid_v7() -> Peer<UuidV7> {
    Peer {
        spec: Spec::unix_ms_128("uuid-v7"),
        generator: UuidV7,
    }
}

fn ulid() -> Peer<Mutex<ulid::Generator>> {
    Peer {
        spec: Spec::unix_ms_128("ulid"),
        generator: Mutex::new(ulid::Generator::new()),
    }
}

/// The monotonic `ulid::Generator` per thread.
pub fn ulid_own(
    threads: usize,
) -> Own<ulid::Generator, impl Fn(&mut ulid::Generator) -> u128 + Sync> {
    Own::new(
        Spec::unix_ms_128("ulid-own"),
        (0..threads).map(|_| ulid::Generator::new()),
        mint_ulid,
    )
}

/// As ulid's `Generator` example: an overflow of the random bits commits the increment.
#[inline(always)]
fn mint_ulid(generator: &mut ulid::Generator) -> u128 {
    match generator.generate() {
        Ok(id) => id,
        Err(overflow) => overflow.commit_overflow_increment(),
    }
    .into()
}

// ---------------------------------------------------------------------------------------------
// Sets
// ---------------------------------------------------------------------------------------------

/// Every contender of scenarios 1, 2 and 5 as one shared generator; `F` is ferroid's
/// generator on the set's layout.
pub struct SharedSet<F> {
    pub snowmint: Snowmint<Generator<CachedClock>>,
    pub snowmint_monotonic: Snowmint<Generator<MonotonicClock>>,
    pub ferroid: Peer<F>,
    pub snowflake_me: Peer<snowflake_me::Snowflake>,
    pub snowflaked: Peer<snowflaked::sync::Generator>,
    pub rs_snowflake: Peer<Mutex<snowflake::SnowflakeIdGenerator>>,
    pub sonyflake: Peer<sonyflake::Sonyflake>,
    pub uuid: Peer<UuidV7>,
    pub ulid: Peer<Mutex<ulid::Generator>>,
    pub scru128: Peer<Scru128>,
    pub xid: Peer<Xid>,
    pub yitter: Peer<Yitter>,
}

/// Runs `$body` with `$x` bound to each contender of a [`SharedSet`] in turn, in the order of
/// its fields.
macro_rules! each_shared {
    ($set:expr, |$x:ident| $body:expr) => {
        each_shared!(@fields $set, $x, $body,
            snowmint snowmint_monotonic ferroid snowflake_me snowflaked
            rs_snowflake sonyflake uuid ulid scru128 xid yitter)
    };
    (@fields $set:expr, $x:ident, $body:expr, $($field:ident)*) => {{
        let set = $set;
        $({
            let $x = &set.$field;
            $body;
        })*
    }};
}
pub(crate) use each_shared;

/// Scenario 1's and 5's set: every contender on its Twitter layout (sonyflake, and the
/// 128-bit and xid IDs, on their own).
pub fn twitter_set() -> SharedSet<Ferroid<SnowflakeTwitterId>> {
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
        scru128: scru128(),
        xid: xid(),
        yitter: yitter(),
    }
}

/// Scenario 2's set: 41/0/22 where the contender allows it, its own layout otherwise (yitter:
/// 41/10/12, the one layout its process-wide generator is set to).
pub fn hot_set() -> SharedSet<Ferroid<FerroidHot>> {
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
        scru128: scru128(),
        xid: xid(),
        yitter: yitter(),
    }
}
