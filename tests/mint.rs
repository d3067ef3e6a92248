//! The minting trait: every generator mints through [`Mint`], with the same methods, and
//! code generic over the trait gets unique, per-thread increasing IDs from each of them.

mod common;

use std::fmt::Debug;
use std::hash::Hash;
use std::time::Duration;

use snowmint::{
    Error, Generator, Layout, Mint,
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
use common::threads::on_threads;

/// Mints through every method of the trait, on one thread, with the clock standing still and
/// then moving: every ID unique and each above the one before; a `try_` call at a full tick
/// fails with `SequenceExhausted`, and nothing it reserved is lost or handed out twice.
fn one_thread<G: Mint>(generator: &G, clock: &ManualClock, tick_ms: u64, per_tick: usize)
where
    G::Id: Hash + Debug,
{
    let mut ids = Vec::new();
    ids.push(generator.mint().unwrap());
    ids.push(generator.try_mint().unwrap());
    let mut buffer = vec![G::Id::default(); 3];
    let written = generator.mint_batch(&mut buffer).unwrap();
    ids.extend_from_slice(&buffer[..written]);
    let written = generator.try_mint_batch(&mut buffer).unwrap();
    ids.extend_from_slice(&buffer[..written]);
    // Fill the tick: the next `try_` calls fail, the waiting ones move on with the clock.
    while ids.len() < per_tick {
        ids.push(generator.try_mint().unwrap());
    }
    assert!(matches!(
        generator.try_mint(),
        Err(Error::SequenceExhausted { .. })
    ));
    assert!(matches!(
        generator.try_mint_batch(&mut buffer),
        Err(Error::SequenceExhausted { .. })
    ));
    // The next tick holds exactly one more `mint_many` of a tick's worth.
    clock.advance(tick_ms);
    ids.extend(generator.mint_many(per_tick).unwrap());
    assert_unique_and_increasing([&ids]);
}

/// Mints `per_thread` IDs on each of `threads` threads through the trait's waiting methods:
/// all unique, increasing per thread.
fn threads<G: Mint + Sync>(generator: &G, threads: usize, per_thread: usize)
where
    G::Id: Hash + Debug + Send,
{
    let minted: Vec<Vec<G::Id>> = on_threads(threads, |i| {
        let mut ids = Vec::with_capacity(per_thread);
        let mut buffer = vec![G::Id::default(); 7];
        while ids.len() < per_thread {
            if i % 2 == 0 {
                ids.push(generator.mint().unwrap());
            } else {
                let written = generator.mint_batch(&mut buffer).unwrap();
                ids.extend_from_slice(&buffer[..written]);
            }
        }
        ids
    });
    assert_unique_and_increasing(&minted);
}

/// A twitter-shaped layout with 16 IDs per tick, so ticks fill quickly.
const SMALL: Layout = Layout::builder("small", 64)
    .unused(9)
    .time(41)
    .node("machine", 10)
    .sequence(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

#[test]
fn a_shared_generator_mints_through_the_trait() {
    let (generator, clock) = on_manual_clock(Generator::builder(SMALL).node("machine", 1), T0);
    one_thread(&generator, &clock, 1, 16);
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    threads(&generator, 4, 20_000);
}

#[test]
fn a_local_generator_mints_through_the_trait() {
    let (generator, clock) =
        local_on_manual_clock(Generator::builder(SMALL).node("machine", 2), T0);
    one_thread(&generator, &clock, 1, 16);
}

#[test]
fn a_sharded_generator_mints_through_the_trait() {
    let (generator, clock) = sharded_on_manual_clock(
        Generator::builder(SMALL).node("machine", 3),
        Shards::SplitSequence(2),
        T0,
    );
    // One thread mints from one shard: half of each tick.
    one_thread(&generator, &clock, 1, 8);
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 3)
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    threads(&generator, 4, 20_000);
}

#[test]
fn a_marked_generator_mints_through_the_trait() {
    let dir = TempDir::new("mint");
    let path = dir.join("mark");
    let file = MarkFile::open(&path, Duration::from_millis(50)).unwrap();
    let (generator, clock) = built_on_manual_clock(T0, |clock| {
        file.resume(SMALL)
            .node("machine", 4)
            .clock(clock)
            .build()
            .unwrap()
    });
    let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file).unwrap();
    one_thread(&generator, &clock, 1, 16);
    // Past the mark (50 ms ahead of the last write): a batch writes the file before it
    // returns, and every ID it hands out is below the mark on disk.
    clock.advance(100);
    let mut buffer = [snowmint::Id::default(); 4];
    let written = generator.mint_batch(&mut buffer).unwrap();
    let on_disk: u64 = std::fs::read_to_string(&path)
        .unwrap()
        .trim_end()
        .parse()
        .unwrap();
    let last = SMALL.decode(buffer[written - 1]).unwrap();
    assert!(last.unix_ms() < on_disk, "{last:?}, mark {on_disk}");
}

#[test]
fn a_sno_generator_mints_through_the_trait() {
    let (generator, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(5)
            .meta(9)
            .sequence_range(0..=15),
        T0,
    );
    one_thread(&generator, &clock, 4, 16);
    clock.advance(4);
    let id = Mint::mint(&generator).unwrap();
    assert_eq!((id.meta(), id.partition()), (9, 5));
    let generator = SnoGenerator::builder().partition(6).build().unwrap();
    threads(&generator, 4, 20_000);
}
