//! Fault injection: a scripted clock steps back and forward under every regression policy,
//! across threads and restarts. Every minted ID is checked: never a duplicate, and per policy
//! strictly increasing, an error returned, or the tick-tock bit toggled.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

mod common;

use snowmint::{ClockBehind, Error, Generator, Id, Layout, Parts, clock::ManualClock};

use common::clocks::{T0, on_manual_clock};
use common::layouts::TT;
use common::threads::blocked_until;

const SECOND: u64 = 1_000;
const HOUR: u64 = 3_600 * SECOND;
const DAY: u64 = 24 * HOUR;

/// A generator on `layout` reading a scripted (manual) clock at `T0`, and the script's handle.
fn scripted(layout: Layout, policy: ClockBehind) -> (Generator<ManualClock>, ManualClock) {
    let builder = Generator::builder(layout)
        .node("machine", 7)
        .on_clock_behind(policy);
    on_manual_clock(builder, T0)
}

/// Everything a test minted, checked as it arrives.
#[derive(Default)]
struct Ledger {
    seen: HashSet<Id>,
    /// The last ID per timeline (index 0 or 1).
    last: [Option<Id>; 2],
}

impl Ledger {
    /// Records `id`: it must be new, and above the last ID of its timeline.
    fn record(&mut self, parts: Parts<'_>) {
        let id = parts.id();
        assert!(self.seen.insert(id), "duplicate id {id}: {parts:?}");
        let timeline = parts.timeline().unwrap_or(0) as usize;
        if let Some(last) = self.last[timeline] {
            assert!(
                id > last,
                "{parts:?} is not above {last:?} on timeline {timeline}"
            );
        }
        self.last[timeline] = Some(id);
    }

    /// Records `n` mints that must succeed at `unix_ms` on `timeline`.
    fn mint_at(
        &mut self,
        generator: &Generator<ManualClock>,
        n: usize,
        unix_ms: u64,
        timeline: u64,
    ) {
        for _ in 0..n {
            let id = generator.mint().unwrap();
            let parts = generator.decode(id).unwrap();
            assert_eq!(parts.unix_ms(), unix_ms, "{parts:?}");
            assert_eq!(parts.timeline().unwrap_or(0), timeline, "{parts:?}");
            self.record(parts);
        }
    }
}

fn behind(result: Result<Id, Error>) -> u64 {
    match result {
        Err(Error::ClockBehind { behind_ms, .. }) => behind_ms,
        other => panic!("expected ClockBehind, got {other:?}"),
    }
}

#[test]
fn back_one_tick_one_second_and_one_hour_under_the_error_policy() {
    for step in [1, SECOND, HOUR] {
        let (generator, clock) = scripted(Layout::TWITTER, ClockBehind::Error);
        let mut ledger = Ledger::default();
        ledger.mint_at(&generator, 10, T0, 0);
        clock.set(T0 - step);
        assert_eq!(behind(generator.mint()), step);
        assert_eq!(behind(generator.try_mint()), step);
        // Back at the last tick: the sequence continues; nothing repeated.
        clock.set(T0);
        ledger.mint_at(&generator, 10, T0, 0);
        assert_eq!(generator.stats().regressions, 2);
        assert_eq!(generator.stats().toggles, 0);
    }
}

#[test]
fn back_steps_beyond_the_wait_bound_fail_at_once_and_within_it_wait() {
    for step in [SECOND, HOUR] {
        let (generator, clock) = scripted(Layout::TWITTER, ClockBehind::Wait { max_ms: 500 });
        generator.mint().unwrap();
        clock.set(T0 - step);
        assert_eq!(behind(generator.mint()), step, "{step} ms is more than 500");
    }
    // One tick back is within the bound: the mint waits until the clock catches up.
    let (generator, clock) = scripted(Layout::TWITTER, ClockBehind::Wait { max_ms: 5_000 });
    let mut ledger = Ledger::default();
    ledger.mint_at(&generator, 3, T0, 0);
    clock.set(T0 - 1);
    let id = blocked_until(
        Duration::from_millis(100),
        || generator.mint(),
        || clock.set(T0 + 1),
    )
    .unwrap();
    ledger.record(generator.decode(id).unwrap());
    assert_eq!(generator.stats().waits, 1);
}

