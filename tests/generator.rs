//! The generator under threads and under a manual clock.

mod common;

use std::time::Duration;

use snowmint::{ClockBehind, Error, Generator, Id, Layout, clock::ManualClock};

use common::checks::{assert_near, assert_unique_and_increasing};
use common::clocks::{T0, on_manual_clock, wall_ms};
use common::threads::{blocked_until, on_threads};

/// 41 time bits, no node, 22 sequence bits: a layout whose sequence is never the bottleneck.
const HOT: Layout = Layout::builder("hot", 63)
    .time(41)
    .sequence(22)
    .epoch_ms(1_288_834_974_657)
    .build_const();

/// Mints `per_thread` IDs on each of `threads` threads from one shared generator, and checks
/// every ID: unique across all threads, strictly increasing within each thread.
fn stress<C: snowmint::Clock + Sync>(generator: &Generator<C>, threads: usize, per_thread: usize) {
    let minted: Vec<Vec<Id>> = on_threads(threads, |_| {
        (0..per_thread).map(|_| generator.mint().unwrap()).collect()
    });
    let seen = assert_unique_and_increasing(&minted);
    for id in &seen {
        generator.decode(**id).unwrap();
    }
    assert_eq!(seen.len(), threads * per_thread);
}

#[test]
fn threads_sharing_a_twitter_generator_get_unique_increasing_ids() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 378)
        .build()
        .unwrap();
    stress(&generator, 8, 25_000);
}

#[test]
fn threads_sharing_a_hot_layout_generator_get_unique_increasing_ids() {
    let generator = Generator::builder(HOT).build().unwrap();
    stress(&generator, 4, 100_000);
}

/// 16 IDs a tick under an 18-bit node field: threads racing single mints fill a tick in 16
/// mints, and race again at its end, where every further `try_mint` must fail.
const WIDE_NODE: Layout = Layout::builder("wide-node", 64)
    .unused(1)
    .time(41)
    .node("machine", 18)
    .sequence(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

#[test]
fn threads_racing_single_mints_fill_each_tick_exactly() {
    let builder = Generator::builder(WIDE_NODE).node("machine", 5);
    let (generator, clock) = on_manual_clock(builder, T0);
    for round in 0..300 {
        let minted: Vec<Vec<Id>> = on_threads(4, |_| {
            let mut ids = Vec::new();
            loop {
                match generator.try_mint() {
                    Ok(id) => ids.push(id),
                    Err(Error::SequenceExhausted { .. }) => return ids,
                    Err(err) => panic!("{err}"),
                }
            }
        });
        assert_unique_and_increasing(&minted);
        let tick = T0 - WIDE_NODE.epoch_ms() + round;
        let mut minted: Vec<(u64, u64)> = minted
            .iter()
            .flatten()
            .map(|&id| {
                let parts = WIDE_NODE.decode(id).unwrap();
                assert_eq!(parts.node("machine"), Some(5), "{parts:?}");
                (parts.ticks(), parts.sequence())
            })
            .collect();
        minted.sort_unstable();
        let expected: Vec<(u64, u64)> = (0..16).map(|sequence| (tick, sequence)).collect();
        assert_eq!(minted, expected, "round {round}");
        assert_eq!(generator.snapshot().sequence, 15);
        clock.advance(1);
    }
}

#[test]
fn threads_overflowing_a_tiny_sequence_still_get_unique_ids() {
    // 4 IDs per millisecond: every thread waits for new ticks over and over.
    let tiny = Layout::builder("tiny", 64)
        .time(62)
        .sequence(2)
        .build()
        .unwrap();
    let generator = Generator::builder(tiny).build().unwrap();
    stress(&generator, 4, 500);
}

#[test]
fn default_clock_ids_carry_the_wall_time() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build()
        .unwrap();
    let before = wall_ms();
    let id = generator.mint().unwrap();
    let after = wall_ms();
    let ts = generator.decode(id).unwrap().unix_ms();
    // Anchoring and calibration error are milliseconds at most; allow 100.
    assert_near(ts, before, after, 100, "the ID's time");
}

