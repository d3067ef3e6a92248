//! Layouts shared by the test binaries.

use snowmint::Layout;

/// Twitter's shape with a tick-tock bit taken from the machine field: 41 time, 1 tick,
/// 9 machine, 12 sequence.
pub const TT: Layout = Layout::builder("twitter-tt", 64)
    .unused(1)
    .time(41)
    .tick_tock()
    .node("machine", 9)
    .sequence(12)
    .epoch_ms(1_288_834_974_657)
    .build_const();

/// The presets of the README's table, nanoflake on an epoch of 2020-09-13.
pub fn presets() -> Vec<Layout> {
    vec![
        Layout::TWITTER,
        Layout::DISCORD,
        Layout::INSTAGRAM,
        Layout::MASTODON,
        Layout::SONYFLAKE,
        Layout::nanoflake(1_600_000_000_000).unwrap(),
        Layout::SNOWFLAKE_SI,
        Layout::OSMIUM,
    ]
}
