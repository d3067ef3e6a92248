//! A shared generator's confirmed tick (the generator's `# The confirmed tick`): a mint whose
//! reading is the confirmed one and whose state is below the last state of that reading's
//! tick skips the check of its reading against the state's tick, and with it the check of a
//! clock behind the state. These tests stop a thread between the compare-and-swap that
//! installed a new tick and its confirmation of the reading ([`Point::Confirm`]), so the word
//! still holds the tick before, and mint meanwhile: the confirmation not yet made must never
//! let a mint skip the generator's `ClockBehind` policy, nor stop minting.

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(snowmint_pause_points)]

use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use snowmint::clock::ManualClock;
use snowmint::pause::{self, Point};
use snowmint::{ClockBehind, Error, Generator, Layout};

const LAYOUT: Layout = Layout::TWITTER;
/// A tick well past the epoch: the clock starts there.
const TICK: u64 = 1_000;

/// Held by each test: a pause point is armed by one test at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn tick_ms(tick: u64) -> u64 {
    LAYOUT.epoch_ms() + tick * LAYOUT.tick_ms()
}

fn tick_of(id: snowmint::Id) -> u64 {
    LAYOUT.decode(id).unwrap().ticks()
}

/// A generator on a manual clock at `TICK`, which has minted once there (confirming the tick).
fn confirmed(on_behind: ClockBehind) -> (Generator<ManualClock>, ManualClock, snowmint::Id) {
    let clock = ManualClock::new(tick_ms(TICK));
    let generator = Generator::builder(LAYOUT)
        .node("machine", 1)
        .on_clock_behind(on_behind)
        .clock(clock.clone())
        .build()
        .unwrap();
    let first = generator.mint().unwrap();
    assert_eq!(tick_of(first), TICK);
    (generator, clock, first)
}

/// A thread installs tick `TICK + 1` and stops before it confirms it; the clock is set back
/// to `TICK`, the reading still confirmed: the state is on the later tick, so a mint now must
/// fail under `ClockBehind::Error`. The stopped mint then
/// finishes on `TICK + 1`, and once the clock reads that tick again, minting goes on above it.
#[test]
fn a_confirmation_not_yet_made_never_skips_the_clock_behind_policy() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (generator, clock, first) = confirmed(ClockBehind::Error);
    let armed = pause::arm(Point::Confirm);
    clock.set(tick_ms(TICK + 1));
    thread::scope(|s| {
        let stopped = s.spawn(|| generator.mint().unwrap());
        assert!(
            armed.wait_reached(Duration::from_secs(10)),
            "the minting thread never reached the confirmation"
        );
        clock.set(tick_ms(TICK));
        for _ in 0..3 {
            match generator.mint() {
                Err(Error::ClockBehind { behind_ms, .. }) => assert_eq!(behind_ms, 1),
                other => panic!("a mint with the clock a tick behind the state gave {other:?}"),
            }
        }
        armed.release();
        let later = stopped.join().unwrap();
        assert_eq!(tick_of(later), TICK + 1);
        assert!(later > first);
        clock.set(tick_ms(TICK + 1));
        let next = generator.mint().unwrap();
        assert!(next > later);
    });
}

/// A thread installs tick `TICK + 1` and stops before it confirms it, the clock still at that
/// tick: other mints go on (down the longer path, which confirms the reading itself), each
/// above the last, and after the release the tick's remaining mints are above them all.
#[test]
fn a_confirmation_not_yet_made_never_stops_minting() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (generator, clock, first) = confirmed(ClockBehind::Error);
    let armed = pause::arm(Point::Confirm);
    clock.set(tick_ms(TICK + 1));
    thread::scope(|s| {
        let stopped = s.spawn(|| generator.mint().unwrap());
        assert!(
            armed.wait_reached(Duration::from_secs(10)),
            "the minting thread never reached the confirmation"
        );
        let mut last = first;
        for _ in 0..100 {
            let id = generator.mint().unwrap();
            assert_eq!(tick_of(id), TICK + 1);
            assert!(id > last);
            last = id;
        }
        armed.release();
        let stopped = stopped.join().unwrap();
        assert!(stopped > first && stopped < last);
        for _ in 0..100 {
            let id = generator.mint().unwrap();
            assert!(id > last);
            last = id;
        }
    });
}
