//! The sharded generator's ordering promises, whatever a thread mixes: the generator's own
//! mints, handles to its shards kept across them, batches, other threads on the same shard,
//! other sharded generators, a clock that steps back, and mints from thread-local destructors.

mod common;

use std::sync::{Arc, mpsc};
use std::thread;

use snowmint::{
    ClockBehind, Error, Generator, Id, Layout,
    clock::ManualClock,
    shard::{ShardedGenerator, Shards},
};

use common::checks::{assert_increasing, assert_unique_and_increasing};
use common::clocks::{T0, sharded_on_manual_clock};

const TWITTER: Layout = Layout::TWITTER;

/// A twitter generator for machine 0 with `shards` split shards on a manual clock at `T0`,
/// under `policy`.
fn split_on_manual_clock(
    shards: usize,
    policy: ClockBehind,
) -> (ShardedGenerator<ManualClock>, ManualClock) {
    sharded_on_manual_clock(
        Generator::builder(TWITTER)
            .node("machine", 0)
            .on_clock_behind(policy),
        Shards::SplitSequence(shards),
        T0,
    )
}

fn time(id: Id) -> u64 {
    TWITTER.decode(id).unwrap().unix_ms()
}

#[test]
fn a_kept_handle_to_the_thread_s_shard_never_makes_its_ids_go_down() {
    let (sharded, _clock) = split_on_manual_clock(2, ClockBehind::Error);
    // Each handle taken once and kept, as `local()`'s own example does.
    let local = sharded.local();
    let index = sharded
        .shards()
        .iter()
        .position(|shard| std::ptr::eq(shard, local))
        .unwrap();
    let by_index = sharded.shard(index).unwrap();
    let all = sharded.shards();
    let mut ids = Vec::new();
    let mut batch = [Id::default(); 5];
    for round in 0..200 {
        // Enough mints between two handle mints for the thread's runs to grow.
        for _ in 0..round % 9 {
            ids.push(sharded.mint().unwrap());
        }
        match round % 5 {
            0 => ids.push(local.mint().unwrap()),
            1 => ids.push(by_index.try_mint().unwrap()),
            2 => ids.push(all[index].mint().unwrap()),
            3 => {
                let n = local.mint_batch(&mut batch).unwrap();
                ids.extend_from_slice(&batch[..n]);
            }
            _ => ids.extend(by_index.mint_many(3).unwrap()),
        }
    }
    assert_unique_and_increasing([ids]);
}

#[test]
fn after_a_clock_step_back_a_run_is_not_handed_out_below_what_its_shard_returned() {
    // One shard, so the second thread shares it.
    let (sharded, clock) = split_on_manual_clock(1, ClockBehind::Error);
    // This thread takes a run of several IDs on tick T0, and keeps some of it.
    let mine: Vec<Id> = (0..6).map(|_| sharded.mint().unwrap()).collect();
    assert!(mine.iter().all(|&id| time(id) == T0));
    clock.advance(50);
    let theirs = thread::scope(|s| s.spawn(|| sharded.mint().unwrap()).join().unwrap());
    assert_eq!(time(theirs), T0 + 50);
    clock.set(T0);
    // The shard's policy answers, not the run kept from T0.
    assert_eq!(
        sharded.mint(),
        Err(Error::ClockBehind {
            layout: "twitter",
            behind_ms: 50,
            max_wait_ms: 0
        })
    );
    clock.set(T0 + 50);
    let next = sharded.mint().unwrap();
    assert!(next > theirs && next > *mine.last().unwrap());
}

#[test]
fn after_a_clock_step_back_a_run_waits_for_what_a_handle_on_another_thread_minted() {
    // Two shards: the other thread reaches this thread's shard through `shard(i)`.
    let (sharded, clock) = split_on_manual_clock(2, ClockBehind::Wait { max_ms: 1_000 });
    let index = sharded
        .shards()
        .iter()
        .position(|shard| std::ptr::eq(shard, sharded.local()))
        .unwrap();
    let mut mine: Vec<Id> = (0..6).map(|_| sharded.mint().unwrap()).collect();
    clock.advance(50);
    let theirs = thread::scope(|s| {
        s.spawn(|| sharded.shard(index).unwrap().mint().unwrap())
            .join()
            .unwrap()
    });
    clock.set(T0);
    // Under `Wait`, the thread's next mint waits for the clock to reach the shard's tick:
    // another thread moves the clock on once the shard counts the wait.
    let waits = sharded.stats().waits;
    let next = thread::scope(|s| {
        s.spawn(|| {
            assert!(
                common::threads::eventually(|| sharded.stats().waits > waits),
                "the mint did not wait"
            );
            clock.set(T0 + 50);
        });
        sharded.mint().unwrap()
    });
    assert!(time(next) >= time(theirs), "{next:?} below {theirs:?}");
    mine.push(next);
    assert_increasing(&mine);
}

/// Mints from `sharded` when the thread-local it is kept in is destroyed, and sends the ID.
struct MintOnExit {
    sharded: Arc<ShardedGenerator<ManualClock>>,
    minted: mpsc::Sender<snowmint::Result<Id>>,
}

impl Drop for MintOnExit {
    fn drop(&mut self) {
        let _ = self.minted.send(self.sharded.mint());
    }
}

thread_local! {
    static MINT_ON_EXIT: std::cell::RefCell<Option<MintOnExit>> = const { std::cell::RefCell::new(None) };
}

#[test]
fn a_mint_in_a_thread_local_destructor_is_above_the_thread_s_earlier_ids() {
    let (sharded, _clock) = split_on_manual_clock(2, ClockBehind::Error);
    let sharded = Arc::new(sharded);
    // This thread holds shard 0 while the other thread lives.
    let held = sharded.mint().unwrap();
    let others: Vec<ShardedGenerator> = (0..4)
        .map(|_| {
            Generator::builder(TWITTER)
                .node("machine", 1)
                .build_sharded(Shards::SplitSequence(2))
                .unwrap()
        })
        .collect();
    let (minted, exit_mint) = mpsc::channel();
    let before = thread::scope(|s| {
        s.spawn(|| {
            // Registered before the thread's first mint from a sharded generator, so this
            // destructor runs after the one that gives the thread's shards back (thread-local
            // destructors run last registered, first run).
            MINT_ON_EXIT.with(|slot| {
                *slot.borrow_mut() = Some(MintOnExit {
                    sharded: Arc::clone(&sharded),
                    minted,
                })
            });
            let before: Vec<Id> = (0..10).map(|_| sharded.mint().unwrap()).collect();
            // More sharded generators than the thread remembers its shard in without its list
            // of claims.
            for other in &others {
                other.mint().unwrap();
            }
            before
        })
        .join()
        .unwrap()
    });
    let last = *before.last().unwrap();
    assert!(last > held, "the thread minted from shard 1");
    let at_exit = exit_mint.recv().unwrap().unwrap();
    assert!(at_exit > last, "{at_exit:?} minted at exit, after {last:?}");
    assert_unique_and_increasing([before, vec![at_exit]]);
}
