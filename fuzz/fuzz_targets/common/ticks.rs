//! Time as the generator models count it: ticks from a layout's epoch, readings placed on
//! them, and the fuzzer's bytes turned into clock moves (small, or far to a layout's edges)
//! and borrow bounds.

// Each target uses part of this module.
#![allow(dead_code)]

use arbitrary::Arbitrary;
use snowmint::Layout;

use super::layouts::RECENT_MS;

/// `epoch + ticks * tick_ms + ms`, clamped to the `u64` range.
pub(crate) fn at(layout: &Layout, ticks: i128, ms: i128) -> u64 {
    let ms = i128::from(layout.epoch_ms()) + ticks * i128::from(layout.tick_ms()) + ms;
    ms.clamp(0, i128::from(u64::MAX)) as u64
}

/// A run's first reading: the start of the tick `offset` ticks past a base, the epoch's next
/// tick on a layout of a few thousand ticks and 2023 on one of 41 bits.
pub(crate) fn first_reading(layout: &Layout, offset: u16) -> u64 {
    let base = if layout.max_ticks() > 1 << 20 {
        tick_of(layout, RECENT_MS)
    } else {
        1
    };
    at(layout, base + i128::from(offset), 0)
}

/// `ms % tick_ms` ms into tick `ticks` from the epoch, as [`at`].
pub(crate) fn in_tick(layout: &Layout, ticks: i128, ms: u8) -> u64 {
    at(layout, ticks, i128::from(ms) % i128::from(layout.tick_ms()))
}

/// The tick a reading falls in, counted from the epoch (negative before it; unbounded).
pub(crate) fn tick_of(layout: &Layout, unix_ms: u64) -> i128 {
    (i128::from(unix_ms) - i128::from(layout.epoch_ms())).div_euclid(i128::from(layout.tick_ms()))
}

/// The tick a generator mints at for a reading, or `None` outside the ticks it mints in.
pub(crate) fn mint_tick(layout: &Layout, unix_ms: u64) -> Option<u64> {
    let tick = tick_of(layout, unix_ms);
    (1..=i128::from(layout.max_ticks()))
        .contains(&tick)
        .then_some(tick as u64)
}

/// A move of -3 to 3 ticks.
pub(crate) fn small_offset(ticks: u8) -> i128 {
    i128::from(ticks % 7) - 3
}

/// The borrow bound for a byte: 0 for half of the values, 1 to 4 ticks for most of the rest,
/// up to 30, and (for 255) unbounded.
pub(crate) fn borrow_ticks(b: u8) -> u64 {
    match b {
        0..=127 => 0,
        128..=223 => 1 + u64::from(b % 4),
        224..=254 => u64::from(b - 224),
        255 => u64::MAX,
    }
}

/// A clock move far from the current time, or onto the edges of the layout.
#[derive(Debug, Arbitrary)]
pub(crate) enum Far {
    /// `1 + back` ms before the epoch.
    BeforeEpoch(u16),
    /// A millisecond inside the epoch's own tick (reserved: generators never mint in it).
    EpochTick(u8),
    /// Tick `1 + ticks % 4`, the first ones a generator mints in.
    FirstTicks { ticks: u8, ms: u8 },
    /// Tick `max_ticks - back % 4`, the layout's last ones.
    LastTicks { back: u8, ms: u8 },
    /// `extra` ms past the start of the tick after the layout's last.
    PastEnd(u16),
    /// Forward or back by this many ticks.
    Jump(i32),
    /// Any reading.
    Raw(u64),
}

impl Far {
    /// The reading this move sets, on `layout`, from a clock reading `now_ms`.
    pub(crate) fn unix_ms(&self, layout: &Layout, now_ms: u64) -> u64 {
        let tick_ms = i128::from(layout.tick_ms());
        match *self {
            Far::BeforeEpoch(back) => at(layout, 0, -1 - i128::from(back)),
            Far::EpochTick(ms) => at(layout, 0, i128::from(ms) % tick_ms),
            Far::FirstTicks { ticks, ms } => in_tick(layout, 1 + i128::from(ticks % 4), ms),
            Far::LastTicks { back, ms } => in_tick(
                layout,
                i128::from(layout.max_ticks()) - i128::from(back % 4),
                ms,
            ),
            Far::PastEnd(extra) => at(
                layout,
                i128::from(layout.max_ticks()) + 1,
                i128::from(extra),
            ),
            Far::Jump(ticks) => {
                let tick = tick_of(layout, now_ms) + i128::from(ticks);
                let into = (i128::from(now_ms) - i128::from(layout.epoch_ms())).rem_euclid(tick_ms);
                at(layout, tick, into)
            }
            Far::Raw(unix_ms) => unix_ms,
        }
    }
}