/// A generator on `layout` (every node field 0) reading a manual clock at `unix_ms`.
fn manual(layout: Layout, unix_ms: u64) -> (Generator<ManualClock>, ManualClock) {
    on_manual_clock(Generator::builder(layout).default_nodes(), unix_ms)
}

/// `mint` on another thread, still waiting after `patience`; `unblock` moves the clock, and
/// what the mint then returned.
fn mint_blocked_until(
    generator: &Generator<ManualClock>,
    patience: Duration,
    unblock: impl FnOnce(),
) -> Result<Id, Error> {
    blocked_until(patience, || generator.mint(), unblock)
}

#[test]
fn sequence_runs_in_order_then_restarts_at_zero_on_the_next_tick() {
    let (generator, clock) = manual(Layout::TWITTER, T0);
    for expected in 0..4096 {
        let parts = Layout::TWITTER.decode(generator.mint().unwrap()).unwrap();
        assert_eq!((parts.unix_ms(), parts.sequence()), (T0, expected));
    }
    clock.advance(3);
    let parts = Layout::TWITTER.decode(generator.mint().unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + 3, 0));
}

#[test]
fn the_4097th_twitter_id_in_one_millisecond_waits_for_the_next_millisecond() {
    let (generator, clock) = manual(Layout::TWITTER, T0);
    let first: Vec<Id> = (0..4096).map(|_| generator.mint().unwrap()).collect();
    // The clock has not moved: the 4097th mint must wait until it does.
    let id = mint_blocked_until(&generator, Duration::from_millis(200), || clock.advance(1));
    let parts = Layout::TWITTER.decode(id.unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + 1, 0));
    assert!(parts.id() > *first.last().unwrap());
}

#[test]
fn the_4097th_try_mint_in_one_millisecond_says_how_long_to_wait() {
    let (generator, clock) = manual(Layout::TWITTER, T0);
    for _ in 0..4096 {
        generator.try_mint().unwrap();
    }
    let err = generator.try_mint().unwrap_err();
    assert_eq!(
        err,
        Error::SequenceExhausted {
            layout: "twitter",
            tick: T0 - Layout::TWITTER.epoch_ms(),
            retry_after: Duration::from_millis(1),
        }
    );
    assert!(err.to_string().contains("room again in at most 1ms"));
    clock.advance(1);
    assert_eq!(
        generator
            .decode(generator.try_mint().unwrap())
            .unwrap()
            .sequence(),
        0
    );
}

#[test]
fn sonyflake_ticks_are_10_ms_and_hold_256_ids() {
    let (generator, clock) = manual(Layout::SONYFLAKE, 1_700_000_000_005);
    for _ in 0..256 {
        let parts = generator.decode(generator.try_mint().unwrap()).unwrap();
        assert_eq!(parts.unix_ms(), 1_700_000_000_000);
    }
    assert_eq!(
        generator.try_mint().unwrap_err(),
        Error::SequenceExhausted {
            layout: "sonyflake",
            tick: (1_700_000_000_000 - Layout::SONYFLAKE.epoch_ms()) / 10,
            retry_after: Duration::from_millis(10),
        }
    );
    clock.advance(5);
    assert_eq!(
        generator
            .decode(generator.try_mint().unwrap())
            .unwrap()
            .sequence(),
        0
    );
}

#[test]
fn clock_behind_with_the_error_policy_fails_and_says_how_far() {
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::Error);
    let (generator, clock) = on_manual_clock(builder, T0);
    let before = generator.mint().unwrap();
    clock.set(T0 - 250);
    let err = generator.mint().unwrap_err();
    assert_eq!(
        err,
        Error::ClockBehind {
            layout: "twitter",
            behind_ms: 250,
            max_wait_ms: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "clock reads 250 ms behind the earliest time the generator of layout twitter can \
         mint at; it waits at most 0 ms for the clock to catch up"
    );
    clock.set(T0);
    assert!(
        generator.mint().unwrap() > before,
        "same tick again: the next sequence"
    );
}

#[test]
fn clock_behind_more_than_the_wait_bound_fails_at_once() {
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::Wait { max_ms: 5 });
    let (generator, clock) = on_manual_clock(builder, T0);
    generator.mint().unwrap();
    clock.set(T0 - 6);
    assert!(matches!(
        generator.mint(),
        Err(Error::ClockBehind {
            behind_ms: 6,
            max_wait_ms: 5,
            ..
        })
    ));
}

