use std::collections::HashSet;

use super::layout::{LayoutDef, bound_echoes, intern, intern_into};
use super::snapshot::SnapshotDef;
use crate::clock::ManualClock;
use crate::generator::Snapshot;
use crate::generator::{ClockBehind, Generator};
use crate::layout::{Layout, LayoutProblem};
use crate::sno::SnoSnapshot;

const TT: Layout = Layout::builder("twitter-tt", 64)
    .unused(1)
    .time(41)
    .tick_tock()
    .node("machine", 9)
    .sequence(12)
    .epoch_ms(1_288_834_974_657)
    .build_const();

#[test]
fn snapshots_round_trip_through_json_and_resume() {
    let generator = Generator::builder(TT)
        .node("machine", 7)
        .clock(ManualClock::new(1_700_000_000_000))
        .build()
        .unwrap();
    let last = generator.mint().unwrap();
    let json = serde_json::to_string(&generator.snapshot()).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(snapshot, generator.snapshot());
    let resumed = Generator::resume(&snapshot)
        .clock(ManualClock::new(1_699_999_990_000))
        .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
        .build()
        .unwrap();
    let next = resumed.mint().unwrap();
    assert_ne!(next, last);
    assert_eq!(resumed.decode(next).unwrap().timeline(), Some(1));
}

#[test]
fn sno_snapshots_round_trip_and_an_old_form_without_meta_reads_as_0() {
    use crate::sno::SnoGenerator;
    let generator = SnoGenerator::builder()
        .partition(7)
        .meta(9)
        .clock(ManualClock::new(1_700_000_000_000))
        .build()
        .unwrap();
    generator.mint().unwrap();
    let snapshot = generator.snapshot();
    let json = serde_json::to_string(&snapshot).unwrap();
    assert_eq!(
        serde_json::from_str::<SnoSnapshot>(&json).unwrap(),
        snapshot
    );
    let old = json.replace("\"meta\":9,", "");
    assert_ne!(old, json);
    let read: SnoSnapshot = serde_json::from_str(&old).unwrap();
    assert_eq!(
        read,
        SnoSnapshot {
            meta: 0,
            ..snapshot
        }
    );
}

#[test]
fn every_preset_layout_round_trips() {
    for layout in [
        Layout::TWITTER,
        Layout::DISCORD,
        Layout::INSTAGRAM,
        Layout::MASTODON,
        Layout::SONYFLAKE,
        Layout::SNOWFLAKE_SI,
        Layout::OSMIUM,
        TT,
    ] {
        let json = serde_json::to_string(&layout).unwrap();
        assert_eq!(serde_json::from_str::<Layout>(&json).unwrap(), layout);
    }
}

/// Regression: every distinct name of a stored layout was kept for the process's life,
/// whatever its length and however many there were, so layouts read from untrusted input
/// could grow memory without bound. Names are at most 64 characters, and at most 4,096
/// distinct ones are kept.
#[test]
fn stored_names_are_bounded_in_length_and_in_number() {
    let long_layout = format!(
        r#"{{"name":"{}","width":64,"fields":[{{"kind":"unused","name":"unused","bits":1}},
        {{"kind":"time","name":"time","bits":41}},{{"kind":"node","name":"machine","bits":10}},
        {{"kind":"sequence","name":"sequence","bits":12}}],"tick_ms":1,"epoch_ms":0}}"#,
        "n".repeat(100_000)
    );
    let err = serde_json::from_str::<Layout>(&long_layout)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "invalid layout (stored): a stored name has 100000 characters, expected at most 64"
        ),
        "{err}"
    );
    let long_node = long_layout
        .replace(&"n".repeat(100_000), "ok")
        .replace("machine", &"m".repeat(65));
    let err = serde_json::from_str::<Layout>(&long_node)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid layout ok: a stored name has 65 characters"),
        "{err}"
    );
    // At most `max` distinct names; one already held is still found.
    let mut names = HashSet::new();
    assert_eq!(intern_into(&mut names, "a", 2), Ok("a"));
    assert_eq!(intern_into(&mut names, "b", 2), Ok("b"));
    assert_eq!(
        intern_into(&mut names, "c", 2),
        Err(LayoutProblem::TooManyNames { max: 2 })
    );
    assert_eq!(intern_into(&mut names, "a", 2), Ok("a"));
}

#[test]
fn a_stored_layout_is_checked_and_names_are_interned_once() {
    let json = r#"{"name":"bad","width":64,"fields":[{"kind":"time","name":"time","bits":41},
        {"kind":"sequence","name":"sequence","bits":12}],"tick_ms":1,"epoch_ms":0}"#;
    let err = serde_json::from_str::<Layout>(json)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid layout bad: field widths add up to 53 bits, expected 64"),
        "{err}"
    );
    assert!(std::ptr::eq(
        intern("rack").unwrap(),
        intern("rack").unwrap()
    ));
    let json = serde_json::to_string(&generator_snapshot_with_unknown_node()).unwrap();
    let err = serde_json::from_str::<Snapshot>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("layout twitter has no node field \"rack\""),
        "{err}"
    );
}