#[test]
fn tick_tock_keeps_minting_at_the_regressed_time_on_the_other_timeline() {
    for step in [1, SECOND, HOUR] {
        let (generator, clock) = scripted(TT, ClockBehind::TickTock { max_ms: 0 });
        let mut ledger = Ledger::default();
        ledger.mint_at(&generator, 100, T0, 0);
        clock.set(T0 - step);
        ledger.mint_at(&generator, 100, T0 - step, 1);
        // The clock moves on; the generator stays on timeline 1.
        clock.set(T0 + 5);
        ledger.mint_at(&generator, 10, T0 + 5, 1);
        let stats = generator.stats();
        assert_eq!((stats.regressions, stats.toggles), (1, 1), "{stats:?}");
    }
}

/// A shared generator confirms no reading on a layout with a tick-tock bit: a toggle
/// installs a state below the confirmed tick's last, so the reading confirmed before it, read
/// again, would step the other timeline's older tick on (and on past its sequence, into the
/// node field) instead of minting at that reading.
#[test]
fn a_reading_confirmed_before_a_toggle_read_again_mints_at_that_reading() {
    let (generator, clock) = scripted(TT4, ClockBehind::TickTock { max_ms: 0 });
    let mut ledger = Ledger::default();
    // The second mint is on the reading the first confirmed.
    ledger.mint_at(&generator, 2, T0, 0);
    clock.set(T0 - 50);
    ledger.mint_at(&generator, 1, T0 - 50, 1);
    clock.set(T0);
    // A whole tick of the 2-bit sequence at the reading, on timeline 1.
    ledger.mint_at(&generator, 4, T0, 1);
    assert_eq!(generator.stats().toggles, 1);
}

#[test]
fn a_forward_jump_of_a_day_mints_at_the_new_time_from_sequence_zero() {
    for policy in [ClockBehind::Error, ClockBehind::TickTock { max_ms: 0 }] {
        let (generator, clock) = scripted(TT, policy);
        let mut ledger = Ledger::default();
        ledger.mint_at(&generator, 5, T0, 0);
        clock.set(T0 + DAY);
        let parts = generator.decode(generator.mint().unwrap()).unwrap();
        assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + DAY, 0));
        ledger.record(parts);
        assert_eq!(generator.stats().regressions, 0);
    }
}

#[test]
fn a_second_regression_into_the_toggled_range_waits_or_fails_never_repeats() {
    let (generator, clock) = scripted(TT, ClockBehind::TickTock { max_ms: 0 });
    let mut ledger = Ledger::default();
    ledger.mint_at(&generator, 5, T0, 0); // timeline 0 reaches T0
    clock.set(T0 - SECOND);
    ledger.mint_at(&generator, 5, T0 - SECOND, 1); // toggle
    clock.set(T0 - SECOND + 300);
    ledger.mint_at(&generator, 5, T0 - SECOND + 300, 1);
    // Back again, into time timeline 0 has used (it reached T0): no toggle back; max_ms 0
    // fails at once.
    clock.set(T0 - SECOND + 100);
    assert_eq!(behind(generator.mint()), 200);
    // Back further than timeline 0 ever went is no better: timeline 0 is used up to T0.
    clock.set(T0 - 2 * SECOND);
    assert_eq!(behind(generator.mint()), SECOND + 300);
    // Past timeline 0's mark, a regression may toggle back to it.
    clock.set(T0 + 50);
    ledger.mint_at(&generator, 5, T0 + 50, 1);
    clock.set(T0 + 10);
    ledger.mint_at(&generator, 5, T0 + 10, 0);
    assert_eq!(generator.stats().toggles, 2);

    // With a wait bound, the second regression waits on timeline 1 until the clock catches up.
    let (generator, clock) = scripted(TT, ClockBehind::TickTock { max_ms: 5_000 });
    let mut ledger = Ledger::default();
    ledger.mint_at(&generator, 5, T0, 0);
    clock.set(T0 - SECOND);
    ledger.mint_at(&generator, 5, T0 - SECOND, 1);
    clock.set(T0 - SECOND - 2);
    let id = blocked_until(
        Duration::from_millis(100),
        || generator.mint(),
        || clock.set(T0 - SECOND + 1),
    )
    .unwrap();
    let parts = generator.decode(id).unwrap();
    assert_eq!(parts.timeline(), Some(1));
    ledger.record(parts);
}