#[test]
fn clock_behind_within_the_wait_bound_waits_until_the_clock_catches_up() {
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::Wait { max_ms: 5_000 });
    let (generator, clock) = on_manual_clock(builder, T0);
    let before = generator.mint().unwrap();
    clock.set(T0 - 3);
    let id = mint_blocked_until(&generator, Duration::from_millis(200), || clock.set(T0 + 1));
    let id = id.unwrap();
    assert!(id > before);
    assert_eq!(generator.decode(id).unwrap().unix_ms(), T0 + 1);
}

#[test]
fn a_clock_that_stays_behind_ends_the_wait_after_its_bound() {
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::Wait { max_ms: 50 });
    let (generator, clock) = on_manual_clock(builder, T0);
    generator.mint().unwrap();
    clock.set(T0 - 3);
    let started = std::time::Instant::now();
    assert_eq!(
        generator.mint().unwrap_err(),
        Error::ClockBehind {
            layout: "twitter",
            behind_ms: 3,
            max_wait_ms: 50
        }
    );
    assert!(
        started.elapsed() >= Duration::from_millis(50),
        "did not wait"
    );
}

#[test]
fn how_far_behind_is_measured_in_milliseconds_not_ticks() {
    // Sonyflake ticks are 10 ms: a 1 ms step back from the start of a tick is 1 ms behind.
    let tick_start = Layout::SONYFLAKE.epoch_ms() + 10 * 1_000_000;
    let builder = Generator::builder(Layout::SONYFLAKE)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::Error);
    let (generator, clock) = on_manual_clock(builder, tick_start);
    generator.mint().unwrap();
    clock.set(tick_start - 1);
    assert!(matches!(
        generator.mint(),
        Err(Error::ClockBehind { behind_ms: 1, .. })
    ));
}

#[test]
fn a_clock_past_the_layouts_end_is_an_error_never_a_wrapped_id() {
    let layout = Layout::TWITTER;
    let (generator, clock) = manual(layout, layout.max_unix_ms());
    let last = generator.mint().unwrap();
    assert_eq!(generator.decode(last).unwrap().ticks(), layout.max_ticks());
    clock.advance(1);
    assert_eq!(
        generator.mint().unwrap_err(),
        Error::TimeOverflow {
            layout: "twitter",
            unix_ms: layout.max_unix_ms() + 1,
            max_unix_ms: layout.max_unix_ms(),
        }
    );
}

#[test]
fn a_full_last_tick_fails_at_once_instead_of_wrapping() {
    let layout = Layout::builder("small", 8)
        .time(6)
        .sequence(2)
        .epoch_ms(T0)
        .build()
        .unwrap();
    let (generator, _clock) = manual(layout, layout.max_unix_ms());
    for _ in 0..4 {
        generator.mint().unwrap();
    }
    let exhausted = Error::LayoutExhausted {
        layout: "small",
        last_ms: layout.max_unix_ms(),
    };
    // No later tick exists: neither call waits for one or promises room.
    assert_eq!(generator.mint().unwrap_err(), exhausted);
    assert_eq!(generator.try_mint().unwrap_err(), exhausted);
    assert_eq!(
        exhausted.to_string(),
        format!(
            "every id of layout small is taken: its last tick, starting at {} ms, is full \
             and no later tick exists",
            layout.max_unix_ms()
        )
    );
}

#[test]
fn a_clock_before_the_epoch_or_in_its_tick_is_an_error() {
    let layout = Layout::TWITTER;
    let (generator, clock) = manual(layout, layout.epoch_ms() - 1);
    assert!(matches!(generator.mint(), Err(Error::BeforeEpoch { .. })));
    clock.set(layout.epoch_ms());
    let err = generator.mint().unwrap_err();
    assert_eq!(
        err,
        Error::EpochTick {
            layout: "twitter",
            unix_ms: layout.epoch_ms(),
            first_ms: layout.epoch_ms() + 1
        }
    );
    clock.advance(1);
    assert_eq!(
        generator.decode(generator.mint().unwrap()).unwrap().ticks(),
        1
    );
}

