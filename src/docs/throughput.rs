//! Throughput: one generator shared by every task, sequence ranges, per-core shards, one
//! generator per thread, batches and borrowing.
//!
//! One [`Generator`] is one cache line that every minting thread writes, and one tick of a
//! layout holds a fixed number of IDs (4,096 per millisecond for `twitter`). Each tool below
//! is optional and keeps IDs unique; `BENCHMARKS.md` at the repository's root has what each
//! one buys on a measured machine (`cargo bench --bench peers`).
//!
//! | tool | what it changes | pick it when |
//! |---|---|---|
//! | [`GeneratorBuilder::sequence_range`], [`SequenceRanges`] | generators share a node ID, each owning a disjoint part of the sequence | processes or threads must share a node ID but not a generator |
//! | [`ShardedGenerator`] ([`build_sharded`]) | k shards on their own cache lines; each thread mints from its own | many threads mint at once and would fight over one line |
//! | [`LocalGenerator`] ([`build_local`], [`build_local_shards`]) | a generator one thread owns: a load and a store per ID, no compare-and-swap | one event loop or worker per core, each with its own generator |
//! | [`mint_batch`], [`mint_many`] | one compare-and-swap reserves many consecutive IDs | bulk inserts, or a thread that needs IDs in runs |
//! | [`GeneratorBuilder::borrow_ahead`] | a full tick moves on to the next one, up to a bound ahead of the clock | bursts above the layout's ceiling must not stall |
//!
//! # One generator for every task
//!
//! A [`Generator`] is `Send` and `Sync` and mints through `&self`, so one per node serves every
//! thread and task: build it once at start-up and share a reference. In an async service, an
//! `Arc` moves into each `tokio::spawn`ed task (or into axum's router state), and
//! `mint_async` (feature `tokio`) waits out a full tick on Tokio's timer instead of blocking the
//! worker thread. `db-tests/examples/axum_service.rs` is a whole service: handlers that mint, store in
//! PostgreSQL and page through a time window by ID bounds.
//!
//! ```
//! # #[cfg(feature = "tokio")] {
//! use std::sync::Arc;
//!
//! use snowmint::tokio::MintAsync;
//! use snowmint::{Generator, Layout};
//!
//! let runtime = tokio::runtime::Builder::new_multi_thread().enable_time().build().unwrap();
//! let generator = Arc::new(Generator::builder(Layout::TWITTER).node("machine", 7).build()?);
//! let ids = runtime.block_on(async {
//!     let tasks: Vec<_> = (0..8)
//!         .map(|_| {
//!             let generator = Arc::clone(&generator);
//!             tokio::spawn(async move { generator.mint_async().await })
//!         })
//!         .collect();
//!     let mut ids = Vec::new();
//!     for task in tasks {
//!         ids.push(task.await.unwrap()?);
//!     }
//!     Ok::<_, snowmint::Error>(ids)
//! })?;
//! let mut unique = ids.clone();
//! unique.sort();
//! unique.dedup();
//! assert_eq!(unique.len(), 8);
//! # }
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! Where passing it around is awkward, a `static` holds it. A generator has no `const`
//! constructor (its node fields are checked by `build()`, at run time), so the `static` is a
//! `OnceLock` that `main` fills, where a failed build is an error it can report, rather than a
//! `LazyLock` that would panic on first use. After a `fork()` the child's copy fails with
//! [`Error::Forked`]; a `OnceLock` cannot be refilled, so a child that mints builds its own
//! generator with its own node ID.
//!
//! ```
//! use std::sync::OnceLock;
//!
//! use snowmint::{Generator, Layout};
//!
//! static GENERATOR: OnceLock<Generator> = OnceLock::new();
//!
//! /// The process's generator; `main` builds it before anything mints.
//! fn generator() -> &'static Generator {
//!     GENERATOR.get().expect("main builds the generator at start-up")
//! }
//!
//! // In `main`, before starting the threads or the runtime:
//! let built = Generator::builder(Layout::TWITTER).node("machine", 7).build()?;
//! assert!(GENERATOR.set(built).is_ok(), "built once");
//!
//! let ids: Vec<_> = std::thread::scope(|scope| {
//!     let threads: Vec<_> = (0..4).map(|_| scope.spawn(|| generator().mint())).collect();
//!     threads.into_iter().map(|thread| thread.join().unwrap()).collect()
//! });
//! assert_eq!(ids.len(), 4);
//! assert!(ids.iter().all(Result::is_ok));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Sequence ranges
//!
//! A generator confined to a range starts each tick at the range's first value and never
//! passes its last, so generators with the same node fields and disjoint ranges never mint the
//! same ID (sno's `SequenceMin`/`SequenceMax`). [`SequenceRanges`] splits a range into disjoint
//! parts or checks hand-picked ones. A [`Snapshot`] carries its generator's range.
//!
//! ```
//! use snowmint::{Generator, Layout, shard::SequenceRanges};
//!
//! // Four processes share machine 12, each with a quarter of every millisecond's 4,096 IDs.
//! let ranges = SequenceRanges::split(&Layout::TWITTER, 4)?;
//! assert_eq!(ranges.as_slice()[1], 1024..=2047);
//! let process_1 = Generator::builder(Layout::TWITTER)
//!     .node("machine", 12)
//!     .sequence_range(ranges.as_slice()[1].clone())
//!     .build()?;
//! let parts = Layout::TWITTER.decode(process_1.mint()?)?;
//! assert!((1024..=2047).contains(&parts.sequence()));
//!
//! // Hand-picked ranges are checked as a set.
//! let err = SequenceRanges::new(&Layout::TWITTER, [0..=2047, 2000..=4095]).unwrap_err();
//! assert!(err.to_string().contains("overlap"));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Per-core shards
//!
//! [`build_sharded`] builds a [`ShardedGenerator`] of k shards, each a [`Generator`] on cache
//! lines of its own, all reading one clock. [`Shards::SplitSequence`] gives every shard the
//! builder's node fields and a k-th of its sequence; [`Shards::NodeBlock`] gives each shard its
//! own value of a node field, from a block granted to the process. Each thread that mints from
//! it claims a free shard and keeps it until it exits, so with up to k busy threads (say one
//! per core) no two cores write the same line. A thread takes its shard's IDs in runs, one
//! compare-and-swap a run, and hands them out one per mint while the clock reads the same and
//! the shard has minted nothing else, with no read-modify-write: as fast as a
//! [`LocalGenerator`] of its own. Each thread's IDs
//! strictly increase; across threads, IDs are ordered by time to the tick (see
//! [`ShardedGenerator`]'s `# Ordering`).
//!
//! ```
//! use snowmint::{Generator, Layout, shard::Shards};
//! use std::collections::HashSet;
//! use std::thread;
//!
//! // Machines 8 to 11 were granted to this process: one shard each.
//! let generator = Generator::builder(Layout::TWITTER)
//!     .build_sharded(Shards::NodeBlock { field: "machine", values: 8..=11 })?;
//! let ids: Vec<_> = thread::scope(|s| {
//!     let threads: Vec<_> = (0..4)
//!         .map(|_| s.spawn(|| (0..1_000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>()))
//!         .collect();
//!     threads.into_iter().flat_map(|t| t.join().unwrap()).collect()
//! });
//! assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 4_000);
//! let machine = Layout::TWITTER.decode(ids[0])?.node("machine").unwrap();
//! assert!((8..=11).contains(&machine));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # One generator per thread
//!
//! A [`LocalGenerator`] is a [`Generator`] whose state word is a `Cell`: the same IDs,
//! policies, borrowing, batches, counters and snapshots, minted with a load and a store
//! instead of a compare-and-swap. It is `Send` but not `Sync`, so minting from it on two
//! threads does not compile. On a [`CachedClock`](crate::clock::CachedClock), the default
//! clock, its mint on a tick it already confirmed compares the clock's reading and its
//! sequence and nothing else, not even the process's fork count (a shared generator's mint
//! does the same before its compare-and-swap): a forked child's cached clock never gives a
//! reading its parent's gave, so an inherited generator still fails there with
//! [`Error::Forked`]. [`build_local_shards`] takes the same [`Shards`] as
//! [`build_sharded`] and returns one generator per shard, for servers that run one thread per
//! core; their IDs never collide and order as a sharded generator's do.
//!
//! A layout known at compile time can be the generator's type: [`build_local_fixed`] and
//! [`build_local_shards_fixed`] build a `LocalGenerator<C, L>` for a [`FixedLayout`] `L` (a
//! preset's type such as [`layout::Twitter`], or a constant layout of your own), which mints
//! the same IDs with the layout's sequence step as a constant of its code, one load fewer per
//! mint; BENCHMARKS.md's scaling tables measure both kinds against a peer.
//!
//! ```
//! use snowmint::{Generator, Layout, shard::Shards};
//! use std::collections::HashSet;
//! use std::thread;
//!
//! // Two worker threads, each owning a generator with its own machine ID.
//! let generators = Generator::builder(Layout::TWITTER)
//!     .build_local_shards(Shards::NodeBlock { field: "machine", values: 20..=21 })?;
//! let ids: Vec<_> = thread::scope(|s| {
//!     let workers: Vec<_> = generators
//!         .into_iter()
//!         .map(|generator| {
//!             s.spawn(move || (0..1_000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>())
//!         })
//!         .collect();
//!     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
//! });
//! assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 2_000);
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Batches
//!
//! [`mint_batch`] reserves, with one compare-and-swap, as many consecutive sequence values as
//! the buffer holds or the current tick has left (at least one, waiting for the next tick if
//! this one is full), writes them to the front of the buffer without allocating, and returns
//! how many it wrote. [`mint_many`] mints exactly `n` into a `Vec`, across as many ticks as
//! they need. IDs other threads mint meanwhile come before or after the whole run.
//!
//! ```
//! use snowmint::{Generator, Id, Layout};
//!
//! let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
//! let mut buffer = [Id::default(); 512];
//! let written = generator.mint_batch(&mut buffer)?;
//! let run = &buffer[..written];
//! assert!(run.windows(2).all(|pair| pair[1].to_u64() == pair[0].to_u64() + 1));
//!
//! let ids = generator.mint_many(10_000)?; // more than two ticks' worth
//! assert_eq!(ids.len(), 10_000);
//! assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Borrowing
//!
//! Off by default. [`GeneratorBuilder::borrow_ahead`]`(n)` lets a full tick move on to the next
//! one instead of waiting for the clock, as long as the generator stays at most `n` ticks ahead
//! of it: a burst above the layout's ceiling runs on borrowed time, and IDs stay unique and
//! increasing. Their times run up to `n` ticks ahead of the clock until the clock catches up;
//! [`Stats::borrows`] and [`Stats::max_ahead_ticks`] say how often and how far.
//!
//! ```
//! use snowmint::{Error, Generator, Layout, clock::ManualClock};
//!
//! let clock = ManualClock::new(1_700_000_000_000);
//! let generator = Generator::builder(Layout::TWITTER)
//!     .node("machine", 1)
//!     .clock(&clock)
//!     .borrow_ahead(3)
//!     .build()?;
//! // A burst of four ticks' worth while the clock stands still: no wait.
//! let ids = generator.mint_many(4 * 4096)?;
//! let last = ids[4 * 4096 - 1];
//! assert_eq!(Layout::TWITTER.decode(last)?.unix_ms(), 1_700_000_000_003);
//! assert_eq!((generator.stats().borrows, generator.stats().max_ahead_ticks), (3, 3));
//! // Three ticks ahead is the bound: the next one is refused (or waited for, by `mint`).
//! assert!(matches!(generator.try_mint(), Err(Error::SequenceExhausted { .. })));
//! clock.advance(1);
//! assert!(generator.try_mint()? > last);
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! [`build_local`]: crate::GeneratorBuilder::build_local
//! [`Error::Forked`]: crate::Error::Forked
//! [`build_local_shards`]: crate::GeneratorBuilder::build_local_shards
//! [`build_sharded`]: crate::GeneratorBuilder::build_sharded
//! [`Generator`]: crate::Generator
//! [`GeneratorBuilder::borrow_ahead`]: crate::GeneratorBuilder::borrow_ahead
//! [`GeneratorBuilder::sequence_range`]: crate::GeneratorBuilder::sequence_range
//! [`LocalGenerator`]: crate::LocalGenerator
//! [`build_local_fixed`]: crate::GeneratorBuilder::build_local_fixed
//! [`build_local_shards_fixed`]: crate::GeneratorBuilder::build_local_shards_fixed
//! [`FixedLayout`]: crate::layout::FixedLayout
//! [`layout::Twitter`]: crate::layout::Twitter
//! [`mint_batch`]: crate::Generator::mint_batch
//! [`mint_many`]: crate::Generator::mint_many
//! [`SequenceRanges`]: crate::shard::SequenceRanges
//! [`ShardedGenerator`]: crate::shard::ShardedGenerator
//! [`Shards`]: crate::shard::Shards
//! [`Shards::NodeBlock`]: crate::shard::Shards::NodeBlock
//! [`Shards::SplitSequence`]: crate::shard::Shards::SplitSequence
//! [`Snapshot`]: crate::Snapshot
//! [`Stats::borrows`]: crate::generator::Stats::borrows
//! [`Stats::max_ahead_ticks`]: crate::generator::Stats::max_ahead_ticks
