//! Fault injection: a thread stopped in the single-mint fast path after its load of the state
//! found room on the tick, before its atomic add (the pause point [`Point::Mint`]), while
//! other mints fill the tick.
//!
//! Released, its add lands past the tick's last state, in the node field above the sequence:
//! a value no mint may return. The thread must go on to the next tick, and while the word
//! holds that value every other mint must count the tick as full: no ID with bits in the
//! node field, no sequence past the range, a snapshot that says the tick is full, and a
//! generator resumed from it that mints on a later tick.

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(snowmint_pause_points)]

mod common;

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use snowmint::pause::{self, Point};
use snowmint::{Error, Generator, Id, Layout};

use common::clocks::{T0, built_on_manual_clock, on_manual_clock};
use common::threads::blocked_until;

/// 16 IDs a tick under 18 node bits: adds past the last state land in the node field, and the
/// field is wide enough for the generator to add at all (see `Plan::add_below`).
const WIDE_NODE: Layout = Layout::builder("wide-node", 64)
    .unused(1)
    .time(41)
    .node("machine", 18)
    .sequence(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

const MACHINE: u64 = 5;

/// The pause point is the process's: one test arms it at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tick of `id`, checking that it carries [`MACHINE`] and a sequence in range.
fn checked(id: Id) -> (u64, u64) {
    let parts = WIDE_NODE.decode(id).expect("an ID of the layout");
    assert_eq!(parts.node("machine"), Some(MACHINE), "{id:?}: {parts:?}");
    assert!(parts.sequence() <= 15, "{parts:?}");
    (parts.ticks(), parts.sequence())
}

#[test]
fn an_add_past_the_tick_s_last_state_is_never_an_id() {
    let _serial = serial();
    let builder = Generator::builder(WIDE_NODE).node("machine", MACHINE);
    let (generator, clock) = on_manual_clock(builder, T0);
    let tick = T0 - WIDE_NODE.epoch_ms();
    let mut ids = generator.mint_many(14).unwrap(); // sequences 0..=13

    // The paused thread loaded sequence 13: room, so it will add.
    let armed = pause::arm(Point::Mint);
    let late = blocked_until(
        Duration::from_millis(200),
        || generator.mint().unwrap(),
        || {
            assert!(armed.wait_reached(Duration::from_secs(10)), "not paused");
            // The tick's last two states, each by an add, then a full tick.
            ids.push(generator.mint().unwrap());
            ids.push(generator.mint().unwrap());
            assert!(matches!(
                generator.try_mint(),
                Err(Error::SequenceExhausted { .. })
            ));
            armed.release();
            // The released add made sequence 16: the node field's lowest bit, sequence 0.
            // Until the clock moves, the tick is full to every way of minting.
            std::thread::sleep(Duration::from_millis(50));
            for _ in 0..3 {
                assert!(matches!(
                    generator.try_mint(),
                    Err(Error::SequenceExhausted { .. })
                ));
            }
            let mut batch = [Id::default(); 4];
            assert!(generator.try_mint_batch(&mut batch).is_err());
            let snapshot = generator.snapshot();
            assert_eq!((snapshot.last_tick, snapshot.sequence), (tick, 15));
            // Resumed from that snapshot at the same time, a generator mints on a later tick.
            let (resumed, resumed_clock) = built_on_manual_clock(T0, |clock| {
                Generator::resume(&snapshot).clock(clock).build().unwrap()
            });
            assert!(resumed.try_mint().is_err());
            resumed_clock.advance(1);
            assert_eq!(checked(resumed.mint().unwrap()), (tick + 1, 0));
            clock.advance(1);
        },
    );
    assert_eq!(checked(late), (tick + 1, 0));
    ids.push(late);
    ids.extend(generator.mint_many(3).unwrap());
    let seen: HashSet<Id> = ids.iter().copied().collect();
    assert_eq!(seen.len(), ids.len(), "a repeated ID");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "not increasing");
    let sequences: Vec<(u64, u64)> = ids.iter().map(|&id| checked(id)).collect();
    let expected: Vec<(u64, u64)> = (0..16)
        .map(|s| (tick, s))
        .chain((0..4).map(|s| (tick + 1, s)))
        .collect();
    assert_eq!(sequences, expected);
}

/// A thread stopped after loading the state on one tick, while other mints move the word to
/// the next: its add lands in the later tick's range, and that value is its ID (a tick some
/// thread read, as a lost compare-and-swap would mint on), so the later tick skips none.
#[test]
fn an_add_that_lands_on_a_later_tick_takes_that_tick_s_value() {
    let _serial = serial();
    let builder = Generator::builder(WIDE_NODE).node("machine", MACHINE);
    let (generator, clock) = on_manual_clock(builder, T0);
    let tick = T0 - WIDE_NODE.epoch_ms();
    let first = generator.mint().unwrap();

    let armed = pause::arm(Point::Mint);
    let mut later = Vec::new();
    let stopped = blocked_until(
        Duration::from_millis(200),
        || generator.mint().unwrap(),
        || {
            assert!(armed.wait_reached(Duration::from_secs(10)), "not paused");
            clock.advance(1);
            // A compare-and-swap to the new tick, then an add on it.
            later.push(generator.mint().unwrap());
            later.push(generator.mint().unwrap());
            armed.release();
        },
    );
    later.push(stopped);
    later.push(generator.mint().unwrap());
    assert_eq!(checked(first), (tick, 0));
    let sequences: Vec<(u64, u64)> = later.iter().map(|&id| checked(id)).collect();
    assert_eq!(
        sequences,
        [(tick + 1, 0), (tick + 1, 1), (tick + 1, 2), (tick + 1, 3)]
    );
}