#[test]
fn node_fields_are_validated_when_the_generator_is_built() {
    let err = Generator::builder(Layout::DISCORD)
        .node("worker", 32)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "worker id 32 is out of range for layout discord (0..=31)"
    );
    let err = Generator::builder(Layout::TWITTER)
        .node("worker", 1)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layout twitter has no node field \"worker\"; its node fields are: machine"
    );
    let err = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .node("machine", 2)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "node field machine of layout twitter is given twice, expected once"
    );
    let err = Generator::builder(Layout::MASTODON)
        .node("machine", 0)
        .build()
        .unwrap_err();
    assert!(err.to_string().ends_with("its node fields are: none"));
    let generator = Generator::builder(Layout::DISCORD)
        .node("worker", 31)
        .node("process", 31)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    let parts = generator.decode(generator.mint().unwrap()).unwrap();
    assert_eq!(
        parts.nodes().collect::<Vec<_>>(),
        [("worker", 31), ("process", 31)]
    );
}

/// Regression: a generator built without one of its layout's node fields minted as node 0, so
/// two processes that both forgot it minted the same IDs. Every node field must be set; 0 is
/// a value like any other, given explicitly.
#[test]
fn a_node_field_left_unset_is_an_error_not_node_zero() {
    let err = Generator::builder(Layout::DISCORD)
        .node("worker", 1)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        Error::NodeNotSet {
            layout: "discord",
            fields: vec![("process", 31)],
        }
    );
    assert_eq!(
        err.to_string(),
        "layout discord needs node field process (0..=31) set; expected a value for each (a node \
         field has no default: processes that all left it unset would share one node id)"
    );
    // Every field left unset is named.
    let err = Generator::builder(Layout::DISCORD).build().unwrap_err();
    assert!(
        matches!(&err, Error::NodeNotSet { fields, .. } if *fields == [("worker", 31), ("process", 31)]),
        "{err:?}"
    );
    for build in [
        Generator::builder(Layout::TWITTER).build().map(drop),
        Generator::builder(Layout::TWITTER).build_local().map(drop),
        Generator::builder(Layout::TWITTER)
            .build_sharded(snowmint::shard::Shards::SplitSequence(2))
            .map(drop),
    ] {
        assert!(
            matches!(&build, Err(Error::NodeNotSet { fields, .. }) if *fields == [("machine", 1023)]),
            "{build:?}"
        );
    }
    // Set explicitly, 0 is fine; a layout without node fields needs none.
    let generator = Generator::builder(Layout::DISCORD)
        .node("worker", 1)
        .node("process", 0)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    let parts = generator.decode(generator.mint().unwrap()).unwrap();
    assert_eq!(parts.node("process"), Some(0));
    Generator::builder(Layout::MASTODON).build().unwrap();
    // Accepting 0 for the rest is explicit.
    let generator = Generator::builder(Layout::DISCORD)
        .node("worker", 1)
        .default_nodes()
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    let parts = generator.decode(generator.mint().unwrap()).unwrap();
    assert_eq!(
        (parts.node("worker"), parts.node("process")),
        (Some(1), Some(0))
    );
}

/// The errors a caller can wait out say so, and say how long when they know.
#[test]
fn retryable_errors_say_how_long_to_wait() {
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .on_clock_behind(ClockBehind::Error);
    let (generator, clock) = on_manual_clock(builder, T0);
    generator.mint().unwrap();
    clock.set(T0 - 250);
    let behind = generator.mint().unwrap_err();
    assert!(behind.is_retryable(), "{behind:?}");
    assert_eq!(behind.retry_after(), Some(Duration::from_millis(250)));

    clock.set(T0);
    let full = loop {
        if let Err(err) = generator.try_mint() {
            break err;
        }
    };
    assert!(full.is_retryable(), "{full:?}");
    assert!(full.retry_after().unwrap() <= Duration::from_millis(1));

    let config = Generator::builder(Layout::TWITTER).build().unwrap_err();
    assert!(!config.is_retryable());
    assert_eq!(config.retry_after(), None);
    let bad_input = Layout::TWITTER.parse("not an id").unwrap_err();
    assert!(!bad_input.is_retryable());
}
