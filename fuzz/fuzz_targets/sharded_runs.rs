//! One `ShardedGenerator` on a `ManualClock`, minted from by one thread, through an arbitrary
//! sequence of clock moves (small steps around the current tick, other readings inside it,
//! steps around the thread's shard's last minted tick, back to exactly the reading the thread's
//! run was reserved at, big jumps, values before the epoch, in the epoch's tick and past the
//! layout's end) and mints: the handle's `mint` and `try_mint` (which hand out the thread's
//! run), its `mint_batch`, `try_mint_batch` and `mint_many` (small); `mint`/`try_mint` straight
//! from a shard through `local()`, `shard(i)` and `shards()[i]`; every mint and batch method
//! through a `local()` handle and a `shard(own index)` handle taken once and kept across the
//! handle's mints; `mint`/`try_mint` from the thread's own shard through `shard(i)` on another
//! thread, spawned for that one call; and a thread that mints a few IDs through the handle,
//! then from four or five other sharded generators, and once more through the handle in a
//! thread-local destructor registered before its first mint, after the destructor that gives
//! its shard back (so the generator is in neither its claims nor its four-entry cache).
//! Layouts: twitter, a 16-bit one with 4 IDs per tick (2 or 4 ms ticks), a 32-bit one with 128
//! IDs per tick (2 or 4 ms ticks, so that runs grow past one ID on a small layout), a 41-bit
//! and a 16-bit tick-tock layout (1 or 4 ms); `Shards::SplitSequence(1..=4)` or
//! `Shards::NodeBlock` of 1 to 4 values; `Error`, `Wait { max_ms: 0 }` or
//! `TickTock { max_ms: 0 }`; a borrow bound (`borrow_ahead`) of 0 half of the time.
//!
//! Checked over the whole run:
//! - no ID is repeated, across the handle, the shards and the other threads, nor is any ID a
//!   failed `mint_many` reserved and dropped;
//! - the IDs minted from the thread's own shard (its handle mints, batch methods, `local()`,
//!   `shard(i)`/`shards()[i]` for its own index and the kept handles, on this thread or
//!   another, and the other threads' IDs that came from that shard) strictly increase on each
//!   timeline in the order the calls happen, and under `Error` and `Wait` strictly increase
//!   outright; IDs from another shard are outside that order;
//! - every ID decodes with the node values and a sequence inside the range of exactly one
//!   shard, the one the call minted from (the thread's own shard for the handle and the batch
//!   methods), and carries a tick from the clock's current tick to at most the borrow bound
//!   past it (exactly the clock's tick without borrowing);
//! - no shard mints more IDs on one tick and timeline than its range holds;
//! - the thread's run follows the rules of `shard/runs.rs` exactly: a handle call hands out the
//!   run's next ID while the clock reads what it read when the run was reserved, IDs are left,
//!   and the run's shard still holds the state the run's reservation installed (nothing was
//!   minted from it since, through any handle, batch or thread); otherwise it reserves a new
//!   run from the thread's shard, of twice the last run's size (capped at an eighth of the
//!   smallest shard's tick, at most 1,024) if the thread used that one up and of one ID
//!   otherwise, on the fast path (a reading the generator mints in, not behind the state, with
//!   room on the tick) and of one ID with no reading otherwise (the slow path); a reservation
//!   that fails leaves the run as it was. The shard's state after each call (from its
//!   snapshot) is the end of what was reserved. In particular the next handle ID after the
//!   reading changes, or after the shard minted, is never an ID left over in the old run;
//! - every outcome of this thread's calls and of the one-call threads, the handle's and each
//!   direct mint's (the IDs, errors with their fields), equals a one-thread model of a shard's
//!   rules (as in `generator_clock`), started from the shard's snapshot before the call;
//! - the destructor's ID, when it mints one, is above every ID its thread got and every ID the
//!   generator returned before it, under `Error` and `Wait`.
//!
//! Nothing blocks: with `max_ms: 0` a clock behind fails at once, and a waiting call (`mint`,
//! `mint_batch`, `mint_many`) is only made when the model says it does not wait for a tick
//! (a full tick the borrow bound does not let it leave, with a clock nobody advances);
//! otherwise `mint` and `mint_batch` become `try_mint` and `try_mint_batch`, and `mint_many`
//! is skipped. The destructor's thread calls `try_mint` only.

