//! Bursts: batches reserved with one compare-and-swap, and full ticks answered by borrowing
//! ahead of the clock.

mod common;

use std::collections::HashSet;
use std::thread;
use std::time::Duration;

use snowmint::{Clock, ClockBehind, Error, Generator, Id, Layout, clock::ManualClock};

use common::checks::{assert_increasing, assert_unique_and_increasing};
use common::clocks::{T0, T0_TICK, on_manual_clock};
use common::threads::{blocked_until, on_threads};

const TWITTER: Layout = Layout::TWITTER;
/// The IDs a twitter tick holds.
const TICK: usize = 4096;
/// An ID no generator here mints, to see which slots a batch wrote.
const SENTINEL: Id = Id::from_u64(u64::MAX);

/// A twitter generator for machine 378 on a manual clock at `T0`, borrowing `borrow` ticks.
fn manual(policy: ClockBehind, borrow: u64) -> (Generator<ManualClock>, ManualClock) {
    let builder = Generator::builder(TWITTER)
        .node("machine", 378)
        .on_clock_behind(policy)
        .borrow_ahead(borrow);
    on_manual_clock(builder, T0)
}

/// The time (Unix ms) and sequence of a twitter ID.
fn time_and_sequence(id: Id) -> (u64, u64) {
    let parts = TWITTER.decode(id).unwrap();
    (parts.unix_ms(), parts.sequence())
}

/// The error of a full twitter tick `tick`, with room again in `retry_after_ms`.
fn exhausted(tick: u64, retry_after_ms: u64) -> Error {
    Error::SequenceExhausted {
        layout: "twitter",
        tick,
        retry_after: Duration::from_millis(retry_after_ms),
    }
}

/// Mints `n` IDs with `try_mint_batch`: a tick (borrowed or not) that should have room but
/// is full fails the test rather than waiting for a clock that never moves.
fn fill(generator: &Generator<ManualClock>, n: usize) {
    let mut buffer = vec![SENTINEL; n];
    let mut filled = 0;
    while filled < n {
        filled += generator.try_mint_batch(&mut buffer[filled..]).unwrap();
    }
}

// Batches.

#[test]
fn mint_batch_writes_the_whole_buffer_or_what_the_tick_has_left() {
    let (generator, _clock) = manual(ClockBehind::default(), 0);
    let mut buffer = [SENTINEL; 5000];
    assert_eq!(generator.mint_batch(&mut buffer[..1]).unwrap(), 1);
    assert_eq!(generator.mint_batch(&mut buffer[..100]).unwrap(), 100);
    // 4096 asked, 3995 left in the tick.
    assert_eq!(generator.mint_batch(&mut buffer[..4096]).unwrap(), 3995);
    assert_eq!(buffer[3995], SENTINEL);

    // A fresh tick holds 4096, whatever the buffer's size.
    let (generator, _clock) = manual(ClockBehind::default(), 0);
    let mut buffer = [SENTINEL; 5000];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), TICK);
    assert!(buffer[TICK..].iter().all(|&id| id == SENTINEL));
}

#[test]
fn mint_batch_on_the_real_clock_writes_between_one_and_the_buffer_length() {
    let generator = Generator::builder(TWITTER)
        .node("machine", 0)
        .build()
        .unwrap();
    let mut buffer = [SENTINEL; 1000];
    for len in (1..=1000).step_by(7) {
        let written = generator.mint_batch(&mut buffer[..len]).unwrap();
        assert!((1..=len).contains(&written), "{written} of {len}");
    }
}

#[test]
fn a_batch_is_a_run_of_consecutive_sequences_on_one_tick() {
    let (generator, _clock) = manual(ClockBehind::default(), 0);
    for _ in 0..7 {
        generator.mint().unwrap();
    }
    let mut buffer = [SENTINEL; 50];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 50);
    let expected: Vec<(u64, u64)> = (7..57).map(|sequence| (T0, sequence)).collect();
    let got: Vec<(u64, u64)> = buffer.iter().map(|&id| time_and_sequence(id)).collect();
    assert_eq!(got, expected);
    // The next single mint follows the run.
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0, 57));

    // On the real clock too, every batch is one tick's consecutive sequences.
    let generator = Generator::builder(TWITTER)
        .node("machine", 0)
        .build()
        .unwrap();
    let mut buffer = [SENTINEL; 300];
    for _ in 0..200 {
        let written = generator.mint_batch(&mut buffer).unwrap();
        let (time, first) = time_and_sequence(buffer[0]);
        for (i, &id) in buffer[..written].iter().enumerate() {
            assert_eq!(time_and_sequence(id), (time, first + i as u64));
        }
    }
}

