//! 128-bit IDs: the RFC 9562 and ULID specification examples, text errors, paging bounds, the
//! random part as a counter from a keyed start, many threads on each engine, the clock's
//! cases, and a real `fork()`.

mod common;

use std::fmt::Debug;
use std::hash::Hash;
use std::thread;

use snowmint::clock::ManualClock;
use snowmint::error::ParseIdReason;
use snowmint::id128::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};
use snowmint::shard::Shards;
use snowmint::{Attempt, ClockBehind, Error, Mint};

use common::checks::{assert_increasing, assert_unique_and_increasing};
use common::clocks::T0;

/// The reason of a parse error, or a panic naming what came instead.
fn reason<T: Debug>(result: snowmint::Result<T>) -> ParseIdReason {
    match result {
        Err(Error::ParseId { reason, .. }) => reason,
        other => panic!("expected Error::ParseId, got {other:?}"),
    }
}

#[test]
fn the_rfc_9562_uuidv7_example_decodes_and_round_trips() {
    // RFC 9562, Appendix A.6.
    let id: Uuid7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F".parse().unwrap();
    assert_eq!(id.unix_ms(), 0x017F_22E2_79B0);
    assert_eq!(id.to_u128(), 0x017F_22E2_79B0_7CC3_98C4_DC0C_0C07_398F);
    assert_eq!(id.random(), 0xCC3 << 62 | 0x18C4_DC0C_0C07_398F);
    assert_eq!(id.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(id.to_string().parse::<Uuid7>().unwrap(), id);
    assert_eq!(
        "017f22e279b07cc398c4dc0c0c07398f".parse::<Uuid7>().unwrap(),
        id
    );
    assert_eq!(Uuid7::from_bytes(id.to_bytes()).unwrap(), id);
    assert_eq!(Uuid7::from_u128(id.to_u128()).unwrap(), id);
    assert_eq!(format!("{id:>40}"), format!("    {id}"));
}

#[test]
fn the_ulid_specification_examples_decode_and_round_trip() {
    let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(id.unix_ms(), 1_469_918_176_385);
    assert_eq!(id.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(id.unix_ms(), 1_469_922_850_259);
    assert_eq!(id.to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    assert_eq!("01arz3ndektsv4rrffq69g5fav".parse::<Ulid>().unwrap(), id);
    assert_eq!(Ulid::from_bytes(id.to_bytes()), id);

    let min: Ulid = "00000000000000000000000000".parse().unwrap();
    let max: Ulid = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ".parse().unwrap();
    assert_eq!((min, max), (Ulid::MIN, Ulid::MAX));
    assert_eq!((min.to_u128(), max.to_u128()), (0, u128::MAX));
    assert_eq!(max.unix_ms(), (1 << 48) - 1);

    let err = "80000000000000000000000000".parse::<Ulid>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid ulid id \"80000000000000000000000000\": larger than the largest id, \
         7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    );
    assert_eq!(
        reason("zZZZZZZZZZZZZZZZZZZZZZZZZZ".parse::<Ulid>()),
        ParseIdReason::Overflow {
            max: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
        }
    );
}

#[test]
fn ulid_text_errors_name_the_length_or_the_character() {
    assert!(matches!(
        reason("".parse::<Ulid>()),
        ParseIdReason::Empty { .. }
    ));
    assert!(matches!(
        reason("01ARYZ6S41TSV4RRFFQ69G5FA".parse::<Ulid>()),
        ParseIdReason::WrongLength { length: 25, .. }
    ));
    // I, L, O and U are not in Crockford's alphabet; a later bad character is named first
    // only if no earlier one is bad.
    for (text, found, position) in [
        ("01ARYZ6S41TSV4RRFFQ69G5FAI", 'I', 25),
        ("0LARYZ6S41TSV4RRFFQ69G5FAV", 'L', 1),
        ("01ARYZ6S41TSV4RRFFQ69G5FOV", 'O', 24),
        ("01ARYZ6S41uSV4RRFFQ69G5FAV", 'u', 10),
    ] {
        match reason(text.parse::<Ulid>()) {
            ParseIdReason::InvalidDigit {
                found: f,
                position: p,
                ..
            } => assert_eq!((f, p), (found, position), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // A multi-byte character: counted as one character, named at its byte offset.
    assert!(matches!(
        reason("01ARYZ6S41TSV4RRFFQ69G5FAé".parse::<Ulid>()),
        ParseIdReason::InvalidDigit {
            found: 'é',
            position: 25,
            ..
        }
    ));
    assert!(matches!(
        reason("017f22e2-79b0-7cc3-98c4-dc0c0c07398é".parse::<Uuid7>()),
        ParseIdReason::InvalidDigit {
            found: 'é',
            position: 35,
            ..
        }
    ));
    let err = "é".repeat(100).parse::<Ulid>().unwrap_err();
    let Error::ParseId { input, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(input.chars().count(), 65, "64 characters and an ellipsis");
    assert!(input.ends_with('…'));
}

#[test]
fn uuid_text_errors_name_the_length_the_character_or_the_version() {
    assert!(matches!(
        reason("".parse::<Uuid7>()),
        ParseIdReason::Empty { .. }
    ));
    assert!(matches!(
        reason("017f22e2-79b0-7cc3-98c4-dc0c0c07398".parse::<Uuid7>()),
        ParseIdReason::WrongLength { length: 35, .. }
    ));
    assert_eq!(
        reason("017f22e2-79b0-7cc3-98c4-dc0c0c07398g".parse::<Uuid7>()),
        ParseIdReason::InvalidDigit {
            found: 'g',
            position: 35,
            expected: "a hex digit"
        }
    );
    assert_eq!(
        reason("017f22e2079b0-7cc3-98c4-dc0c0c07398f".parse::<Uuid7>()),
        ParseIdReason::InvalidDigit {
            found: '0',
            position: 8,
            expected: "a hyphen"
        }
    );
    assert_eq!(
        reason("017f22e2-79b0-4cc3-98c4-dc0c0c07398f".parse::<Uuid7>()),
        ParseIdReason::NotUuid7 {
            version: 4,
            variant: 0b10
        }
    );
    let err = "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f"
        .parse::<Uuid7>()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid uuidv7 id \"017f22e2-79b0-7cc3-c8c4-dc0c0c07398f\": version 7 and variant \
         0b11, expected version 7 and variant 0b10 (a uuidv7)"
    );
    assert!(Uuid7::from_u128(0).is_err());
    assert!(Uuid7::try_from(u128::MAX).is_err());
}

#[test]
fn paging_bounds_hold_every_id_of_their_millisecond_and_no_other() {
    for ms in [0, 1, T0, (1 << 48) - 1] {
        let (min, max) = (Uuid7::min_at(ms).unwrap(), Uuid7::max_at(ms).unwrap());
        assert_eq!((min.unix_ms(), max.unix_ms()), (ms, ms));
        assert_eq!((min.random(), max.random()), (0, (1 << 74) - 1));
        // Both are real UUIDv7s.
        assert_eq!(Uuid7::from_u128(min.to_u128()).unwrap(), min);
        assert_eq!(Uuid7::from_u128(max.to_u128()).unwrap(), max);
        let (min, max) = (Ulid::min_at(ms).unwrap(), Ulid::max_at(ms).unwrap());
        assert_eq!((min.unix_ms(), max.unix_ms()), (ms, ms));
        assert_eq!(max.to_u128() - min.to_u128(), (1 << 80) - 1);
    }
    assert!(Uuid7::max_at(T0).unwrap() < Uuid7::min_at(T0 + 1).unwrap());
    assert!(Ulid::max_at(T0).unwrap().to_u128() + 1 == Ulid::min_at(T0 + 1).unwrap().to_u128());
    assert!(matches!(
        Uuid7::min_at(1 << 48),
        Err(Error::TimeOverflow { .. })
    ));
    assert!(matches!(
        Ulid::max_at(1 << 48),
        Err(Error::TimeOverflow { .. })
    ));

    let clock = ManualClock::new(T0);
    let generator = Uuid7Generator::builder().clock(&clock).build().unwrap();
    let ids = generator.mint_many(1_000).unwrap();
    let (min, max) = (Uuid7::min_at(T0).unwrap(), Uuid7::max_at(T0).unwrap());
    assert!(ids.iter().all(|id| (min..=max).contains(id)));
}

/// The random part of an ID of either family, as a number.
trait Random: Copy + Ord + Hash + Debug + Default + Send {
    fn random(self) -> u128;
    fn unix_ms(self) -> u64;
}

impl Random for Uuid7 {
    fn random(self) -> u128 {
        Uuid7::random(self)
    }
    fn unix_ms(self) -> u64 {
        Uuid7::unix_ms(self)
    }
}

impl Random for Ulid {
    fn random(self) -> u128 {
        Ulid::random(self)
    }
    fn unix_ms(self) -> u64 {
        Ulid::unix_ms(self)
    }
}

/// On `generator`, whose clock is `clock` at [`T0`]: the IDs of one millisecond count up by
/// one in their random part, through single mints and batches; the next millisecond starts
/// elsewhere.
fn counts_from_a_start_each_millisecond<G: Mint>(generator: &G, clock: &ManualClock)
where
    G::Id: Random,
{
    let first = generator.mint().unwrap();
    let mut ids = vec![first];
    ids.extend(generator.mint_many(999).unwrap());
    let mut batch = [G::Id::default(); 100];
    assert_eq!(generator.try_mint_batch(&mut batch).unwrap(), 100);
    ids.extend(batch);
    ids.push(generator.try_mint().unwrap());
    assert_increasing(&ids);
    for (n, id) in ids.iter().enumerate() {
        assert_eq!(id.unix_ms(), T0);
        assert_eq!(id.random(), first.random() + n as u128, "ID {n}");
    }
    clock.advance(1);
    let next = generator.mint().unwrap();
    assert_eq!(next.unix_ms(), T0 + 1);
    assert!(next > *ids.last().unwrap());
    // Another start: the chance it lands within 2^22 of the last is 2^-51.
    assert!(next.random().abs_diff(first.random()) > 1 << 22);
    assert_eq!(generator.mint().unwrap().random(), next.random() + 1);
}

#[test]
fn the_random_part_is_a_keyed_start_plus_the_sequence_on_every_engine() {
    let clock = ManualClock::new(T0);
    let builder = || Uuid7Generator::builder().clock(clock.clone());
    counts_from_a_start_each_millisecond(&builder().build().unwrap(), &clock);
    clock.set(T0);
    counts_from_a_start_each_millisecond(&builder().build_local().unwrap(), &clock);
    clock.set(T0);
    // One thread, one shard: its IDs count up within the shard's part of the sequence.
    counts_from_a_start_each_millisecond(
        &builder().build_sharded(Shards::SplitSequence(4)).unwrap(),
        &clock,
    );

    let ulids = || UlidGenerator::builder().clock(clock.clone());
    clock.set(T0);
    counts_from_a_start_each_millisecond(&ulids().build().unwrap(), &clock);
    clock.set(T0);
    counts_from_a_start_each_millisecond(&ulids().build_local().unwrap(), &clock);
    clock.set(T0);
    counts_from_a_start_each_millisecond(
        &ulids().build_sharded(Shards::SplitSequence(2)).unwrap(),
        &clock,
    );
}

#[test]
fn generators_built_apart_start_apart() {
    let clock = ManualClock::new(T0);
    let a = UlidGenerator::builder().clock(&clock).build().unwrap();
    let b = UlidGenerator::builder().clock(&clock).build().unwrap();
    let (a, b) = (a.mint().unwrap(), b.mint().unwrap());
    assert_eq!(a.unix_ms(), b.unix_ms());
    assert!(a.random().abs_diff(b.random()) > 1 << 22);
}

/// How many IDs each stress thread mints.
const PER_THREAD: usize = 200_000;
/// How many threads mint at once.
const THREADS: usize = 8;

/// `THREADS` threads each mint [`PER_THREAD`] IDs with `mint` (given the thread's index):
/// every ID unique, each thread's strictly increasing; `check` holds for every ID.
fn stress<T: Random>(mint: impl Fn(usize) -> Vec<T> + Sync, check: impl Fn(T)) {
    let threads: Vec<Vec<T>> = thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let mint = &mint;
                s.spawn(move || mint(t))
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for ids in &threads {
        assert_eq!(ids.len(), PER_THREAD);
        ids.iter().copied().for_each(&check);
    }
    let all = assert_unique_and_increasing(threads);
    assert_eq!(all.len(), THREADS * PER_THREAD);
}

/// Whether `id` has version 7 and variant `0b10`, read from its bytes.
fn is_v7(id: Uuid7) {
    let bytes = id.to_bytes();
    assert_eq!((bytes[6] >> 4, bytes[8] >> 6), (7, 0b10), "{id:?}");
}

#[test]
fn many_threads_on_a_shared_generator_mint_unique_increasing_uuids() {
    let generator = Uuid7Generator::builder().build().unwrap();
    stress(
        |_| (0..PER_THREAD).map(|_| generator.mint().unwrap()).collect(),
        is_v7,
    );
    let generator = UlidGenerator::builder().build().unwrap();
    stress(
        |_| (0..PER_THREAD).map(|_| generator.mint().unwrap()).collect(),
        |_| {},
    );
}

#[test]
fn many_threads_with_a_local_generator_each_mint_unique_increasing_uuids() {
    stress(
        |_| {
            let generator = Uuid7Generator::builder().build_local().unwrap();
            (0..PER_THREAD).map(|_| generator.mint().unwrap()).collect()
        },
        is_v7,
    );
}

#[test]
fn many_threads_on_a_sharded_generator_mint_unique_increasing_uuids() {
    let generator = Uuid7Generator::builder()
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    stress(
        |t| {
            // Half the threads in batches, so runs and single mints interleave.
            if t % 2 == 0 {
                return (0..PER_THREAD).map(|_| generator.mint().unwrap()).collect();
            }
            let mut ids = Vec::with_capacity(PER_THREAD);
            let mut batch = [Uuid7::default(); 64];
            while ids.len() < PER_THREAD {
                let want = (PER_THREAD - ids.len()).min(64);
                let n = generator.mint_batch(&mut batch[..want]).unwrap();
                ids.extend_from_slice(&batch[..n]);
            }
            ids
        },
        is_v7,
    );
}

#[test]
fn a_full_millisecond_waits_fails_or_borrows() {
    const PER_MS: usize = 1 << 22;
    let clock = ManualClock::new(T0);
    let generator = UlidGenerator::builder().clock(&clock).build().unwrap();
    let mut buffer = vec![Ulid::default(); 1 << 20];
    let mut minted = 0;
    while minted < PER_MS {
        minted += generator.try_mint_batch(&mut buffer).unwrap();
    }
    assert_eq!(minted, PER_MS);
    assert!(matches!(
        generator.try_mint(),
        Err(Error::SequenceExhausted { .. })
    ));
    clock.advance(1);
    assert_eq!(generator.try_mint().unwrap().unix_ms(), T0 + 1);

    let clock = ManualClock::new(T0);
    let generator = Uuid7Generator::builder()
        .clock(&clock)
        .borrow_ahead(1)
        .build()
        .unwrap();
    let mut minted = 0;
    let mut buffer = vec![Uuid7::default(); 1 << 20];
    while minted < PER_MS {
        minted += generator.try_mint_batch(&mut buffer).unwrap();
    }
    let borrowed = generator.try_mint().unwrap();
    assert_eq!(
        borrowed.unix_ms(),
        T0 + 1,
        "the time runs ahead of the clock"
    );
    assert_eq!(generator.engine().stats().borrows, 1);
}

#[test]
fn a_clock_behind_waits_or_fails_and_tick_tock_does_not_build() {
    let clock = ManualClock::new(T0);
    let generator = Uuid7Generator::builder()
        .clock(&clock)
        .on_clock_behind(ClockBehind::Error)
        .build()
        .unwrap();
    let before = generator.mint().unwrap();
    clock.set(T0 - 5);
    assert!(matches!(
        generator.mint(),
        Err(Error::ClockBehind { behind_ms: 5, .. })
    ));
    clock.set(T0);
    assert!(generator.mint().unwrap() > before);

    // Wait: a regression within the bound is waited out on the clock's own time.
    let clock = ManualClock::new(T0);
    let generator = UlidGenerator::builder()
        .clock(&clock)
        .on_clock_behind(ClockBehind::Wait { max_ms: 50 })
        .build_local()
        .unwrap();
    let before = generator.mint().unwrap();
    clock.set(T0 - 1);
    let after = thread::scope(|s| {
        let minting = s.spawn(move || generator.mint());
        thread::sleep(std::time::Duration::from_millis(5));
        clock.set(T0 + 1);
        minting.join().unwrap()
    });
    assert!(after.unwrap() > before);

    let err = Uuid7Generator::builder()
        .on_clock_behind(ClockBehind::TickTock { max_ms: 10 })
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::TickTockUnsupported { .. }));
}

#[test]
fn minting_that_never_waits_says_how_long_on_every_engine() {
    /// `per_ms`: the IDs one thread can mint in a millisecond (a shard's share when sharded).
    fn check<G: Mint>(generator: &G, clock: &ManualClock, per_ms: usize)
    where
        G::Id: Random,
    {
        let Attempt::Minted(first) = generator.mint_or_wait().unwrap() else {
            panic!("a fresh millisecond mints at once");
        };
        // The rest of the millisecond, then a full one: a wait of one millisecond.
        let mut buffer = vec![G::Id::default(); 1 << 20];
        let mut minted = 1;
        while minted < per_ms {
            match generator.mint_batch_or_wait(&mut buffer).unwrap() {
                Attempt::Minted(n) => minted += n,
                Attempt::Wait(wait) => panic!("waited {wait:?} with {minted} minted"),
            }
        }
        assert_eq!(minted, per_ms);
        assert_eq!(
            generator.mint_or_wait().unwrap(),
            Attempt::Wait(std::time::Duration::from_millis(1))
        );
        assert_eq!(
            generator.mint_batch_or_wait(&mut buffer).unwrap(),
            Attempt::Wait(std::time::Duration::from_millis(1))
        );
        clock.advance(1);
        let Attempt::Minted(next) = generator.mint_or_wait().unwrap() else {
            panic!("the next millisecond mints at once");
        };
        assert!(next > first && next.unix_ms() == first.unix_ms() + 1);
        // Behind within the bound: how far; beyond it: the blocking form's error.
        clock.set(first.unix_ms() - 3);
        assert_eq!(
            generator.mint_or_wait().unwrap(),
            Attempt::Wait(std::time::Duration::from_millis(4))
        );
        clock.set(first.unix_ms() - 100);
        assert!(matches!(
            generator.mint_or_wait(),
            Err(Error::ClockBehind { behind_ms: 101, .. })
        ));
    }
    let policy = ClockBehind::Wait { max_ms: 50 };
    let clock = ManualClock::new(T0);
    let builder = || {
        Uuid7Generator::builder()
            .clock(&clock)
            .on_clock_behind(policy)
    };
    check(&builder().build().unwrap(), &clock, 1 << 22);
    clock.set(T0);
    check(&builder().build_local().unwrap(), &clock, 1 << 22);
    let clock = ManualClock::new(T0);
    let generator = UlidGenerator::builder()
        .clock(&clock)
        .on_clock_behind(policy)
        .build_sharded(Shards::SplitSequence(2))
        .unwrap();
    check(&generator, &clock, 1 << 21);
}

#[test]
fn past_2109_minting_fails_but_the_ids_hold_the_time() {
    let clock = ManualClock::new(4_398_046_511_104); // 2^42 ms
    let generator = Uuid7Generator::builder().clock(&clock).build().unwrap();
    assert!(matches!(generator.mint(), Err(Error::TimeOverflow { .. })));
    assert_eq!(
        Uuid7::min_at(4_398_046_511_104).unwrap().unix_ms(),
        4_398_046_511_104
    );
}

#[cfg(unix)]
mod fork {
    //! A generator built before a `fork()` fails in the child; one built in the child draws a
    //! key of its own, so the child repeats neither its parent's IDs nor its random starts.

    use std::io::Write;
    use std::time::Duration;

    use super::*;
    use crate::common::forks::{self, is_forked};

    /// `Uuid7::now()` and `Ulid::now()`: one process-wide generator each, shared by every
    /// thread (unique, each thread's increasing, a later call above every earlier one), and in
    /// a forked child a generator of the child's own: no ID of the parent's, and the parent
    /// mints on.
    #[test]
    fn now_is_one_generator_per_process_and_a_child_builds_its_own() {
        let per_thread: Vec<Vec<Uuid7>> = thread::scope(|s| {
            let workers: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..20_000).map(|_| Uuid7::now().unwrap()).collect()))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let mut parents: Vec<Uuid7> = per_thread.concat();
        assert_eq!(assert_unique_and_increasing(per_thread).len(), 80_000);
        let last = *parents.iter().max().unwrap();
        assert!(Uuid7::now().unwrap() > last);
        parents.sort_unstable();
        let ulid = Ulid::now().unwrap();
        assert!(Ulid::now().unwrap() > ulid);

        let forked = forks::fork(|pipe| {
            // Spread over about 20 ms, while the parent mints too.
            for _ in 0..1_000 {
                let id = Uuid7::now().map_err(|e| e.to_string())?;
                writeln!(pipe, "{id}").map_err(|e| e.to_string())?;
                std::thread::sleep(Duration::from_micros(20));
            }
            let id = Ulid::now().map_err(|e| e.to_string())?;
            writeln!(pipe, "{id}").map_err(|e| e.to_string())?;
            Ok(())
        });
        // The parent mints on meanwhile: its first ID of each millisecond.
        let mut parents_first = std::collections::HashMap::new();
        let until = std::time::Instant::now() + Duration::from_millis(200);
        while std::time::Instant::now() < until {
            let id = Uuid7::now().unwrap();
            parents_first.entry(id.unix_ms()).or_insert(id);
        }
        let ended = forked.wait(Duration::from_secs(30));
        ended.success().unwrap();
        let mut lines: Vec<&str> = ended.output.lines().collect();
        let _childs_ulid: Ulid = lines.pop().unwrap().parse().unwrap();
        let childs: Vec<Uuid7> = lines.iter().map(|l| l.parse().unwrap()).collect();
        assert_eq!(childs.len(), 1_000);
        assert_increasing(&childs);
        assert!(childs.iter().all(|id| parents.binary_search(id).is_err()));
        // In every millisecond both minted in, the child's random part is far from the
        // parent's start: a child minting on its parent's generator (its key) would start
        // where the parent does, a few sequence steps away.
        let mut common = 0;
        for id in &childs {
            if let Some(parents) = parents_first.get(&id.unix_ms()) {
                common += 1;
                assert!(
                    id.random().abs_diff(parents.random()) > 1 << 22,
                    "the child's {id:?} starts where its parent's {parents:?} does"
                );
            }
        }
        assert!(
            common > 0,
            "the child and its parent minted in no common millisecond"
        );
        // The parent's generator mints on, above everything it minted.
        assert!(Uuid7::now().unwrap() > last);
    }

    #[test]
    fn a_child_neither_mints_with_its_parents_generator_nor_repeats_its_random_starts() {
        let parent = std::process::id();
        let clock = ManualClock::new(T0);
        let shared = UlidGenerator::builder().clock(&clock).build().unwrap();
        let local = Uuid7Generator::builder()
            .clock(&clock)
            .build_local()
            .unwrap();
        let sharded = Uuid7Generator::builder()
            .clock(&clock)
            .build_sharded(Shards::SplitSequence(2))
            .unwrap();
        let parents = shared.mint_many(1_000).unwrap();
        local.mint().unwrap();
        // This thread remembers each generator's start of `T0`.
        let parents_sharded = sharded.mint().unwrap();
        let ended = forks::fork(|pipe| {
            is_forked("mint", shared.mint(), "UlidGenerator", parent)?;
            is_forked("mint_many", shared.mint_many(3), "UlidGenerator", parent)?;
            is_forked("local mint", local.mint(), "Uuid7Generator", parent)?;
            let mut batch = [Uuid7::default(); 4];
            is_forked(
                "local batch",
                local.mint_batch(&mut batch),
                "Uuid7Generator",
                parent,
            )?;
            is_forked("sharded mint", sharded.mint(), "Uuid7Generator", parent)?;
            // New generators, on the same clock: keys of their own.
            let own = UlidGenerator::builder().clock(&clock).build().unwrap();
            let mut ids = vec![own.mint().map_err(|e| e.to_string())?];
            ids.extend(own.mint_many(999).map_err(|e| e.to_string())?);
            for id in ids {
                writeln!(pipe, "{id}").map_err(|e| e.to_string())?;
            }
            let own = Uuid7Generator::builder()
                .clock(&clock)
                .build_sharded(Shards::SplitSequence(2))
                .unwrap();
            let id = own.mint().map_err(|e| e.to_string())?;
            writeln!(pipe, "{id}").map_err(|e| e.to_string())?;
            Ok(())
        })
        .wait(Duration::from_secs(30));
        ended.success().unwrap();
        let mut lines: Vec<&str> = ended.output.lines().collect();
        let childs_sharded: Uuid7 = lines.pop().unwrap().parse().unwrap();
        assert_eq!(childs_sharded.unix_ms(), T0);
        assert!(
            childs_sharded.random().abs_diff(parents_sharded.random()) > 1 << 22,
            "the child's start {childs_sharded:?} is its parent's {parents_sharded:?}",
        );
        let childs: Vec<Ulid> = lines.iter().map(|l| l.parse().unwrap()).collect();
        assert_eq!(childs.len(), 1_000);
        assert!(childs.iter().all(|id| id.unix_ms() == T0));
        assert!(
            childs[0].random().abs_diff(parents[0].random()) > 1 << 22,
            "the child's start {:?} is its parent's {:?}",
            childs[0],
            parents[0]
        );
        assert!(childs.iter().all(|id| !parents.contains(id)));
        // The parent's generators mint on.
        assert!(shared.mint().unwrap() > parents[999]);
        assert!(local.mint().is_ok());
    }

    /// In a forked child: every minting method of `generator` fails with `Error::Forked`,
    /// naming it `kind`.
    fn forked_as<G: Mint>(generator: &G, kind: &str, parent: u32) -> Result<(), String>
    where
        G::Id: Debug,
    {
        let mut out = [G::Id::default(); 4];
        is_forked("mint", generator.mint(), kind, parent)?;
        is_forked("try_mint", generator.try_mint(), kind, parent)?;
        is_forked("mint_batch", generator.mint_batch(&mut out), kind, parent)?;
        is_forked("mint_or_wait", generator.mint_or_wait(), kind, parent)?;
        is_forked(
            "mint_batch_or_wait",
            generator.mint_batch_or_wait(&mut out),
            kind,
            parent,
        )?;
        is_forked("mint_many", generator.mint_many(3), kind, parent)
    }

    /// Regression: a sharded engine's generator called itself `ShardedGenerator` in
    /// `Error::Forked`, the shared and local ones `Uuid7Generator` or `UlidGenerator`. Each
    /// is named as the type its caller holds, whatever its engine.
    #[test]
    fn error_forked_names_the_generator_the_caller_holds_on_every_engine() {
        let parent = std::process::id();
        let uuids = (
            Uuid7Generator::builder().build().unwrap(),
            Uuid7Generator::builder().build_local().unwrap(),
            Uuid7Generator::builder()
                .build_sharded(Shards::SplitSequence(2))
                .unwrap(),
        );
        let ulids = (
            UlidGenerator::builder().build().unwrap(),
            UlidGenerator::builder().build_local().unwrap(),
            UlidGenerator::builder()
                .build_sharded(Shards::SplitSequence(2))
                .unwrap(),
        );
        // The sharded ones with a run of IDs in this thread, which the fork drops.
        uuids.2.mint().unwrap();
        ulids.2.mint().unwrap();
        let status = forks::in_child(Duration::from_secs(30), || {
            let named = |engine: &str, result: Result<(), String>| {
                result.map_err(|err| format!("on a {engine} engine: {err}"))
            };
            named("shared", forked_as(&uuids.0, "Uuid7Generator", parent))?;
            named("local", forked_as(&uuids.1, "Uuid7Generator", parent))?;
            named("sharded", forked_as(&uuids.2, "Uuid7Generator", parent))?;
            named("shared", forked_as(&ulids.0, "UlidGenerator", parent))?;
            named("local", forked_as(&ulids.1, "UlidGenerator", parent))?;
            named("sharded", forked_as(&ulids.2, "UlidGenerator", parent))
        });
        assert_eq!(status, 0, "see the child's stderr");
    }
}

#[cfg(feature = "tokio")]
#[test]
fn mint_async_comes_with_mint() {
    use snowmint::tokio::MintAsync;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let generator = Uuid7Generator::builder().build().unwrap();
    let (a, b) = runtime.block_on(async {
        (
            generator.mint_async().await.unwrap(),
            generator.mint_async().await.unwrap(),
        )
    });
    assert!(b > a);
    is_v7(b);
}

#[cfg(feature = "uuid")]
#[test]
fn uuid7_converts_to_uuid_and_back_checked() {
    let generator = Uuid7Generator::builder().build().unwrap();
    let id = generator.mint().unwrap();
    let uuid = uuid::Uuid::from(id);
    assert_eq!(uuid.get_version_num(), 7);
    assert_eq!(uuid.get_variant(), uuid::Variant::RFC4122);
    assert_eq!(uuid.to_string(), id.to_string());
    assert_eq!(Uuid7::try_from(uuid).unwrap(), id);
    assert!(matches!(
        reason(Uuid7::try_from(uuid::Uuid::from_u128(
            0x1234_5678_9abc_4def_8000_0000_0000_0000
        ))),
        ParseIdReason::NotUuid7 { version: 4, .. }
    ));
    // uuid's own UUIDv7s are Uuid7s: RFC 9562's example, built by uuid's v7 builder.
    let theirs = uuid::Builder::from_unix_timestamp_millis(
        0x017F_22E2_79B0,
        &[0x0C, 0xC3, 0x18, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F],
    )
    .into_uuid();
    assert_eq!(theirs.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(
        Uuid7::try_from(theirs).unwrap().to_string(),
        theirs.to_string()
    );
}

#[cfg(feature = "ulid")]
#[test]
fn ulid_converts_to_the_ulid_crate_and_back() {
    let generator = UlidGenerator::builder().build().unwrap();
    let id = generator.mint().unwrap();
    let theirs = ulid::Ulid::from(id);
    assert_eq!(theirs.to_string(), id.to_string());
    assert_eq!(theirs.timestamp_ms(), id.unix_ms());
    assert_eq!(Ulid::from(theirs), id);
}

#[test]
fn id_range_of_128_bit_ids_covers_every_id_of_its_milliseconds_and_clamps_to_48_bits() {
    use snowmint::clock::Rfc3339;
    use std::time::{Duration, UNIX_EPOCH};

    let t0: u64 = 1_714_521_600_000;
    // Excluded and included ends, in milliseconds and as `SystemTime`s, name the same IDs.
    let window = Uuid7::id_range(t0..t0 + 10).unwrap();
    assert_eq!(
        window,
        Uuid7::min_at(t0).unwrap()..=Uuid7::max_at(t0 + 9).unwrap()
    );
    let at = UNIX_EPOCH + Duration::from_millis(t0);
    assert_eq!(
        Uuid7::id_range(at..at + Duration::from_millis(10)),
        Some(window.clone())
    );
    assert_eq!(Uuid7::id_range(t0..=t0 + 9), Some(window.clone()));
    // A start inside a millisecond stands for the whole millisecond; an end inside one too.
    let inside = at + Duration::from_micros(300);
    assert_eq!(
        Uuid7::id_range(inside..at + Duration::from_micros(9_500)),
        Some(window)
    );
    // Every ID of the window's milliseconds is inside it, the neighbours' are not.
    let ulids = Ulid::id_range(Rfc3339(t0)..Rfc3339(t0 + 2)).unwrap();
    assert!(ulids.contains(&Ulid::min_at(t0).unwrap()));
    assert!(ulids.contains(&Ulid::max_at(t0 + 1).unwrap()));
    assert!(!ulids.contains(&Ulid::max_at(t0 - 1).unwrap()));
    assert!(!ulids.contains(&Ulid::min_at(t0 + 2).unwrap()));
    // Clamped to 1970 and to the 48-bit time; wholly outside or empty is `None`.
    let before = UNIX_EPOCH - Duration::from_secs(1);
    assert_eq!(
        Uuid7::id_range(before..=UNIX_EPOCH).map(|r| *r.start()),
        Some(Uuid7::MIN)
    );
    assert_eq!(Uuid7::id_range(before..UNIX_EPOCH), None);
    assert_eq!(
        Ulid::id_range(Ulid::MAX_UNIX_MS..).map(|r| *r.end()),
        Some(Ulid::MAX)
    );
    assert_eq!(Ulid::id_range(Ulid::MAX_UNIX_MS + 1..), None);
    assert_eq!(Ulid::id_range(t0..t0), None);
    assert_eq!(Uuid7::id_range(t0 + 1..=t0), None);
}