/// Regression: stored fields were ignored where the builder takes none: a tick-tock
/// bit stored as 65 bits was read back as 1, and a time field could be stored under any
/// name. Every stored field must now be the field built from it, and the error names the
/// field by position, never repeating a stored name.
#[test]
fn a_stored_field_that_is_not_the_field_built_from_it_is_an_error() {
    let tick_tock = r#"{"name":"tt","width":64,"fields":[{"kind":"unused","name":"unused","bits":1},
        {"kind":"time","name":"time","bits":41},{"kind":"tick-tock","name":"tick","bits":65},
        {"kind":"node","name":"machine","bits":9},{"kind":"sequence","name":"sequence","bits":12}],
        "tick_ms":1,"epoch_ms":0}"#;
    let err = serde_json::from_str::<Layout>(tick_tock)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "invalid layout tt: field 2 as stored (65 bits, and its name) is not the field it \
             builds; expected \"tick\" with 1 bits"
        ),
        "{err}"
    );
    let long = "c".repeat(100_000);
    let renamed = format!(
        r#"{{"name":"rn","width":64,"fields":[{{"kind":"unused","name":"unused","bits":1}},
        {{"kind":"time","name":"{long}","bits":41}},{{"kind":"node","name":"machine","bits":10}},
        {{"kind":"sequence","name":"sequence","bits":12}}],"tick_ms":1,"epoch_ms":0}}"#
    );
    let err = serde_json::from_str::<Layout>(&renamed)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "invalid layout rn: field 1 as stored (41 bits, and its name) is not the field it \
         builds; expected \"time\" with 41 bits"
    );
    assert!(
        err.len() < 300,
        "the stored name is echoed unbounded: {} bytes",
        err.len()
    );
    // What a layout writes, it reads back.
    let tt = LayoutDef::from(&TT);
    assert_eq!(tt.build().unwrap(), TT);
}

#[test]
fn a_stored_layout_or_node_field_name_with_a_line_break_is_refused() {
    let json = |layout: &str, node: &str| {
        format!(
            r#"{{"name":"{layout}","width":64,"fields":[{{"kind":"time","name":"time","bits":52}},
            {{"kind":"node","name":"{node}","bits":1}},{{"kind":"sequence","name":"sequence","bits":11}}],
            "tick_ms":1,"epoch_ms":0}}"#
        )
    };
    let err = serde_json::from_str::<Layout>(&json("ok", "mach\\nine"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid layout ok: node field name has '\\n' at byte 4"),
        "{err}"
    );
    let err = serde_json::from_str::<Layout>(&json("new\\nline-layout", "machine"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid layout (stored): layout name has '\\n' at byte 3"),
        "{err}"
    );
}

/// Serde's own messages repeat a string given where a number, a struct or a list was
/// expected, and an unknown variant or field name, whole; every one is cut to 64
/// characters.
#[test]
fn huge_strings_in_a_stored_snapshot_are_echoed_at_most_64_characters() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .clock(ManualClock::new(1_700_000_000_000))
        .build()
        .unwrap();
    generator.mint().unwrap();
    let good = serde_json::to_string(&generator.snapshot()).unwrap();
    let huge = "h".repeat(100_000);
    for (what, from, to) in [
        (
            "a number",
            "\"timeline\":0",
            format!("\"timeline\":\"{huge}\""),
        ),
        (
            "a variant",
            "\"kind\":\"time\"",
            format!("\"kind\":\"{huge}\""),
        ),
        (
            "a struct",
            "\"layout\":{",
            format!("\"layout\":\"{huge}\",\"x\":{{"),
        ),
        (
            "a range field",
            "\"start\":",
            format!("\"{huge}\":0,\"start\":"),
        ),
        (
            "an escaped string",
            "\"sequence\":0",
            format!("\"sequence\":\"{}\"", "\\\"".repeat(50_000)),
        ),
    ] {
        assert!(good.contains(from), "{what}: {good}");
        let bad = good.replacen(from, &to, 1);
        let err = serde_json::from_str::<Snapshot>(&bad)
            .unwrap_err()
            .to_string();
        assert!(
            err.len() < 400,
            "{what}: {} bytes: {}",
            err.len(),
            &err[..400]
        );
        assert!(err.contains('…'), "{what}: {err}");
        let sno = format!("{{\"partition\":1,\"core\":{bad}}}");
        let err = serde_json::from_str::<SnoSnapshot>(&sno)
            .unwrap_err()
            .to_string();
        assert!(err.len() < 400, "{what} in sno: {} bytes", err.len());
    }
    let layout = serde_json::to_string(&Layout::TWITTER).unwrap().replacen(
        "\"width\":64",
        &format!("\"width\":\"{huge}\""),
        1,
    );
    let err = serde_json::from_str::<Layout>(&layout)
        .unwrap_err()
        .to_string();
    assert!(err.len() < 400, "{} bytes", err.len());
    assert_eq!(
        bound_echoes("invalid type: string \"short\", expected u8"),
        None
    );
}

fn generator_snapshot_with_unknown_node() -> SnapshotDef {
    SnapshotDef {
        layout: LayoutDef::from(&Layout::TWITTER),
        nodes: vec![("rack".to_owned(), 1)],
        last_tick: 0,
        sequence: 0,
        timeline: 0,
        other_timeline_tick: 0,
        sequence_range: None,
    }
}