#[test]
fn mint_many_spans_ticks_with_exactly_n_increasing_unique_ids() {
    let generator = Generator::builder(TWITTER)
        .node("machine", 9)
        .build()
        .unwrap();
    // Five ticks' worth at least.
    let ids = generator.mint_many(5 * TICK).unwrap();
    assert_eq!(ids.len(), 5 * TICK);
    assert_increasing(&ids);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 5 * TICK);
    let ticks: HashSet<u64> = ids.iter().map(|&id| time_and_sequence(id).0).collect();
    assert!(ticks.len() >= 5, "{} ticks", ticks.len());

    // With 100 values a tick, 1,000 IDs need at least ten ticks.
    let ranged = Generator::builder(TWITTER)
        .node("machine", 0)
        .sequence_range(200..=299)
        .build()
        .unwrap();
    let ids = ranged.mint_many(1000).unwrap();
    assert_eq!(ids.len(), 1000);
    assert_increasing(&ids);
    let ticks: HashSet<u64> = ids.iter().map(|&id| time_and_sequence(id).0).collect();
    assert!(ticks.len() >= 10, "{} ticks", ticks.len());
    assert!(
        ids.iter()
            .all(|&id| (200..=299).contains(&time_and_sequence(id).1))
    );

    assert!(generator.mint_many(0).unwrap().is_empty());
}

#[test]
fn an_empty_buffer_mints_nothing_and_returns_zero() {
    let (generator, _clock) = manual(ClockBehind::default(), 0);
    assert_eq!(generator.mint_batch(&mut []).unwrap(), 0);
    assert_eq!(generator.try_mint_batch(&mut []).unwrap(), 0);
    // Nothing was taken from the tick.
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0, 0));
    // Even at a full tick: 0 at once, neither a wait nor an error.
    for _ in 1..TICK {
        generator.try_mint().unwrap();
    }
    assert_eq!(generator.mint_batch(&mut []).unwrap(), 0);
    assert_eq!(generator.try_mint_batch(&mut []).unwrap(), 0);
    assert_eq!(generator.stats().overflows, 0);
}

#[test]
fn try_mint_batch_at_a_full_tick_errs_and_writes_nothing() {
    let (generator, _clock) = manual(ClockBehind::default(), 0);
    let mut buffer = [SENTINEL; TICK];
    assert_eq!(generator.try_mint_batch(&mut buffer).unwrap(), TICK);
    let mut buffer = [SENTINEL; 10];
    let err = generator.try_mint_batch(&mut buffer).unwrap_err();
    assert_eq!(err, exhausted(T0_TICK, 1));
    assert_eq!(buffer, [SENTINEL; 10]);
}

#[test]
fn a_batch_is_cut_at_the_end_of_the_tick() {
    let (generator, clock) = manual(ClockBehind::default(), 0);
    let mut buffer = [SENTINEL; 4090];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 4090);
    let mut buffer = [SENTINEL; 10];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 6);
    let sequences: Vec<u64> = buffer[..6]
        .iter()
        .map(|&id| time_and_sequence(id).1)
        .collect();
    assert_eq!(sequences, [4090, 4091, 4092, 4093, 4094, 4095]);
    assert_eq!(buffer[6..], [SENTINEL; 4]);
    // The rest comes from the next tick, from sequence 0.
    clock.advance(1);
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 10);
    assert_eq!(time_and_sequence(buffer[0]), (T0 + 1, 0));
    assert_eq!(time_and_sequence(buffer[9]), (T0 + 1, 9));
}

