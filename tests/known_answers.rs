//! Published IDs decode to the values their sources give.

use snowmint::{Id, Layout};

/// The encyclopedia's worked example: a tweet by @Wikipedia in June 2022.
#[test]
fn tweet_1541815603606036480_decodes_as_published() {
    let parts = Layout::TWITTER
        .decode(Id::from_u64(1_541_815_603_606_036_480))
        .unwrap();
    assert_eq!(parts.ticks(), 367_597_485_448);
    assert_eq!(parts.unix_ms(), 1_656_432_460_105);
    assert_eq!(parts.time_rfc3339().to_string(), "2022-06-28T16:07:40.105Z");
    assert_eq!(parts.node("machine"), Some(378));
    assert_eq!(parts.sequence(), 0);
    let again = Layout::TWITTER
        .compose(1_656_432_460_105, &[("machine", 378)], 0)
        .unwrap();
    assert_eq!(again, parts.id());
}

/// Discord's API reference decodes 175928847299117063 as 2016-04-30 11:18:25.796 UTC,
/// internal worker 1, internal process 0, increment 7.
#[test]
fn discord_175928847299117063_decodes_as_published() {
    let parts = Layout::DISCORD
        .decode(Id::from_u64(175_928_847_299_117_063))
        .unwrap();
    assert_eq!(parts.time_rfc3339().to_string(), "2016-04-30T11:18:25.796Z");
    assert_eq!(parts.node("worker"), Some(1));
    assert_eq!(parts.node("process"), Some(0));
    assert_eq!(parts.sequence(), 7);
}

/// The Nanoflake specification: the timestamp is the ID shifted right by 22, plus the epoch.
#[test]
fn nanoflake_timestamp_is_the_id_shifted_by_22_plus_the_epoch() {
    let epoch = 1_577_836_800_000;
    let layout = Layout::nanoflake(epoch).unwrap();
    let id = layout
        .compose(epoch + 123_456_789, &[("generator", 1023)], 4095)
        .unwrap();
    assert_eq!((id.to_u64() >> 22) + epoch, epoch + 123_456_789);
    assert_eq!((id.to_u64() >> 12) & 1023, 1023);
    assert_eq!(id.to_u64() & 4095, 4095);
}

/// Snowflake-SI: the largest ID stays within JavaScript's safe integers (2^53 - 1).
#[test]
fn snowflake_si_largest_id_is_javascript_safe() {
    let layout = Layout::SNOWFLAKE_SI;
    let largest = layout
        .compose(
            layout.max_unix_ms(),
            &[("machine", 31)],
            layout.max_sequence(),
        )
        .unwrap();
    assert_eq!(largest.to_u64(), (1 << 53) - 1);
}