#![no_main]

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;
use std::sync::{Arc, mpsc};
use std::thread;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::{
    Generator, Id, Layout,
    clock::ManualClock,
    shard::{ShardedGenerator, Shards},
};

// `check_twin`, `Calls` and the waiting batch call are the other targets'.
#[allow(dead_code)]
mod common;

use common::layouts::{self, MAX_MINTS, RECENT_MS};
use common::model::{Model, predict};
use common::ticks::{Far, borrow_ticks, first_reading, in_tick, mint_tick, small_offset, tick_of};
use common::{Call, Minted, Outcome, Policy, UNWRITTEN, perform, supported};

/// How the shards are made.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum ShardsSpec {
    /// `SplitSequence(1 + n % 4)` (at most one shard per sequence value).
    Split(u8),
    /// `NodeBlock` on the layout's last node field: `1 + count % 4` values (at most the
    /// field's), from `first` (within the field).
    Block { first: u8, count: u8 },
}

/// Which accessor a direct mint reaches its shard through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Local,
    Shard(usize),
    Shards(usize),
    /// The `local()` handle taken once at the start.
    KeptLocal,
    /// The `shard(own index)` handle taken once at the start.
    KeptShard,
    /// `shard(own index)` on a thread spawned for the call.
    Elsewhere,
}

/// A call on a kept handle.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum KeptCall {
    Mint,
    TryMint,
    /// Into `n % 24` IDs.
    MintBatch(u8),
    /// Into `n % 24` IDs.
    TryMintBatch(u8),
    /// `mint_many(n % 24)`.
    MintMany(u8),
}

#[derive(Debug, Arbitrary)]
enum Op {
    /// The clock to the current tick plus `ticks % 7 - 3` ticks, `ms % tick_ms` into it.
    Step {
        ticks: u8,
        ms: u8,
    },
    /// The clock to `ms % tick_ms` into its current tick: another reading of the same tick
    /// (on the layouts with ticks longer than 1 ms).
    Within(u8),
    /// The clock to the thread's shard's last minted tick plus `ticks % 7 - 3` ticks.
    NearLast {
        ticks: u8,
        ms: u8,
    },
    Far(Far),
    /// The handle's `mint`.
    Mint,
    /// The handle's `try_mint`.
    TryMint,
    /// `1 + n % 64` of the handle's `try_mint`s.
    Burst(u8),
    /// The handle's `try_mint` until it fails (at most the shard's tick plus one).
    Fill,
    /// The handle's `mint_batch` into `n % 24` IDs.
    MintBatch(u8),
    /// The handle's `try_mint_batch` into `n % 24` IDs.
    TryMintBatch(u8),
    /// The handle's `mint_many(n % 24)`.
    MintMany(u8),
    /// `local().try_mint()`.
    LocalTryMint,
    /// `local().mint()`.
    LocalMint,
    /// `shard(i % len).try_mint()`.
    ShardTryMint(u8),
    /// `shards()[i % len].try_mint()`.
    ShardsTryMint(u8),
    /// `shard(i % len).mint()`.
    ShardMint(u8),
    /// The clock to the reading the thread's run was reserved at (none before the first run).
    RunReading,
    /// `call` on the `local()` handle (`by_index`: the `shard(own index)` handle) taken once at
    /// the start.
    Kept {
        by_index: bool,
        call: KeptCall,
    },
    /// `shard(own index).mint()` (`wait`) or `try_mint()` on a thread spawned for the call.
    Elsewhere {
        wait: bool,
    },
    /// A thread that mints `1 + mints % 8` IDs through the handle (`try_mint`), then one from
    /// each of `4 + others % 2` other sharded generators, and once more through the handle in
    /// a thread-local destructor.
    AtExit {
        mints: u8,
        others: u8,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    /// Modulo 5: twitter, tiny, small, tt, tiny-tt.
    layout: u8,
    /// 4 ms ticks instead of 2 (tiny, small) or 1 (tt, tiny-tt); twitter's are 1 ms.
    tick_4ms: bool,
    node: u16,
    policy: Policy,
    shards: ShardsSpec,
    /// The first reading, in ticks from a base (the epoch's next tick, or 2023 for 41 bits).
    start: u16,
    /// Through `borrow_ticks`.
    borrow: u8,
    ops: Vec<Op>,
}

fn layout(choice: u8, tick_4ms: bool) -> Layout {
    let built = match choice % 5 {
        0 => return Layout::TWITTER,
        // 2 sequence bits: 4 IDs per tick; 12 time bits: the end is 4095 ticks away.
        1 => Layout::builder("tiny", 16)
            .time(12)
            .node("shard", 2)
            .sequence(2)
            .tick_ms(if tick_4ms { 4 } else { 2 })
            .epoch_ms(RECENT_MS)
            .build(),
        // 128 IDs per tick: a run cap of 4 to 16 IDs.
        2 => Layout::builder("small", 32)
            .time(22)
            .node("shard", 3)
            .sequence(7)
            .tick_ms(if tick_4ms { 4 } else { 2 })
            .epoch_ms(RECENT_MS)
            .build(),
        3 => return layouts::tt(layouts::tick_ms(tick_4ms)),
        // 3 sequence bits: 8 IDs per tick.
        _ => Layout::builder("tiny-tt", 16)
            .time(11)
            .tick_tock()
            .node("shard", 1)
            .sequence(3)
            .tick_ms(if tick_4ms { 4 } else { 1 })
            .epoch_ms(RECENT_MS)
            .build(),
    };
    built.expect("the fuzz layouts are valid")
}

/// A shard's state and the fast path of its reservations, which the thread's runs take; a
/// shard's model is the generator's (`common/model.rs`), started from the shard's snapshot.
impl Model {
    /// The shard's state as a snapshot shows it: (last tick, timeline, sequence).
    fn state(&self) -> (u64, u64, u64) {
        (self.tick, self.timeline, self.sequence)
    }