#[test]
fn mint_batch_at_a_full_tick_waits_for_the_next_one() {
    let (generator, clock) = manual(ClockBehind::default(), 0);
    fill(&generator, TICK);
    // On a full tick, mint_batch waits for the clock to move.
    let batch = || {
        let mut buffer = [SENTINEL; 10];
        let written = generator.mint_batch(&mut buffer);
        written.map(|n| buffer[..n].to_vec())
    };
    let ids = blocked_until(Duration::from_millis(100), batch, || clock.advance(1)).unwrap();
    assert_eq!(ids.len(), 10);
    assert_eq!(time_and_sequence(ids[0]), (T0 + 1, 0));
    assert_eq!(generator.stats().waits, 1);
}

#[test]
fn every_batched_id_carries_the_node_bits() {
    // Discord: the node fields above the sequence.
    let clock = ManualClock::new(T0);
    let discord = Generator::builder(Layout::DISCORD)
        .node("worker", 21)
        .node("process", 10)
        .clock(&clock)
        .build()
        .unwrap();
    // Sonyflake: the machine field below the sequence, 256 IDs per 10 ms tick.
    let sonyflake = Generator::builder(Layout::SONYFLAKE)
        .node("machine", 0xBEEF)
        .clock(&clock)
        .build()
        .unwrap();
    let mut buffer = [SENTINEL; 300];
    for _ in 0..30 {
        let written = discord.mint_batch(&mut buffer).unwrap();
        for &id in &buffer[..written] {
            assert_eq!(id.to_u64() & discord.node_bits(), discord.node_bits());
            let parts = discord.decode(id).unwrap();
            assert_eq!(
                (parts.node("worker"), parts.node("process")),
                (Some(21), Some(10))
            );
            assert_eq!(parts.unix_ms(), clock.unix_ms());
        }
        // A fresh 10 ms tick each round: its whole 256 values.
        assert_eq!(sonyflake.mint_batch(&mut buffer).unwrap(), 256);
        for &id in &buffer[..256] {
            assert_eq!(id.to_u64() & 0xFFFF, 0xBEEF);
            let parts = sonyflake.decode(id).unwrap();
            assert_eq!(parts.node("machine"), Some(0xBEEF));
            assert_eq!(parts.unix_ms(), clock.unix_ms());
        }
        clock.advance(10);
    }
}

#[test]
fn batches_and_single_mints_interleaved_from_four_threads_are_unique() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 50_000;
    let generator = Generator::builder(TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let minted: Vec<Vec<Id>> = on_threads(THREADS, |t| {
        let mut ids = Vec::with_capacity(PER_THREAD);
        let mut buffer = [SENTINEL; 97];
        let mut round = t;
        while ids.len() < PER_THREAD {
            round += 1;
            if round % 3 == 0 {
                ids.push(generator.mint().unwrap());
            } else {
                let want = (round % 97 + 1).min(PER_THREAD - ids.len());
                let written = generator.mint_batch(&mut buffer[..want]).unwrap();
                ids.extend_from_slice(&buffer[..written]);
            }
        }
        ids
    });
    for ids in &minted {
        assert_eq!(ids.len(), PER_THREAD);
    }
    let seen = assert_unique_and_increasing(&minted);
    assert_eq!(seen.len(), THREADS * PER_THREAD);
}

// Borrowing ahead of the clock.

#[test]
fn borrowing_is_off_by_default() {
    let clock = ManualClock::new(T0);
    let generator = Generator::builder(TWITTER)
        .node("machine", 0)
        .clock(&clock)
        .build()
        .unwrap();
    for _ in 0..TICK {
        generator.try_mint().unwrap();
    }
    assert_eq!(generator.try_mint(), Err(exhausted(T0_TICK, 1)));
    let mut buffer = [SENTINEL; 4];
    assert_eq!(
        generator.try_mint_batch(&mut buffer),
        Err(exhausted(T0_TICK, 1))
    );
    let stats = generator.stats();
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (0, 0), "{stats:?}");
}

