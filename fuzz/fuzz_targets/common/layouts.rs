//! The layouts the generator targets mint on, and the times their runs start from: each
//! target picks its own set from these.

// Each target uses part of this module.
#![allow(dead_code)]

use snowmint::Layout;

/// The 16-bit layouts' epoch, and the start of the run for the 41-bit ones.
pub(crate) const RECENT_MS: u64 = 1_700_000_000_000;
/// Twitter's epoch, used by the 41-bit tick-tock layouts too.
pub(crate) const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;
/// More mints than this in one input are skipped, to keep executions fast.
pub(crate) const MAX_MINTS: usize = 20_000;

/// A tick of 4 ms, or else of 1 ms.
pub(crate) fn tick_ms(tick_4ms: bool) -> u64 {
    if tick_4ms { 4 } else { 1 }
}

/// 2 sequence bits: 4 IDs per tick; 13 time bits: the end is 8191 ticks away.
pub(crate) fn tiny(tick_ms: u64) -> Layout {
    Layout::builder("tiny", 16)
        .time(13)
        .node("shard", 1)
        .sequence(2)
        .tick_ms(tick_ms)
        .epoch_ms(RECENT_MS)
        .build()
        .expect("the fuzz layouts are valid")
}

/// 8 IDs per tick, a tick-tock bit, 4095 ticks.
pub(crate) fn tiny_tt(tick_ms: u64) -> Layout {
    Layout::builder("tiny-tt", 16)
        .time(12)
        .tick_tock()
        .sequence(3)
        .tick_ms(tick_ms)
        .epoch_ms(RECENT_MS)
        .build()
        .expect("the fuzz layouts are valid")
}

/// Twitter's shape with a tick-tock bit: 41 time, 1 tick, 10 machine, 12 sequence.
pub(crate) fn tt(tick_ms: u64) -> Layout {
    Layout::builder("tt", 64)
        .time(41)
        .tick_tock()
        .node("machine", 10)
        .sequence(12)
        .tick_ms(tick_ms)
        .epoch_ms(TWITTER_EPOCH_MS)
        .build()
        .expect("the fuzz layouts are valid")
}

/// 16 IDs per tick, a tick-tock bit, 41 bits of time.
pub(crate) fn wide_tt(tick_ms: u64) -> Layout {
    Layout::builder("wide-tt", 64)
        .unused(8)
        .time(41)
        .tick_tock()
        .node("machine", 10)
        .sequence(4)
        .tick_ms(tick_ms)
        .epoch_ms(TWITTER_EPOCH_MS)
        .build()
        .expect("the fuzz layouts are valid")
}