/// 4 threads mint while the script moves the clock forward tick by tick, steps it back an
/// hour and holds it there until `handled` says the generator's counters show the regression
/// handled (so a loaded machine cannot skip it), then moves on.
fn regression_under_threads(
    policy: ClockBehind,
    handled: fn(&snowmint::generator::Stats) -> bool,
) -> (HashSet<Id>, snowmint::generator::Stats) {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 20_000;
    let (generator, clock) = scripted(TT, policy);
    let done = AtomicBool::new(false);
    let minted: Vec<Vec<Id>> = thread::scope(|s| {
        let minters: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    let mut ids = Vec::with_capacity(PER_THREAD);
                    while ids.len() < PER_THREAD {
                        match generator.mint() {
                            Ok(id) => ids.push(id),
                            Err(Error::ClockBehind { .. }) => thread::yield_now(),
                            Err(other) => panic!("{other:?}"),
                        }
                    }
                    ids
                })
            })
            .collect();
        s.spawn(|| {
            // Forward a tick at a time; at step 3 an hour back, then forward again.
            let mut step = 0;
            while !done.load(Ordering::Relaxed) {
                step += 1;
                if step == 3 {
                    // A regression needs a state to be behind: wait until some thread minted
                    // at the last step (threads slow to start may have minted nothing yet,
                    // and a first mint at the set-back time is no regression).
                    while generator.snapshot().last_unix_ms() < T0 + step - 1
                        && !done.load(Ordering::Relaxed)
                    {
                        thread::sleep(Duration::from_micros(200));
                    }
                    clock.set(T0 + step - HOUR);
                    while !handled(&generator.stats()) && !done.load(Ordering::Relaxed) {
                        thread::sleep(Duration::from_micros(200));
                    }
                } else {
                    clock.set(T0 + step);
                }
                thread::sleep(Duration::from_micros(200));
            }
        });
        let minted = minters.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        minted
    });
    let mut all = HashSet::new();
    for ids in &minted {
        let mut last = [None; 2];
        for &id in ids {
            assert!(all.insert(id), "duplicate id {id}");
            let timeline = TT.decode(id).unwrap().timeline().unwrap() as usize;
            if let Some(previous) = last[timeline] {
                assert!(
                    id > previous,
                    "a thread's ids went down on timeline {timeline}"
                );
            }
            last[timeline] = Some(id);
        }
    }
    assert_eq!(all.len(), THREADS * PER_THREAD);
    (all, generator.stats())
}

#[test]
fn a_regression_while_four_threads_mint_toggles_once_and_repeats_nothing() {
    let (ids, stats) =
        regression_under_threads(ClockBehind::TickTock { max_ms: 0 }, |s| s.toggles > 0);
    // One toggle at the step back; the step forward again stays on timeline 1.
    assert!(stats.regressions >= 1 && stats.toggles == 1, "{stats:?}");
    let on_timeline_1: Vec<u64> = ids
        .iter()
        .map(|id| TT.decode(*id).unwrap())
        .filter(|parts| parts.timeline() == Some(1))
        .map(|parts| parts.unix_ms())
        .collect();
    assert!(!on_timeline_1.is_empty());
    // Timeline 1 starts at the step back and carries only readings taken after it: never a
    // time read before the toggle (T0 + 1, T0 + 2), which would use it up to the old time.
    for ms in on_timeline_1 {
        assert!(
            ms == T0 + 3 - HOUR || ms >= T0 + 4,
            "an ID on timeline 1 at {ms}, a time read before the toggle"
        );
    }
}

#[test]
fn a_regression_while_four_threads_mint_under_the_error_policy_repeats_nothing() {
    let (ids, stats) = regression_under_threads(ClockBehind::Error, |s| s.regressions > 0);
    assert!(stats.regressions >= 1 && stats.toggles == 0, "{stats:?}");
    assert!(
        ids.iter()
            .all(|id| TT.decode(*id).unwrap().timeline() == Some(0))
    );
}