    /// Whether a reservation at `unix_ms` takes the fast path: a reading in the layout's
    /// ticks, not behind the state's tick, with a value left on the tick it mints on.
    fn fast(&self, unix_ms: u64) -> bool {
        mint_tick(&self.layout, unix_ms)
            .is_some_and(|now| now > self.tick || (now == self.tick && self.sequence < self.last))
    }
}

/// The thread's run, as `shard/runs.rs` keeps it.
#[derive(Debug, Clone, Copy, Default)]
struct ThreadRun {
    /// Whether the thread reserved a run from this generator yet.
    started: bool,
    reading: u64,
    next: u64,
    left: u64,
    size: u64,
    /// The state the run's reservation installed in the shard's word, as a snapshot shows it.
    last: (u64, u64, u64),
}

/// A shard's node fields and sequence range.
type ShardInfo = (Vec<(&'static str, u64)>, RangeInclusive<u64>);

struct Run<'g> {
    layout: Layout,
    policy: Policy,
    borrow: u64,
    clock: ManualClock,
    unix_ms: u64,
    generator: &'g Arc<ShardedGenerator<ManualClock>>,
    /// The shards, through one `shards()` call at the start.
    views: &'g [Generator<Arc<ManualClock>>],
    /// The thread's own shard (`local()`'s).
    own: usize,
    /// `local()` and `shard(own)`, taken once at the start.
    kept_local: &'g Generator<Arc<ManualClock>>,
    kept_shard: &'g Generator<Arc<ManualClock>>,
    /// The most IDs a run holds.
    cap: u64,
    info: Vec<ShardInfo>,
    run: ThreadRun,
    seen: HashSet<u64>,
    /// IDs (shard, minted) that a failed `mint_many` reserved and dropped.
    dropped: HashSet<(usize, u64, u64, u64)>,
    /// The last ID of the thread's order on each timeline, and the greatest.
    last_on: [Option<u64>; 2],
    max: Option<u64>,
    /// IDs minted per (shard, tick, timeline).
    per_tick: HashMap<(usize, u64, u64), u64>,
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let layout = layout(input.layout, input.tick_4ms);
    let policy = supported(&layout, input.policy);
    let borrow = borrow_ticks(input.borrow);
    let fields: Vec<(&'static str, u64)> =
        layout.node_fields().map(|f| (f.name(), f.max())).collect();
    let (block_field, block_max) = *fields.last().expect("every fuzz layout has a node field");
    let ids_per_tick = layout.max_sequence() + 1;
    let shards = match input.shards {
        ShardsSpec::Split(n) => Shards::SplitSequence(
            1 + usize::from(n % 4).min(usize::try_from(ids_per_tick - 1).expect("small")),
        ),
        ShardsSpec::Block { first, count } => {
            let count = 1 + u64::from(count) % (block_max + 1).min(4);
            let first = u64::from(first) % (block_max + 2 - count);
            Shards::NodeBlock {
                field: block_field,
                values: first..=first + count - 1,
            }
        }
    };
    let unix_ms = first_reading(&layout, input.start % 10_000);
    let clock = ManualClock::new(unix_ms);
    let mut builder = Generator::builder(layout)
        .clock(clock.clone())
        .on_clock_behind(policy.get())
        .borrow_ahead(borrow);
    for &(name, max) in &fields {
        if matches!(shards, Shards::NodeBlock { .. }) && name == block_field {
            continue;
        }
        builder = builder.node(name, u64::from(input.node) & max);
    }
    let generator = Arc::new(
        builder
            .build_sharded(shards.clone())
            .unwrap_or_else(|err| panic!("{shards:?} on {}: {err}", layout.name())),
    );
    let views = generator.shards();
    let count = match shards {
        Shards::SplitSequence(k) => k,
        Shards::NodeBlock { ref values, .. } => (values.end() - values.start() + 1) as usize,
        _ => unreachable!(),
    };
    assert_eq!((generator.len(), views.len()), (count, count));
    let info: Vec<_> = views
        .iter()
        .map(|shard| {
            let snapshot = shard.snapshot();
            (snapshot.nodes, snapshot.sequence_range)
        })
        .collect();
    let local = generator.local();
    let own = views
        .iter()
        .position(|shard| std::ptr::eq(shard, local))
        .expect("local() is one of the shards");
    let cap = info
        .iter()
        .map(|(_, range)| (range.end() - range.start() + 1) / 8)
        .min()
        .expect("at least one shard")
        .clamp(1, 1024);

    let mut run = Run {
        layout,
        policy,
        borrow,
        clock,
        unix_ms,
        generator: &generator,
        views,
        own,
        kept_local: local,
        kept_shard: generator.shard(own).expect("own is an index below len()"),
        cap,
        info,
        run: ThreadRun::default(),
        seen: HashSet::new(),
        dropped: HashSet::new(),
        last_on: [None, None],
        max: None,
        per_tick: HashMap::new(),
    };
    for op in &input.ops {
        run.apply(op);
    }
}

impl<'g> Run<'g> {
    fn set_clock(&mut self, unix_ms: u64) {
        self.unix_ms = unix_ms;
        self.clock.set(unix_ms);
    }

    fn model(&self, shard: usize) -> Model {
        Model::from_snapshot(
            &self.layout,
            self.policy,
            self.borrow,
            &self.views[shard].snapshot(),
        )
    }

    fn apply(&mut self, op: &Op) {
        let layout = self.layout;
        let len = self.views.len();
        match *op {
            Op::Step { ticks, ms } => {
                let tick = tick_of(&layout, self.unix_ms) + small_offset(ticks);
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::Within(ms) => {
                let tick = tick_of(&layout, self.unix_ms);
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::NearLast { ticks, ms } => {
                let last = self.views[self.own].snapshot().last_tick;
                let tick = i128::from(last) + small_offset(ticks);
                self.set_clock(in_tick(&layout, tick, ms));
            }
            Op::Far(ref far) => self.set_clock(far.unix_ms(&layout, self.unix_ms)),
            Op::Mint => {
                self.handle(true);
            }
            Op::TryMint => {
                self.handle(false);
            }
            Op::Burst(n) => {
                for _ in 0..=n % 64 {
                    self.handle(false);
                }
            }
            Op::Fill => {
                let (_, range) = &self.info[self.own];
                for _ in 0..=range.end() - range.start() + 1 {
                    if !self.handle(false) {
                        break;
                    }
                }
            }
            Op::MintBatch(n) => self.batch(usize::from(n % 24), true),
            Op::TryMintBatch(n) => self.batch(usize::from(n % 24), false),
            Op::MintMany(n) => self.many(usize::from(n % 24)),
            Op::LocalTryMint => self.direct(Access::Local, false),
            Op::LocalMint => self.direct(Access::Local, true),
            Op::ShardTryMint(i) => self.direct(Access::Shard(usize::from(i) % len), false),
            Op::ShardsTryMint(i) => self.direct(Access::Shards(usize::from(i) % len), false),
            Op::ShardMint(i) => self.direct(Access::Shard(usize::from(i) % len), true),
            Op::RunReading => {
                if self.run.started {
                    self.set_clock(self.run.reading);
                }
            }
            Op::Kept { by_index, call } => {
                let access = if by_index {
                    Access::KeptShard
                } else {
                    Access::KeptLocal
                };
                match call {
                    KeptCall::Mint => self.direct(access, true),
                    KeptCall::TryMint => self.direct(access, false),
                    KeptCall::MintBatch(n) => {
                        self.direct_call(access, Call::MintBatch(usize::from(n % 24)))
                    }
                    KeptCall::TryMintBatch(n) => {
                        self.direct_call(access, Call::TryMintBatch(usize::from(n % 24)))
                    }
                    KeptCall::MintMany(n) => self.direct_many(access, usize::from(n % 24)),
                }
            }
            Op::Elsewhere { wait } => self.direct(Access::Elsewhere, wait),
            Op::AtExit { mints, others } => {
                self.at_exit(1 + usize::from(mints % 8), 4 + usize::from(others % 2))
            }
        }
    }

    fn minted(&self, id: Id) -> Minted {
        Minted::of(&self.layout, id)
    }

    /// The checks every ID passes: new, of shard `shard` alone, on the clock's tick (up to the
    /// borrow bound past it), within its shard's share of the tick, and, if `ordered` (a call
    /// on the thread's own shard), after every earlier ID of the thread's order.
    fn check_id(&mut self, id: Id, shard: usize, ordered: bool) {
        let layout = self.layout;
        let value = id.to_u64();
        assert!(self.seen.insert(value), "{id:?} repeated");
        let parts = layout.decode(id).expect("minted ids decode");
        let owners: Vec<usize> = self
            .info
            .iter()
            .enumerate()
            .filter(|(_, (nodes, range))| {
                range.contains(&parts.sequence())
                    && nodes
                        .iter()
                        .all(|&(name, value)| parts.node(name) == Some(value))
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            owners,
            [shard],
            "{id:?} ({:?}, sequence {}) is not only shard {shard}'s; shards {:?}",
            parts.nodes().collect::<Vec<_>>(),
            parts.sequence(),
            self.info
        );
        let timeline = parts.timeline().unwrap_or(0);
        assert!(
            !self
                .dropped
                .contains(&(shard, parts.ticks(), timeline, parts.sequence())),
            "{id:?} was reserved by a failed mint_many"
        );
        // One thread: the ID carries the tick the clock reads now, which the generator mints
        // in, or a later one at most the borrow bound ahead.
        let now = mint_tick(&layout, self.unix_ms);
        assert!(
            now.is_some_and(|now| now <= parts.ticks() && parts.ticks() - now <= self.borrow),
            "{id:?} (tick {}) at clock {} ms, borrow bound {}",
            parts.ticks(),
            self.unix_ms,
            self.borrow
        );
        let (_, range) = &self.info[shard];
        let minted = self
            .per_tick
            .entry((shard, parts.ticks(), timeline))
            .or_insert(0);
        *minted += 1;
        assert!(
            *minted <= range.end() - range.start() + 1,
            "shard {shard} minted {minted} IDs on tick {} (timeline {timeline}), more than its \
             range {range:?} holds",
            parts.ticks()
        );
        if ordered {
            let t = timeline as usize;
            assert!(
                self.last_on[t].is_none_or(|last| last < value),
                "{id:?} after {:?} on timeline {t} of this thread's order",
                self.last_on[t].map(Id::from_u64)
            );
            self.last_on[t] = Some(value);
            if self.policy != Policy::TickTock {
                assert!(
                    self.max.is_none_or(|max| max < value),
                    "{id:?} not above this thread's earlier {:?} under {:?}",
                    self.max.map(Id::from_u64),
                    self.policy
                );
            }
            self.max = self.max.max(Some(value));
        }
    }

    /// The snapshot of shard `shard` shows the state the model reached.
    fn check_state(&self, shard: usize, model: &Model, context: &str) {
        let after = self.views[shard].snapshot();
        assert_eq!(
            (after.last_tick, after.timeline, after.sequence),
            model.state(),
            "shard {shard}'s state (left) after {context} at {} ms, thread run {:?}",
            self.unix_ms,
            self.run
        );
    }

    /// The handle's `mint` (`wait`) or `try_mint`; whether it returned an ID.
    fn handle(&mut self, wait: bool) -> bool {
        if self.seen.len() >= MAX_MINTS {
            return false;
        }
        let r = self.unix_ms;
        let own = self.own;
        let old = self.run;
        let model = self.model(own);
        let holds = model.state() == old.last;
        if old.started && old.reading == r && old.left > 0 && holds {
            // The run's next ID, with no reservation: the shard's state stays.
            let id = if wait {
                self.generator.mint()
            } else {
                self.generator.try_mint()
            }
            .unwrap_or_else(|err| panic!("the run {old:?} at {r} ms failed: {err}"));
            assert_eq!(
                id.to_u64(),
                old.next,
                "the run {old:?} at {r} ms handed out {id:?}"
            );
            self.run.next += 1;
            self.run.left -= 1;
            self.check_state(own, &model, "a mint from the thread's run");
            self.check_id(id, own, true);
            return true;
        }
        let size = if old.started && old.left == 0 {
            (old.size * 2).min(self.cap)
        } else {
            1
        };
        let mut model = model;
        let before = model.clone();
        let fast = model.fast(r);
        let want = if fast { size } else { 1 };
        let mut wait = wait;
        if model.clone().reserve(r, want, wait) == Outcome::Blocks {
            wait = false;
        }
        let expected = model.reserve(r, want, wait);
        assert_ne!(expected, Outcome::Blocks, "try_mint waits");
        let result = if wait {
            self.generator.mint()
        } else {
            self.generator.try_mint()
        };
        let context = format!(
            "a new run of {want} (fast path: {fast}, last run {old:?}, shard holds its last \
             state: {holds}, wait {wait}) from {before:?}"
        );
        match result {
            Ok(id) => {
                let Outcome::Ids(ref reserved) = expected else {
                    panic!("{context} at {r} ms returned {id:?}, expected {expected:?}");
                };
                assert_eq!(
                    self.minted(id),
                    reserved[0],
                    "{context} at {r} ms returned {id:?}, expected {expected:?}"
                );
                if old.started && old.left > 0 {
                    assert!(
                        !(old.next..old.next + old.left).contains(&id.to_u64()),
                        "{id:?} at {r} ms is from the run {old:?} reserved at another reading"
                    );
                }
                let count = reserved.len() as u64;
                self.run = ThreadRun {
                    started: true,
                    // The slow path leaves the run's reading as it was, with no IDs left.
                    reading: if fast { r } else { old.reading },
                    next: id.to_u64() + 1,
                    left: if fast { count - 1 } else { 0 },
                    size: count,
                    last: model.state(),
                };
                self.check_state(own, &model, &context);
                self.check_id(id, own, true);
                true
            }
            // A failed reservation leaves the run as it was.
            Err(err) => {
                assert_eq!(
                    Outcome::Fail(err.clone()),
                    expected,
                    "{context} at {r} ms failed"
                );
                let _ = err.to_string();
                self.check_state(own, &model, &context);
                false
            }
        }
    }

    /// `mint` (`wait`) or `try_mint` straight from a shard.
    fn direct(&mut self, access: Access, wait: bool) {
        self.direct_call(access, if wait { Call::Mint } else { Call::TryMint });
    }

    /// The shard `access` reaches, and its index; checks that it is the one asked for.
    fn reach(&self, access: Access) -> (&'g Generator<Arc<ManualClock>>, usize) {
        let generator = self.generator;
        let shard = match access {
            Access::Local => generator.local(),
            Access::Shard(i) => generator.shard(i).expect("an index below len()"),
            Access::Shards(i) => &generator.shards()[i],
            Access::KeptLocal => self.kept_local,
            Access::KeptShard => self.kept_shard,
            Access::Elsewhere => generator.shard(self.own).expect("an index below len()"),
        };
        let index = self
            .views
            .iter()
            .position(|view| std::ptr::eq(view, shard))
            .expect("one of the shards");
        match access {
            Access::Local | Access::KeptLocal | Access::KeptShard | Access::Elsewhere => {
                assert_eq!(index, self.own, "{access:?} is not the thread's shard")
            }
            Access::Shard(i) | Access::Shards(i) => assert_eq!(index, i),
        }
        (shard, index)
    }

    /// `call` straight from a shard, on this thread or (`Access::Elsewhere`) on a thread
    /// spawned for it.
    fn direct_call(&mut self, access: Access, call: Call) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let (shard, index) = self.reach(access);
        let before = self.model(index);
        let r = self.unix_ms;
        let (call, model, expected) = predict(&before, call, |model, call| model.call(r, call));
        let (result, _) = if access == Access::Elsewhere {
            // The other thread takes the handle itself.
            let (generator, own) = (self.generator, self.own);
            thread::scope(|s| {
                s.spawn(|| perform(generator.shard(own).expect("an index below len()"), call))
                    .join()
                    .expect("the other thread's call")
            })
        } else {
            perform(shard, call)
        };
        let context = format!("{call:?} through {access:?} from {before:?}");
        self.check_state(index, &model, &context);
        match result {
            Ok(ids) => {
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(got, expected, "{context} at {r} ms");
                for id in ids {
                    self.check_id(id, index, index == self.own);
                }
            }
            Err(err) => {
                assert_eq!(Outcome::Fail(err), expected, "{context} at {r} ms");
            }
        }
    }

    /// `mint_many(n)` straight from a shard, unless it would wait for a tick.
    fn direct_many(&mut self, access: Access, n: usize) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let (shard, index) = self.reach(access);
        self.many_from(index, n, || shard.mint_many(n));
    }

    /// The handle's `mint_batch` (`wait`) or `try_mint_batch` into `len` IDs.
    fn batch(&mut self, len: usize, wait: bool) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let r = self.unix_ms;
        let own = self.own;
        let before = self.model(own);
        let call = if wait {
            Call::MintBatch(len)
        } else {
            Call::TryMintBatch(len)
        };
        let (call, model, expected) = predict(&before, call, |model, call| model.call(r, call));
        let wait = call.waits();
        let mut buffer = vec![UNWRITTEN; len];
        let result = if wait {
            self.generator.mint_batch(&mut buffer)
        } else {
            self.generator.try_mint_batch(&mut buffer)
        };
        let context = format!("a batch of {len} (wait {wait}) from {before:?}");
        self.check_state(own, &model, &context);
        let written = *result.as_ref().unwrap_or(&0);
        assert!(
            buffer[written..].iter().all(|&id| id == UNWRITTEN),
            "{context} returned {result:?} but wrote past it"
        );
        match result {
            Ok(n) => {
                let got = Outcome::Ids(buffer[..n].iter().map(|&id| self.minted(id)).collect());
                assert_eq!(got, expected, "{context} at {r} ms");
                for &id in &buffer[..n] {
                    self.check_id(id, own, true);
                }
            }
            Err(err) => assert_eq!(Outcome::Fail(err), expected, "{context} at {r} ms"),
        }
    }

    /// The handle's `mint_many(n)`, unless it would wait for a tick.
    fn many(&mut self, n: usize) {
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let generator = self.generator;
        self.many_from(self.own, n, || generator.mint_many(n));
    }

    /// `mint_many(n)` from shard `index` by `call`, unless the model says it would wait.
    fn many_from(
        &mut self,
        index: usize,
        n: usize,
        call: impl FnOnce() -> snowmint::Result<Vec<Id>>,
    ) {
        let r = self.unix_ms;
        let mut model = self.model(index);
        let before = model.clone();
        let (expected, lost) = model.many(r, n);
        if expected == Outcome::Blocks {
            return;
        }
        let result = call();
        let context = format!("mint_many({n}) from shard {index}, {before:?}");
        self.check_state(index, &model, &context);
        match result {
            Ok(ids) => {
                assert_eq!(ids.len(), n, "{context}");
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(got, expected, "{context} at {r} ms");
                for id in ids {
                    self.check_id(id, index, index == self.own);
                }
            }
            Err(err) => {
                assert_eq!(Outcome::Fail(err), expected, "{context} at {r} ms");
                for m in lost {
                    self.dropped.insert((index, m.tick, m.timeline, m.sequence));
                }
            }
        }
    }

    /// The shard whose node values and sequence range `id` carries.
    fn owner(&self, id: Id) -> usize {
        let parts = self.layout.decode(id).expect("minted ids decode");
        self.info
            .iter()
            .position(|(nodes, range)| {
                range.contains(&parts.sequence())
                    && nodes
                        .iter()
                        .all(|&(name, value)| parts.node(name) == Some(value))
            })
            .unwrap_or_else(|| panic!("{id:?} ({parts:?}) is no shard's"))
    }

    /// A thread that mints `mints` IDs through the handle, then from `others` other sharded
    /// generators, so that neither its claims nor its cache know this generator when its
    /// thread-local destructor mints once more through the handle.
    fn at_exit(&mut self, mints: usize, others: usize) {
        if self.seen.len() + mints + 1 > MAX_MINTS {
            return;
        }
        let (sender, at_exit) = mpsc::channel();
        let generator = Arc::clone(self.generator);
        let got: Vec<snowmint::Result<Id>> = thread::spawn(move || {
            // Registered before the thread's first mint, so it runs after the destructor that
            // gives the thread's shard back (thread-local destructors run last registered,
            // first run).
            MINT_AT_EXIT.with(|slot| {
                *slot.borrow_mut() = Some(MintAtExit {
                    generator: Arc::clone(&generator),
                    minted: sender,
                })
            });
            let got = (0..mints).map(|_| generator.try_mint()).collect();
            for _ in 0..others {
                let other = Generator::builder(Layout::TWITTER)
                    .node("machine", 1)
                    .clock(ManualClock::new(RECENT_MS))
                    .build_sharded(Shards::SplitSequence(2))
                    .expect("a valid sharded generator");
                other.mint().expect("a fresh generator mints");
            }
            got
        })
        .join()
        .expect("the exiting thread's mints");
        let at_exit = at_exit.recv().expect("the destructor mints once");
        let mut thread_ids = Vec::new();
        for id in got.into_iter().filter_map(Result::ok) {
            let owner = self.owner(id);
            self.check_id(id, owner, owner == self.own);
            thread_ids.push(id);
        }
        let ordered = self.policy != Policy::TickTock;
        assert!(
            !ordered || thread_ids.windows(2).all(|w| w[0] < w[1]),
            "the exiting thread's IDs {thread_ids:?} do not increase under {:?}",
            self.policy
        );
        let Ok(id) = at_exit else {
            return;
        };
        // Every ID returned so far, the thread's included: the destructor mints from the shard
        // whose last ID is the highest. Under `TickTock` that shard may toggle to a timeline
        // another shard minted higher on, so there the ID is only checked to be new.
        if let Some(&greatest) = self.seen.iter().max().filter(|_| ordered) {
            assert!(
                greatest < id.to_u64(),
                "{id:?} minted at exit under {:?} is not above {:?} (the exiting thread's: {}; \
                 its IDs {thread_ids:?})",
                self.policy,
                Id::from_u64(greatest),
                thread_ids.contains(&Id::from_u64(greatest))
            );
        }
        let owner = self.owner(id);
        self.check_id(id, owner, owner == self.own);
    }
}

/// Mints through the handle it holds when the thread-local it is kept in is destroyed, and
/// sends what it got.
struct MintAtExit {
    generator: Arc<ShardedGenerator<ManualClock>>,
    minted: mpsc::Sender<snowmint::Result<Id>>,
}

impl Drop for MintAtExit {
    fn drop(&mut self) {
        let _ = self.minted.send(self.generator.try_mint());
    }
}

thread_local! {
    static MINT_AT_EXIT: RefCell<Option<MintAtExit>> = const { RefCell::new(None) };
}
