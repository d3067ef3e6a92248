//! Minting that never waits: every generator's `mint_or_wait` and `mint_batch_or_wait` answer
//! a full tick with the time until the next one, a clock behind within the `ClockBehind`
//! policy's bound with how far behind it reads, and a clock behind beyond it (or for longer
//! than the bound in all) with the blocking mint's error.

mod common;

use std::fmt::Debug;
use std::hash::Hash;
use std::time::Duration;

use snowmint::{
    Attempt, ClockBehind, Error, Generator, Layout, Mint,
    clock::ManualClock,
    mark::{MarkFile, MarkFileStore, MarkedGenerator},
    shard::Shards,
    sno::SnoGenerator,
};

use common::checks::assert_unique_and_increasing;
use common::clocks::{
    T0, built_on_manual_clock, local_on_manual_clock, on_manual_clock, sharded_on_manual_clock,
    sno_on_manual_clock,
};
use common::files::TempDir;
use common::layouts::TT;

/// A twitter-shaped layout with 16 IDs per tick, so ticks fill quickly.
const SMALL: Layout = Layout::builder("small", 64)
    .unused(9)
    .time(41)
    .node("machine", 10)
    .sequence(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

/// The policy the checks build with: a clock up to 50 ms behind is waited for, 50 ms in all.
const WAIT_50: ClockBehind = ClockBehind::Wait { max_ms: 50 };

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// Minted, and what.
fn minted<T: Debug>(attempt: Attempt<T>) -> T {
    match attempt {
        Attempt::Minted(minted) => minted,
        Attempt::Wait(wait) => panic!("waits {wait:?} where it should mint"),
    }
}

/// Checks both non-waiting methods of a generator `build` makes on a manual clock at [`T0`]
/// (with a policy), whose ticks are `tick_ms` long and hold `per_tick` IDs for one thread.
fn never_waits<G: Mint>(
    build: impl Fn(ClockBehind) -> (G, ManualClock),
    tick_ms: u64,
    per_tick: usize,
) where
    G::Id: Hash + Debug,
{
    let (generator, clock) = build(WAIT_50);
    let mut ids = Vec::new();
    let mut buffer = vec![G::Id::default(); 3];

    // A full tick: wait until the next one, however often asked; then mint on it.
    while ids.len() < per_tick {
        ids.push(minted(generator.mint_or_wait().unwrap()));
    }
    assert_eq!(
        generator.mint_or_wait().unwrap(),
        Attempt::Wait(ms(tick_ms))
    );
    assert_eq!(
        generator.mint_batch_or_wait(&mut buffer).unwrap(),
        Attempt::Wait(ms(tick_ms))
    );
    if tick_ms > 1 {
        clock.advance(1);
        assert_eq!(
            generator.mint_or_wait().unwrap(),
            Attempt::Wait(ms(tick_ms - 1))
        );
    }
    let next_tick = T0 + tick_ms;
    clock.set(next_tick);
    let written = minted(generator.mint_batch_or_wait(&mut buffer).unwrap());
    assert!((1..=3).contains(&written));
    ids.extend_from_slice(&buffer[..written]);
    assert_eq!(
        generator.mint_batch_or_wait(&mut []).unwrap(),
        Attempt::Minted(0)
    );

    // A clock behind the last minted tick: within the bound, wait until it catches up;
    // beyond it, the blocking mint's error.
    clock.set(next_tick - 20);
    assert_eq!(generator.mint_or_wait().unwrap(), Attempt::Wait(ms(20)));
    assert_eq!(
        generator.mint_batch_or_wait(&mut buffer).unwrap(),
        Attempt::Wait(ms(20))
    );
    clock.set(next_tick - 60);
    let err = generator.mint_or_wait().unwrap_err();
    assert!(
        matches!(
            err,
            Error::ClockBehind {
                behind_ms: 60,
                max_wait_ms: 50,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(generator.mint().unwrap_err(), err);
    assert_eq!(generator.mint_batch_or_wait(&mut buffer).unwrap_err(), err);

    // Behind for longer than the bound in all, counted from the first answer: the error too.
    clock.set(next_tick - 20);
    std::thread::sleep(ms(60));
    let err = generator.mint_or_wait().unwrap_err();
    assert!(
        matches!(
            err,
            Error::ClockBehind {
                behind_ms: 20,
                max_wait_ms: 50,
                ..
            }
        ),
        "{err:?}"
    );

    // The clock catches up: minting goes on above the IDs before.
    clock.set(next_tick + tick_ms);
    ids.push(minted(generator.mint_or_wait().unwrap()));
    let written = minted(generator.mint_batch_or_wait(&mut buffer).unwrap());
    ids.extend_from_slice(&buffer[..written]);
    assert_unique_and_increasing([&ids]);

    // Under `ClockBehind::Error`, any clock behind fails at once.
    let (generator, clock) = build(ClockBehind::Error);
    minted(generator.mint_or_wait().unwrap());
    clock.set(T0 - tick_ms);
    assert!(matches!(
        generator.mint_or_wait(),
        Err(Error::ClockBehind { max_wait_ms: 0, .. })
    ));
}

#[test]
fn a_shared_generator_never_waits() {
    never_waits(
        |policy| {
            on_manual_clock(
                Generator::builder(SMALL)
                    .node("machine", 1)
                    .on_clock_behind(policy),
                T0,
            )
        },
        1,
        16,
    );
    never_waits(
        |policy| {
            on_manual_clock(
                Generator::builder(Layout::SONYFLAKE)
                    .node("machine", 1)
                    .on_clock_behind(policy),
                T0,
            )
        },
        10,
        256,
    );
}

#[test]
fn a_local_generator_never_waits() {
    never_waits(
        |policy| {
            local_on_manual_clock(
                Generator::builder(SMALL)
                    .node("machine", 2)
                    .on_clock_behind(policy),
                T0,
            )
        },
        1,
        16,
    );
}

#[test]
fn a_sharded_generator_never_waits() {
    // One thread mints from one shard: half of each tick.
    never_waits(
        |policy| {
            sharded_on_manual_clock(
                Generator::builder(SMALL)
                    .node("machine", 3)
                    .on_clock_behind(policy),
                Shards::SplitSequence(2),
                T0,
            )
        },
        1,
        8,
    );
}

#[test]
fn a_marked_generator_never_waits() {
    let dir = TempDir::new("attempt");
    let builds = std::cell::Cell::new(0);
    never_waits(
        |policy| {
            // A file of its own for each build: one generator holds a file at a time.
            builds.set(builds.get() + 1);
            let path = dir.join(&format!("mark-{}", builds.get()));
            let file = MarkFile::open(&path, Duration::from_millis(50)).unwrap();
            let (generator, clock) = built_on_manual_clock(T0, |clock| {
                file.resume(SMALL)
                    .node("machine", 4)
                    .clock(clock)
                    .on_clock_behind(policy)
                    .build()
                    .unwrap()
            });
            (
                MarkedGenerator::<_, MarkFileStore>::new(generator, file).unwrap(),
                clock,
            )
        },
        1,
        16,
    );
}

#[test]
fn a_sno_generator_never_waits() {
    never_waits(
        |policy| {
            sno_on_manual_clock(
                SnoGenerator::builder()
                    .partition(5)
                    .sequence_range(0..=15)
                    .on_clock_behind(policy),
                T0,
            )
        },
        4,
        16,
    );
}

/// Under `TickTock`, a clock behind moves to the other timeline and mints: no wait.
#[test]
fn tick_tock_mints_on_the_other_timeline_rather_than_wait() {
    let layout = TT;
    let (generator, clock) = on_manual_clock(
        Generator::builder(layout)
            .node("machine", 1)
            .on_clock_behind(ClockBehind::TickTock { max_ms: 50 }),
        T0,
    );
    minted(generator.mint_or_wait().unwrap());
    clock.set(T0 - 20);
    minted(generator.mint_or_wait().unwrap());
    assert_eq!(generator.stats().toggles, 1);
}