#[test]
fn a_restart_from_a_snapshot_with_the_clock_10_s_behind_never_repeats_an_id() {
    let (before, _clock) = scripted(TT, ClockBehind::Error);
    let mut ledger = Ledger::default();
    ledger.mint_at(&before, 1_000, T0, 0);
    let snapshot = before.snapshot();
    assert_eq!(snapshot.last_unix_ms(), T0);
    assert_eq!((snapshot.sequence, snapshot.timeline), (999, 0));
    drop(before);

    let restart = |policy| {
        Generator::resume(&snapshot)
            .clock(ManualClock::new(T0 - 10 * SECOND))
            .on_clock_behind(policy)
            .build()
            .unwrap()
    };
    // Error: fails, saying how far behind.
    assert_eq!(behind(restart(ClockBehind::Error).mint()), 10 * SECOND);
    // Wait with a 1 s bound: 10 s is further behind than it waits out.
    assert_eq!(
        behind(restart(ClockBehind::Wait { max_ms: 1_000 }).mint()),
        10 * SECOND
    );
    // Tick-tock: continues on the other timeline, at the host's time.
    let after = restart(ClockBehind::TickTock { max_ms: 0 });
    ledger.mint_at(&after, 1_000, T0 - 10 * SECOND, 1);
    // Once the clock passes the snapshot, still no repeats.
    after.clock().set(T0);
    ledger.mint_at(&after, 1_000, T0, 1);
    assert_eq!(after.snapshot().other_timeline_tick, T0 - TT.epoch_ms());
}

#[test]
fn a_snapshot_that_does_not_fit_its_layout_is_rejected() {
    let (generator, _clock) = scripted(TT, ClockBehind::Error);
    generator.mint().unwrap();
    let mut snapshot = generator.snapshot();
    snapshot.sequence = 4096;
    let err = Generator::resume(&snapshot)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid snapshot for layout twitter-tt: sequence 4096 is out of range (0..=4095)"
    );
    let mut snapshot = generator.snapshot();
    snapshot.timeline = 2;
    assert!(
        Generator::resume(&snapshot)
            .clock(ManualClock::new(T0))
            .build()
            .is_err()
    );
    let err = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
        .clock(ManualClock::new(T0))
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        Error::TickTockUnsupported { layout: "twitter" }
    ));
}

#[test]
fn stalled_threads_send_one_overflow_event_per_tick() {
    let (tx, rx) = mpsc::sync_channel(64);
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .notify(tx);
    let (generator, clock) = on_manual_clock(builder, T0);
    for _ in 0..4096 {
        generator.mint().unwrap();
    }
    // Four threads stall on the full tick; one event says so.
    thread::scope(|s| {
        let stalled: Vec<_> = (0..4).map(|_| s.spawn(|| generator.mint())).collect();
        while generator.stats().waits < 4 {
            thread::yield_now();
        }
        clock.advance(1);
        for handle in stalled {
            handle.join().unwrap().unwrap();
        }
    });
    let tick = T0 - Layout::TWITTER.epoch_ms();
    assert_eq!(
        rx.try_recv(),
        Ok(snowmint::generator::Event::Overflow { tick })
    );
    assert!(rx.try_recv().is_err(), "more than one event for the tick");
    assert_eq!(generator.stats().overflows, 4);
}

#[test]
fn regressions_send_an_event_and_a_full_channel_never_blocks_minting() {
    let (tx, rx) = mpsc::sync_channel(1);
    let builder = Generator::builder(TT)
        .node("machine", 7)
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
        .notify(tx);
    let (generator, clock) = on_manual_clock(builder, T0);
    let mut ledger = Ledger::default();
    ledger.mint_at(&generator, 3, T0, 0);
    clock.set(T0 - SECOND);
    ledger.mint_at(&generator, 3, T0 - SECOND, 1);
    let epoch = TT.epoch_ms();
    assert_eq!(
        rx.try_recv(),
        Ok(snowmint::generator::Event::Regression {
            last_tick: T0 - epoch,
            clock_tick: T0 - SECOND - epoch,
        })
    );
    // Fill the channel and regress again (back to timeline 0, above its mark): the mint goes
    // on, the event is dropped and counted.
    clock.set(T0 + 100);
    ledger.mint_at(&generator, 1, T0 + 100, 1);
    clock.set(T0 + 50);
    ledger.mint_at(&generator, 1, T0 + 50, 0);
    clock.set(T0 + 150);
    ledger.mint_at(&generator, 1, T0 + 150, 0);
    clock.set(T0 + 120);
    ledger.mint_at(&generator, 1, T0 + 120, 1);
    let stats = generator.stats();
    assert_eq!((stats.toggles, stats.events_dropped), (3, 1), "{stats:?}");
    assert!(matches!(
        rx.try_recv(),
        Ok(snowmint::generator::Event::Regression { .. })
    ));
}

/// The tick-tock layout with 4 IDs per tick: a tick fills after four mints.
const TT4: Layout = Layout::builder("tt4", 64)
    .unused(1)
    .time(41)
    .tick_tock()
    .node("machine", 19)
    .sequence(2)
    .epoch_ms(1_288_834_974_657)
    .build_const();