#[test]
fn borrow_ahead_two_gives_exactly_three_ticks_then_exhausted_with_the_right_retry_after() {
    let (generator, clock) = manual(ClockBehind::default(), 2);
    let minted = std::iter::from_fn(|| generator.try_mint().ok()).count();
    assert_eq!(minted, 3 * TICK);
    // Two ticks ahead of the clock: the next one is one tick away.
    assert_eq!(generator.try_mint(), Err(exhausted(T0_TICK + 2, 1)));
    // One tick later the clock allows one more tick's worth, and no more.
    clock.advance(1);
    let minted = std::iter::from_fn(|| generator.try_mint().ok()).count();
    assert_eq!(minted, TICK);
    assert_eq!(generator.try_mint(), Err(exhausted(T0_TICK + 3, 1)));
}

#[test]
fn retry_after_counts_the_layout_ticks_when_borrowing() {
    // Sonyflake: 256 IDs per 10 ms tick.
    let clock = ManualClock::new(T0 + 3);
    let generator = Generator::builder(Layout::SONYFLAKE)
        .node("machine", 0)
        .clock(&clock)
        .borrow_ahead(1)
        .build()
        .unwrap();
    let ids: Vec<Id> = std::iter::from_fn(|| generator.try_mint().ok()).collect();
    assert_eq!(ids.len(), 2 * 256);
    let last = Layout::SONYFLAKE.decode(ids[2 * 256 - 1]).unwrap();
    assert_eq!(last.unix_ms(), T0 + 10);
    assert!(matches!(
        generator.try_mint(),
        Err(Error::SequenceExhausted { layout: "sonyflake", retry_after, .. })
            if retry_after == Duration::from_millis(10)
    ));
}

#[test]
fn ids_across_borrowed_ticks_increase_and_are_unique() {
    let (generator, _clock) = manual(ClockBehind::default(), 2);
    let mut ids = Vec::new();
    let mut buffer = [SENTINEL; 333];
    loop {
        match generator.try_mint_batch(&mut buffer) {
            Ok(written) => ids.extend_from_slice(&buffer[..written]),
            Err(Error::SequenceExhausted { .. }) => break,
            Err(err) => panic!("{err}"),
        }
        match generator.try_mint() {
            Ok(id) => ids.push(id),
            Err(Error::SequenceExhausted { .. }) => break,
            Err(err) => panic!("{err}"),
        }
    }
    assert_eq!(ids.len(), 3 * TICK);
    assert_increasing(&ids);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3 * TICK);
    // A tick's worth at the clock's time and at each of the two borrowed ticks.
    for (tick, chunk) in ids.chunks(TICK).enumerate() {
        let expected: Vec<(u64, u64)> = (0..TICK as u64).map(|s| (T0 + tick as u64, s)).collect();
        let got: Vec<(u64, u64)> = chunk.iter().map(|&id| time_and_sequence(id)).collect();
        assert!(
            got == expected,
            "tick {tick} is not one tick's sequences in order"
        );
    }
}

#[test]
fn stats_count_borrows_and_the_furthest_lead() {
    let (generator, clock) = manual(ClockBehind::default(), 2);
    while generator.try_mint().is_ok() {}
    let stats = generator.stats();
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (2, 2), "{stats:?}");
    // Two full ticks borrowed past, and the third found full.
    assert_eq!(stats.overflows, 3, "{stats:?}");
    assert_eq!((stats.regressions, stats.waits), (0, 0), "{stats:?}");
    // The clock moves on a tick: one more borrow, still two ahead at most.
    clock.advance(1);
    while generator.try_mint().is_ok() {}
    let stats = generator.stats();
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (3, 2), "{stats:?}");

    // A generator that borrows less than its bound reports its own lead.
    let (generator, _clock) = manual(ClockBehind::default(), 5);
    fill(&generator, TICK + 1);
    let stats = generator.stats();
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (1, 1), "{stats:?}");
}

#[test]
fn try_mint_batch_at_a_full_tick_borrows_the_next_one() {
    let (generator, _clock) = manual(ClockBehind::Error, 1);
    fill(&generator, TICK);
    let mut buffer = [SENTINEL; 10];
    assert_eq!(generator.try_mint_batch(&mut buffer).unwrap(), 10);
    assert_eq!(time_and_sequence(buffer[0]), (T0 + 1, 0));
    assert_eq!(time_and_sequence(buffer[9]), (T0 + 1, 9));
}

