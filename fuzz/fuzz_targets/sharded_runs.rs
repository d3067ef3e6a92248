//! One `ShardedGenerator` on a `ManualClock`, single-threaded, through an arbitrary sequence of
//! clock moves (small steps around the current tick, other readings inside it, steps around
//! the thread's shard's last minted tick, big jumps, values before the epoch, in the epoch's
//! tick and past the layout's end) and mints: the handle's `mint` and `try_mint` (which hand
//! out the thread's run), its `mint_batch`, `try_mint_batch` and `mint_many` (small), and
//! `mint`/`try_mint` straight from a shard through `local()`, `shard(i)` and `shards()[i]`.
//! Layouts: twitter, a 16-bit one with 4 IDs per tick (2 or 4 ms ticks), a 32-bit one with 128
//! IDs per tick (2 or 4 ms ticks, so that runs grow past one ID on a small layout), a 41-bit
//! and a 16-bit tick-tock layout (1 or 4 ms); `Shards::SplitSequence(1..=4)` or
//! `Shards::NodeBlock` of 1 to 4 values; `Error`, `Wait { max_ms: 0 }` or
//! `TickTock { max_ms: 0 }`; a borrow bound (`borrow_ahead`) of 0 half of the time.
//!
//! Checked over the whole run:
//! - no ID is repeated, across the handle and the shards, nor is any ID a failed `mint_many`
//!   reserved and dropped;
//! - the IDs of the calls this thread makes on its own shard (handle mints, batch methods,
//!   `local()`, and `shard(i)`/`shards()[i]` for its own index) strictly increase on each
//!   timeline, and under `Error` and `Wait` strictly increase outright; IDs straight from
//!   another shard are outside that order;
//! - every ID decodes with the node values and a sequence inside the range of exactly one
//!   shard, the one the call minted from (the thread's own shard for the handle and the batch
//!   methods), and carries a tick from the clock's current tick to at most the borrow bound
//!   past it (exactly the clock's tick without borrowing);
//! - no shard mints more IDs on one tick and timeline than its range holds;
//! - the thread's run follows the rules of `shard/runs.rs` exactly: a handle call hands out the
//!   run's next ID while the clock reads what it read when the run was reserved and IDs are
//!   left, with the shard's state unchanged; otherwise it reserves a new run from the thread's
//!   shard, of twice the last run's size (capped at an eighth of the smallest shard's tick, at
//!   most 1,024) if the thread used that one up and of one ID otherwise, on the fast path (a
//!   reading the generator mints in, not behind the state, with room on the tick) and of one
//!   ID with no reading otherwise (the slow path). The shard's state after each call (from its
//!   snapshot, read through a slice taken once so that reading it does not drop the run) is
//!   the end of what was reserved. In particular the next handle ID after the reading changes
//!   is never an ID left over in the old run;
//! - every outcome, the handle's and each direct mint's (the IDs, errors with their fields),
//!   equals a one-thread model of a shard's rules (as in `generator_clock`), started from the
//!   shard's snapshot before the call.
//!
//! Nothing blocks: with `max_ms: 0` a clock behind fails at once, and a waiting call (`mint`,
//! `mint_batch`, `mint_many`) is only made when the model says it does not wait for a tick
//! (a full tick the borrow bound does not let it leave, with a clock nobody advances);
//! otherwise `mint` and `mint_batch` become `try_mint` and `try_mint_batch`, and `mint_many`
//! is skipped.

#![no_main]

use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;
use std::sync::Arc;

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
    /// Whether the run belongs to this generator (not dropped).
    active: bool,
    reading: u64,
    next: u64,
    left: u64,
    size: u64,
}

/// A shard's node fields and sequence range.
type ShardInfo = (Vec<(&'static str, u64)>, RangeInclusive<u64>);

struct Run<'g> {
    layout: Layout,
    policy: Policy,
    borrow: u64,
    clock: ManualClock,
    unix_ms: u64,
    generator: &'g ShardedGenerator<ManualClock>,
    /// The shards, through one `shards()` call at the start: reading their snapshots through
    /// it does not drop the thread's run.
    views: &'g [Generator<Arc<ManualClock>>],
    /// The thread's own shard (`local()`'s).
    own: usize,
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
    let generator = builder
        .build_sharded(shards.clone())
        .unwrap_or_else(|err| panic!("{shards:?} on {}: {err}", layout.name()));
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

impl Run<'_> {
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
        if old.active && old.reading == r && old.left > 0 {
            // The run's next ID, with no reservation: the shard's state stays.
            let model = self.model(own);
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
        let size = if old.active && old.left == 0 {
            (old.size * 2).min(self.cap)
        } else {
            1
        };
        let mut model = self.model(own);
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
            "a new run of {want} (fast path: {fast}, last run {old:?}, wait {wait}) from \
             {before:?}"
        );
        // The reservation drops the thread's run whatever it returns.
        self.run.active = false;
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
                if old.active && old.left > 0 {
                    assert!(
                        !(old.next..old.next + old.left).contains(&id.to_u64()),
                        "{id:?} at {r} ms is from the run {old:?} reserved at another reading"
                    );
                }
                let count = reserved.len() as u64;
                self.run = ThreadRun {
                    active: true,
                    reading: r,
                    next: id.to_u64() + 1,
                    left: if fast { count - 1 } else { 0 },
                    size: count,
                };
                self.check_state(own, &model, &context);
                self.check_id(id, own, true);
                true
            }
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
        if self.seen.len() >= MAX_MINTS {
            return;
        }
        let generator = self.generator;
        let shard = match access {
            Access::Local => generator.local(),
            Access::Shard(i) => generator.shard(i).expect("an index below len()"),
            Access::Shards(i) => &generator.shards()[i],
        };
        self.run.active = false;
        let index = self
            .views
            .iter()
            .position(|view| std::ptr::eq(view, shard))
            .expect("one of the shards");
        match access {
            Access::Local => assert_eq!(index, self.own, "local() changed"),
            Access::Shard(i) | Access::Shards(i) => assert_eq!(index, i),
        }
        let before = self.model(index);
        let r = self.unix_ms;
        let call = if wait { Call::Mint } else { Call::TryMint };
        let (call, model, expected) = predict(&before, call, |model, call| model.call(r, call));
        let (result, _) = perform(shard, call);
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
        self.run.active = false;
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
        let r = self.unix_ms;
        let own = self.own;
        let mut model = self.model(own);
        let before = model.clone();
        let (expected, lost) = model.many(r, n);
        if expected == Outcome::Blocks {
            return;
        }
        let result = self.generator.mint_many(n);
        self.run.active = false;
        let context = format!("mint_many({n}) from {before:?}");
        self.check_state(own, &model, &context);
        match result {
            Ok(ids) => {
                assert_eq!(ids.len(), n, "{context}");
                let got = Outcome::Ids(ids.iter().map(|&id| self.minted(id)).collect());
                assert_eq!(got, expected, "{context} at {r} ms");
                for id in ids {
                    self.check_id(id, own, true);
                }
            }
            Err(err) => {
                assert_eq!(Outcome::Fail(err), expected, "{context} at {r} ms");
                for m in lost {
                    self.dropped.insert((own, m.tick, m.timeline, m.sequence));
                }
            }
        }
    }
}
