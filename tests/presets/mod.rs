//! Every preset layout, for the test files that check a property across all of them.

use snowmint::Layout;

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