#[test]
fn mint_waits_when_the_borrow_bound_is_reached() {
    let (generator, clock) = manual(ClockBehind::default(), 1);
    fill(&generator, 2 * TICK);
    // The mint waits rather than run more than one tick ahead of the clock.
    let id = blocked_until(
        Duration::from_millis(100),
        || generator.mint(),
        || clock.advance(1),
    )
    .unwrap();
    // The clock reads T0 + 1 and the generator is one tick ahead of it again.
    assert_eq!(time_and_sequence(id), (T0 + 2, 0));
    let stats = generator.stats();
    assert_eq!((stats.waits, stats.max_ahead_ticks), (1, 1), "{stats:?}");
}

#[test]
fn once_the_clock_catches_up_minting_continues_on_the_borrowed_tick_without_a_regression() {
    // Under the Error policy: any regression would be an error.
    let (generator, clock) = manual(ClockBehind::Error, 2);
    // The clock stays at T0 while the generator runs two ticks ahead: no error.
    fill(&generator, 2 * TICK + 6);
    assert_eq!(
        time_and_sequence(generator.try_mint().unwrap()),
        (T0 + 2, 6)
    );
    clock.set(T0 + 1);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 2, 7));
    // A step back that stays inside the borrowed window is not a regression either.
    clock.set(T0);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 2, 8));
    clock.set(T0 + 2);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 2, 9));
    clock.set(T0 + 3);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 3, 0));
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.waits), (0, 0), "{stats:?}");
}

#[test]
fn a_regression_beyond_the_borrow_window_applies_the_error_policy() {
    let (generator, clock) = manual(ClockBehind::Error, 2);
    fill(&generator, 2 * TICK + 1);
    // The state is at T0 + 2; T0 - 1 is three ticks behind, one more than borrowed.
    clock.set(T0 - 1);
    assert!(matches!(
        generator.mint(),
        Err(Error::ClockBehind {
            layout: "twitter",
            max_wait_ms: 0,
            ..
        })
    ));
    assert!(matches!(
        generator.try_mint_batch(&mut [SENTINEL; 3]),
        Err(Error::ClockBehind { max_wait_ms: 0, .. })
    ));
    assert_eq!(generator.stats().regressions, 2);
    // Back inside the window: minting continues where it stopped.
    clock.set(T0);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 2, 1));
}

#[test]
fn a_regression_beyond_the_borrow_window_reports_how_far_behind_the_window() {
    let (generator, clock) = manual(ClockBehind::Error, 2);
    fill(&generator, 2 * TICK + 1);
    clock.set(T0 - 1);
    let err = generator.mint().unwrap_err();
    // The last minted time is T0 + 2, two ticks borrowed: minting resumes at T0, 1 ms after
    // the clock's T0 - 1.
    assert_eq!(
        err.to_string(),
        "clock reads 1 ms behind the earliest time the generator of layout twitter can mint \
         at; it waits at most 0 ms for the clock to catch up"
    );
    assert_eq!(err.retry_after(), Some(Duration::from_millis(1)));
    // A full tick: minting resumes at the tick after it, less the window.
    clock.set(T0);
    fill(&generator, TICK - 1);
    clock.set(T0 - 1);
    let err = generator.mint().unwrap_err();
    assert_eq!(err.retry_after(), Some(Duration::from_millis(2)));
    clock.advance(2);
    assert_eq!(time_and_sequence(generator.mint().unwrap()), (T0 + 3, 0));
}

#[test]
fn a_regression_just_past_a_wide_borrow_window_is_waited_for_under_a_shorter_bound() {
    // 1,001 ms behind the last minted tick, but 1 ms from the borrow window: within the
    // bound, which counts to the window.
    let (generator, clock) = manual(ClockBehind::Wait { max_ms: 1_000 }, 1_000);
    let before = generator.mint().unwrap();
    clock.set(T0 - 1_001);
    let id = blocked_until(
        Duration::from_millis(20),
        || generator.mint(),
        || clock.advance(1),
    )
    .unwrap();
    assert!(id > before);
    assert_eq!(time_and_sequence(id), (T0, 1));
}

