//! Minting that never waits: every generator's `mint_or_wait` and `mint_batch_or_wait` answer
//! a full tick with the time until the next one, a clock behind within the `ClockBehind`
//! policy's bound with how long until it can mint again, and a clock behind beyond it (or for
//! longer than the bound in all) with the blocking mint's error. Attempting again after the
//! answered wait mints, whatever the kind of generator.

mod common;

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use snowmint::{
    Attempt, ClockBehind, Error, Generator, GeneratorBuilder, Layout, Mint,
    clock::ManualClock,
    id128::{UlidGenerator, Uuid7Generator},
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
    never_waits(|policy| marked(&dir, policy, 0), 1, 16);
}

#[test]
fn a_sno_generator_never_waits() {
    never_waits(sno, 4, 16);
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

/// Attempts until `n` IDs are minted at the clock's time, in batches; a wait fails the test.
fn fill<G: Mint>(generator: &G, n: usize)
where
    G::Id: Debug,
{
    let mut buffer = vec![G::Id::default(); n.min(1 << 16)];
    let mut filled = 0;
    while filled < n {
        let room = (n - filled).min(buffer.len());
        filled += minted(generator.mint_batch_or_wait(&mut buffer[..room]).unwrap());
    }
}

/// Both non-waiting forms answer `Wait(wait)`; after advancing the clock by exactly that, the
/// next attempt mints.
fn waits_then_mints<G: Mint>(generator: &G, clock: &ManualClock, wait: Duration)
where
    G::Id: Debug,
{
    let mut buffer = [G::Id::default(); 2];
    assert_eq!(generator.mint_or_wait().unwrap(), Attempt::Wait(wait));
    assert_eq!(
        generator.mint_batch_or_wait(&mut buffer).unwrap(),
        Attempt::Wait(wait)
    );
    clock.advance(wait.as_millis() as u64);
    minted(generator.mint_or_wait().unwrap());
}

/// Checks that the wait a generator `build` makes on a manual clock at [`T0`] answers (with a
/// policy and a borrow bound in ticks) runs to the earliest time a mint succeeds, and that the
/// policy's bound and the error measure the same distance: from a full tick, to the next tick;
/// when borrowing (`borrows`), to the tick borrowing lets the state run ahead of. Ticks are
/// `tick_ms` long and hold `per_tick` IDs for one thread.
fn waits_end_where_minting_resumes<G: Mint>(
    build: impl Fn(ClockBehind, u64) -> (G, ManualClock),
    tick_ms: u64,
    per_tick: usize,
    borrows: bool,
) where
    G::Id: Debug,
{
    // A full tick, and the clock 2 ms behind its start: minting resumes at the next tick.
    let (generator, clock) = build(WAIT_50, 0);
    fill(&generator, per_tick);
    clock.set(T0 - 2);
    waits_then_mints(&generator, &clock, ms(tick_ms + 2));
    // The bound counts the wait for the next tick too.
    let next_tick = T0 + tick_ms;
    fill(&generator, per_tick - 1);
    clock.set(next_tick + tick_ms - 20);
    assert_eq!(generator.mint_or_wait().unwrap(), Attempt::Wait(ms(20)));
    clock.set(next_tick + tick_ms - 51);
    let err = generator.mint_or_wait().unwrap_err();
    assert!(
        matches!(
            err,
            Error::ClockBehind {
                behind_ms: 51,
                max_wait_ms: 50,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(generator.mint().unwrap_err(), err);
    if !borrows {
        return;
    }

    // Borrowing 100 ticks, the clock 1 ms behind the window: a wait of 1 ms, not of the
    // distance to the last minted tick, which is past the bound.
    let (generator, clock) = build(WAIT_50, 100);
    let window = 100 * tick_ms;
    minted(generator.mint_or_wait().unwrap());
    clock.set(T0 - window - 1);
    waits_then_mints(&generator, &clock, ms(1));
    clock.set(T0 - window - 20);
    assert_eq!(generator.mint_or_wait().unwrap(), Attempt::Wait(ms(20)));
    clock.set(T0 - window - 51);
    assert!(matches!(
        generator.mint_or_wait(),
        Err(Error::ClockBehind {
            behind_ms: 51,
            max_wait_ms: 50,
            ..
        })
    ));
    // The same tick full: minting resumes when the next tick is within the window.
    clock.set(T0);
    fill(&generator, per_tick - 2);
    clock.set(T0 - window - 1);
    waits_then_mints(&generator, &clock, ms(tick_ms + 1));
}

/// A [`GeneratorBuilder`] of `layout` for machine `machine`, with a policy and a borrow bound.
fn builder(layout: Layout, machine: u64, policy: ClockBehind, borrow: u64) -> GeneratorBuilder {
    Generator::builder(layout)
        .node("machine", machine)
        .on_clock_behind(policy)
        .borrow_ahead(borrow)
}

/// A marked generator of [`SMALL`] for machine 4 with a policy and a borrow bound, over a mark
/// file of its own in `dir` (one generator holds a file at a time).
fn marked(
    dir: &TempDir,
    policy: ClockBehind,
    borrow: u64,
) -> (MarkedGenerator<ManualClock, MarkFileStore>, ManualClock) {
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let path = dir.join(&format!("mark-{}", BUILDS.fetch_add(1, Ordering::Relaxed)));
    let file = MarkFile::open(&path, Duration::from_millis(50)).unwrap();
    let (generator, clock) = built_on_manual_clock(T0, |clock| {
        file.resume(SMALL)
            .node("machine", 4)
            .clock(clock)
            .on_clock_behind(policy)
            .borrow_ahead(borrow)
            .build()
            .unwrap()
    });
    (
        MarkedGenerator::<_, MarkFileStore>::new(generator, file).unwrap(),
        clock,
    )
}

/// An sno generator of partition 5 with 16 sequence values a tick, under `policy` (sno does
/// not borrow).
fn sno(policy: ClockBehind) -> (SnoGenerator<Generator<ManualClock>>, ManualClock) {
    sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(5)
            .sequence_range(0..=15)
            .on_clock_behind(policy),
        T0,
    )
}

#[test]
fn a_shared_generators_waits_end_where_minting_resumes() {
    waits_end_where_minting_resumes(
        |policy, borrow| on_manual_clock(builder(SMALL, 1, policy, borrow), T0),
        1,
        16,
        true,
    );
    waits_end_where_minting_resumes(
        |policy, borrow| on_manual_clock(builder(Layout::SONYFLAKE, 1, policy, borrow), T0),
        10,
        256,
        true,
    );
}

#[test]
fn a_local_generators_waits_end_where_minting_resumes() {
    waits_end_where_minting_resumes(
        |policy, borrow| local_on_manual_clock(builder(SMALL, 2, policy, borrow), T0),
        1,
        16,
        true,
    );
}

#[test]
fn a_sharded_generators_waits_end_where_minting_resumes() {
    waits_end_where_minting_resumes(
        |policy, borrow| {
            sharded_on_manual_clock(
                builder(SMALL, 3, policy, borrow),
                Shards::SplitSequence(2),
                T0,
            )
        },
        1,
        8,
        true,
    );
}

#[test]
fn a_marked_generators_waits_end_where_minting_resumes() {
    let dir = TempDir::new("attempt-resumes");
    waits_end_where_minting_resumes(|policy, borrow| marked(&dir, policy, borrow), 1, 16, true);
}

#[test]
fn a_sno_generators_waits_end_where_minting_resumes() {
    waits_end_where_minting_resumes(|policy, _| sno(policy), 4, 16, false);
}

#[test]
fn uuid7_and_ulid_generators_waits_end_where_minting_resumes() {
    // 1 ms ticks of 2^22 IDs (one thread's share of them when sharded).
    const PER_MS: usize = 1 << 22;
    waits_end_where_minting_resumes(
        |policy, borrow| {
            built_on_manual_clock(T0, |clock| {
                Uuid7Generator::builder()
                    .clock(clock)
                    .on_clock_behind(policy)
                    .borrow_ahead(borrow)
                    .build()
                    .unwrap()
            })
        },
        1,
        PER_MS,
        true,
    );
    waits_end_where_minting_resumes(
        |policy, borrow| {
            built_on_manual_clock(T0, |clock| {
                UlidGenerator::builder()
                    .clock(clock)
                    .on_clock_behind(policy)
                    .borrow_ahead(borrow)
                    .build_local()
                    .unwrap()
            })
        },
        1,
        PER_MS,
        true,
    );
    waits_end_where_minting_resumes(
        |policy, borrow| {
            built_on_manual_clock(T0, |clock| {
                Uuid7Generator::builder()
                    .clock(clock)
                    .on_clock_behind(policy)
                    .borrow_ahead(borrow)
                    .build_sharded(Shards::SplitSequence(2))
                    .unwrap()
            })
        },
        1,
        PER_MS / 2,
        true,
    );
}