/// A clock whose readings on the thread named `x` follow a script (the rest read `base`), so a
/// test can hold that thread between a reading and what it does with it.
struct HeldReader {
    base: ManualClock,
    /// Thread `x`'s readings, in order; past the script it reads `base`.
    script: &'static [u64],
    /// Which of them `x` is held at, after taking it.
    held: usize,
    /// How many readings thread `x` has taken.
    x_reads: std::sync::atomic::AtomicUsize,
    /// Told when `x` has taken its held reading; `x` then waits for `resume`.
    reading_taken: std::sync::Mutex<mpsc::Sender<()>>,
    resume: std::sync::Mutex<mpsc::Receiver<()>>,
}

impl snowmint::Clock for HeldReader {
    fn unix_ms(&self) -> u64 {
        if thread::current().name() != Some("x") {
            return self.base.unix_ms();
        }
        let n = self.x_reads.fetch_add(1, Ordering::SeqCst);
        if n == self.held {
            self.reading_taken.lock().unwrap().send(()).unwrap();
            self.resume.lock().unwrap().recv().unwrap();
        }
        self.script
            .get(n)
            .copied()
            .unwrap_or_else(|| self.base.unix_ms())
    }
}

/// Thread `x` mints with `try_mint` on a [`TT4`] generator that minted `before` IDs at
/// `T0 + 100`, reading the clock as [`HeldReader`] scripts (`script`, held at `held`); while
/// it is held, the clock steps back to `T0 + 50` and the main thread's mint toggles to
/// timeline 1 there. `x`'s ID must then be the next on timeline 1, at `T0 + 50`: a reading
/// from before the toggle is used on no state loaded after it.
fn held_across_a_toggle(before: usize, script: &'static [u64], held: usize) {
    let (taken_tx, taken_rx) = mpsc::channel();
    let (resume_tx, resume_rx) = mpsc::channel();
    let clock = HeldReader {
        base: ManualClock::new(T0 + 100),
        script,
        held,
        x_reads: Default::default(),
        reading_taken: std::sync::Mutex::new(taken_tx),
        resume: std::sync::Mutex::new(resume_rx),
    };
    let generator = Generator::builder(TT4)
        .node("machine", 7)
        .clock(&clock)
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
        .build()
        .unwrap();
    let mut ledger = Ledger::default();
    for _ in 0..before {
        ledger.record(generator.decode(generator.try_mint().unwrap()).unwrap());
    }
    thread::scope(|s| {
        let x = thread::Builder::new()
            .name("x".into())
            .spawn_scoped(s, || generator.try_mint())
            .unwrap();
        taken_rx.recv().unwrap();
        clock.base.set(T0 + 50);
        let toggled = generator.decode(generator.try_mint().unwrap()).unwrap();
        assert_eq!(
            (toggled.unix_ms(), toggled.timeline(), toggled.sequence()),
            (T0 + 50, Some(1), 0)
        );
        ledger.record(toggled);
        resume_tx.send(()).unwrap();
        let after = generator.decode(x.join().unwrap().unwrap()).unwrap();
        assert_eq!(
            (after.unix_ms(), after.timeline(), after.sequence()),
            (T0 + 50, Some(1), 1),
            "thread x minted on the new timeline with its reading from before the toggle"
        );
        ledger.record(after);
    });
    assert_eq!(generator.stats().toggles, 1);
}

/// Regression: a reading from before a toggle carried the new timeline up to the old time.
/// Thread `x` finds the tick full at `T0 + 100` and reads `T0 + 101` in the slow path, where
/// it is held; `x`'s CAS then loses to the toggle. Minting on with its old reading put
/// timeline 1 at `T0 + 101`, using it up to the old time; a reading is only used on the
/// timeline of the state it was read after, so `x` reads again.
#[test]
fn a_reading_from_before_a_toggle_never_carries_the_new_timeline_to_the_old_time() {
    held_across_a_toggle(4, &[T0 + 100, T0 + 101], 1);
}

/// Regression: a shared generator's single mint reads the clock before it loads its word (for
/// the confirmed step), and went on with that reading when the step missed. Thread `x` reads
/// `T0 + 101` and is held before the load; the word it then loads is the toggled one, and the
/// reading carried timeline 1 to `T0 + 101`. On a layout with a tick-tock bit the miss starts
/// over with the word loaded first.
#[test]
fn a_single_mint_s_reading_from_before_a_toggle_is_not_used_on_the_toggled_word() {
    held_across_a_toggle(1, &[T0 + 101], 0);
}