#[test]
fn a_regression_beyond_the_borrow_window_under_wait_waits_for_the_window() {
    let (generator, clock) = manual(ClockBehind::Wait { max_ms: 5_000 }, 2);
    fill(&generator, 2 * TICK + 1);
    clock.set(T0 - 1);
    // The mint waits while the clock is behind the borrowed window; back at T0, the state's
    // tick is two ahead again, inside the window.
    let id = blocked_until(
        Duration::from_millis(100),
        || generator.mint(),
        || clock.set(T0),
    )
    .unwrap();
    assert_eq!(time_and_sequence(id), (T0 + 2, 1));
    let stats = generator.stats();
    assert_eq!((stats.regressions, stats.waits), (1, 1), "{stats:?}");
}

#[test]
fn threads_borrowing_on_a_stopped_clock_share_exactly_the_borrowed_ticks() {
    const THREADS: usize = 4;
    let (generator, _clock) = manual(ClockBehind::Error, 3);
    let minted: Vec<Vec<Id>> = on_threads(THREADS, |t| {
        let mut ids = Vec::new();
        let mut buffer = [SENTINEL; 16];
        loop {
            let result = if t % 2 == 0 {
                generator.try_mint().map(|id| {
                    buffer[0] = id;
                    1
                })
            } else {
                generator.try_mint_batch(&mut buffer)
            };
            match result {
                Ok(written) => ids.extend_from_slice(&buffer[..written]),
                Err(Error::SequenceExhausted { tick, .. }) => {
                    assert_eq!(tick, T0_TICK + 3);
                    return ids;
                }
                Err(err) => panic!("{err}"),
            }
        }
    });
    let seen = assert_unique_and_increasing(&minted);
    for &id in &seen {
        let (time, _) = time_and_sequence(*id);
        assert!((T0..=T0 + 3).contains(&time), "{time} outside the window");
    }
    // The clock's tick and the three borrowed ones, each full, and nothing else.
    assert_eq!(seen.len(), 4 * TICK);
    let stats = generator.stats();
    assert_eq!(stats.max_ahead_ticks, 3, "{stats:?}");
    assert_eq!(stats.regressions, 0, "{stats:?}");
}

/// A clock at `T0` whose first precise reading on each of two threads waits for the other's:
/// both threads then find the same tick full before either borrows the next.
struct TwoAtTheFullTick {
    barrier: std::sync::Barrier,
    met: std::sync::Mutex<std::collections::HashSet<thread::ThreadId>>,
}

impl Clock for TwoAtTheFullTick {
    fn unix_ms(&self) -> u64 {
        T0
    }

    fn unix_ms_precise(&self) -> u64 {
        let first = self.met.lock().unwrap().insert(thread::current().id());
        if first {
            self.barrier.wait();
        }
        T0
    }
}

/// Regression: `Stats::borrows` counted one borrowed tick twice when two threads found the
/// same tick full. Both threads here read the full tick precisely, meet, and borrow the next
/// tick: it is one borrowed tick, counted once.
#[test]
fn two_threads_borrowing_the_same_tick_count_one_borrow() {
    let clock = TwoAtTheFullTick {
        barrier: std::sync::Barrier::new(2),
        met: Default::default(),
    };
    let generator = Generator::builder(TWITTER)
        .node("machine", 1)
        .clock(&clock)
        .borrow_ahead(4)
        .build()
        .unwrap();
    for _ in 0..TICK {
        generator.try_mint().unwrap();
    }
    let ids: Vec<Id> = on_threads(2, |_| generator.try_mint().unwrap());
    assert_ne!(ids[0], ids[1]);
    for id in &ids {
        assert_eq!(time_and_sequence(*id).0, T0 + 1, "borrowed the next tick");
    }
    let stats = generator.stats();
    assert_eq!(stats.borrows, 1, "{stats:?}");
    assert_eq!(stats.max_ahead_ticks, 1, "{stats:?}");
}