/// A clock whose ordinary reading is `T0` and whose precise readings alternate between the
/// tick before `T0` and `T0` for `alternations` reads, then read `after`.
struct Alternating {
    precise_reads: std::sync::atomic::AtomicU64,
    alternations: u64,
    after: u64,
}

impl snowmint::Clock for Alternating {
    fn unix_ms(&self) -> u64 {
        T0
    }

    fn unix_ms_precise(&self) -> u64 {
        let n = self.precise_reads.fetch_add(1, Ordering::SeqCst);
        match n {
            n if n >= self.alternations => self.after,
            n if n % 2 == 0 => T0 - 1,
            _ => T0,
        }
    }
}

/// Regression: under `TickTock`, precise readings alternating between one tick behind and
/// the current tick while the tick is full sent `advance → next_tick → restart → advance`
/// round without end: a stack overflow in a debug build within 100,000 alternations. The slow
/// path is a loop with a bound on restarts: after it, the regression is waited out (here: the
/// reading is back on the full tick at once), so `try_mint` reports the full tick, and `mint`
/// waits for the next one.
#[test]
fn alternating_precise_readings_at_a_full_tick_end_after_a_bounded_number_of_reads() {
    /// A tick-tock generator on `clock` whose tick `T0` is full.
    fn full(clock: &Alternating) -> Generator<&Alternating> {
        let generator = Generator::builder(TT4)
            .node("machine", 7)
            .clock(clock)
            .on_clock_behind(ClockBehind::TickTock { max_ms: 1_000 })
            .build()
            .unwrap();
        for _ in 0..4 {
            generator.try_mint().unwrap();
        }
        generator
    }

    let clock = Alternating {
        precise_reads: Default::default(),
        alternations: 1_000_000,
        after: T0 + 1,
    };
    let generator = full(&clock);
    let reads_before = clock.precise_reads.load(Ordering::SeqCst);
    match generator.try_mint() {
        Err(Error::SequenceExhausted { tick, .. }) => {
            assert_eq!(tick, T0 - TT4.epoch_ms())
        }
        other => panic!("expected SequenceExhausted, got {other:?}"),
    }
    let reads = clock.precise_reads.load(Ordering::SeqCst) - reads_before;
    assert!(reads <= 32, "{reads} precise reads for one try_mint");
    assert_eq!(generator.stats().toggles, 0);

    // `mint` waits for the next tick: here the clock reaches it after 40 alternations.
    let clock = Alternating {
        precise_reads: Default::default(),
        alternations: 40,
        after: T0 + 1,
    };
    let generator = full(&clock);
    let parts = generator.decode(generator.mint().unwrap()).unwrap();
    assert_eq!(
        (parts.unix_ms(), parts.timeline(), parts.sequence()),
        (T0 + 1, Some(0), 0)
    );
}

/// Regression: `Stats::borrows` missed a borrow on the other timeline. The borrow count was
/// kept once per tick across both timelines, so after a toggle to an earlier time a borrowed
/// tick below the first timeline's borrowed tick went uncounted. Each timeline's ticks rise
/// on their own, and each borrow on either is counted.
#[test]
fn a_borrow_on_the_other_timeline_after_a_toggle_is_counted() {
    let builder = Generator::builder(TT4)
        .node("machine", 7)
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
        .borrow_ahead(1);
    let (generator, clock) = on_manual_clock(builder, T0);
    let mut ledger = Ledger::default();
    // Timeline 0: fill T0 and borrow T0 + 1.
    for _ in 0..5 {
        ledger.record(generator.decode(generator.try_mint().unwrap()).unwrap());
    }
    assert_eq!(generator.stats().borrows, 1);
    // Back a second: timeline 1 at T0 - 1 s, filled, then its next tick borrowed.
    clock.set(T0 - SECOND);
    for _ in 0..5 {
        let parts = generator.decode(generator.try_mint().unwrap()).unwrap();
        assert_eq!(parts.timeline(), Some(1), "{parts:?}");
        ledger.record(parts);
    }
    let stats = generator.stats();
    assert_eq!((stats.toggles, stats.overflows), (1, 2), "{stats:?}");
    assert_eq!((stats.borrows, stats.max_ahead_ticks), (2, 1), "{stats:?}");
}
