//! Compose and decode round trips at the extreme values of every preset, and the errors at
//! one past them.

use snowmint::{
    Error, Layout,
    layout::{FieldKind, LayoutProblem},
};

mod common;

use common::layouts::presets;

#[test]
fn every_preset_round_trips_at_its_extremes() {
    for layout in presets() {
        let node_names: Vec<_> = layout.node_fields().map(|f| (f.name(), f.max())).collect();
        for ticks in [0, 1, layout.max_ticks() / 2, layout.max_ticks()] {
            for sequence in [0, 1, layout.max_sequence()] {
                for extreme in [false, true] {
                    let nodes: Vec<(&str, u64)> = node_names
                        .iter()
                        .map(|&(name, max)| (name, if extreme { max } else { 0 }))
                        .collect();
                    let unix_ms = layout.epoch_ms() + ticks * layout.tick_ms();
                    let id = layout.compose(unix_ms, &nodes, sequence).unwrap();
                    let parts = layout.decode(id).unwrap();
                    assert_eq!(parts.ticks(), ticks, "{layout}");
                    assert_eq!(parts.unix_ms(), unix_ms, "{layout}");
                    assert_eq!(parts.sequence(), sequence, "{layout}");
                    assert_eq!(parts.nodes().collect::<Vec<_>>(), nodes, "{layout}");
                    assert_eq!(id.to_u64() & layout.zero_mask(), 0, "{layout}");
                    assert_eq!(layout.parse(&id.to_string()).unwrap(), id, "{layout}");
                }
            }
        }
    }
}

#[test]
fn the_largest_id_of_each_preset_fills_exactly_its_used_bits() {
    for layout in presets() {
        let nodes: Vec<_> = layout.node_fields().map(|f| (f.name(), f.max())).collect();
        let id = layout
            .compose(layout.max_unix_ms(), &nodes, layout.max_sequence())
            .unwrap();
        assert_eq!(id.to_u64(), !layout.zero_mask(), "{layout}");
        let unused: u32 = layout
            .fields()
            .iter()
            .filter(|f| f.kind() == FieldKind::Unused)
            .map(|f| f.bits())
            .sum();
        assert_eq!(
            id.to_u64().count_ones(),
            layout.width() - unused,
            "{layout}"
        );
    }
}

#[test]
fn values_one_past_each_extreme_are_errors_not_wrapped_ids() {
    for layout in presets() {
        let end = layout.max_unix_ms() + layout.tick_ms();
        assert!(
            matches!(layout.compose(end, &[], 0), Err(Error::TimeOverflow { .. })),
            "{layout}"
        );
        if layout.epoch_ms() > 0 {
            assert!(matches!(
                layout.compose(layout.epoch_ms() - 1, &[], 0),
                Err(Error::BeforeEpoch { .. })
            ));
        }
        let seq = layout.max_sequence() + 1;
        let err = layout.compose(layout.epoch_ms(), &[], seq).unwrap_err();
        assert!(matches!(err, Error::SequenceOutOfRange { value, .. } if value == seq));
        for field in layout.node_fields() {
            let err = layout.compose(layout.epoch_ms(), &[(field.name(), field.max() + 1)], 0);
            let message = err.unwrap_err().to_string();
            assert_eq!(
                message,
                format!(
                    "{} id {} is out of range for layout {} (0..={})",
                    field.name(),
                    field.max() + 1,
                    layout.name(),
                    field.max()
                )
            );
        }
        let unknown = layout
            .compose(layout.epoch_ms(), &[("rack", 1)], 0)
            .unwrap_err();
        assert!(
            matches!(unknown, Error::UnknownNodeField { .. }),
            "{layout}"
        );
        if let Some(field) = layout.node_fields().next() {
            let twice = [(field.name(), 1), (field.name(), 2)];
            let err = layout.compose(layout.epoch_ms(), &twice, 0).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "node field {} of layout {} is given twice, expected once",
                    field.name(),
                    layout.name()
                )
            );
        }
    }
}

#[test]
fn ids_with_bits_outside_the_layout_do_not_decode() {
    let err = Layout::TWITTER.parse("9223372036854775808").unwrap_err();
    assert_eq!(
        err.to_string(),
        "id 9223372036854775808 does not fit layout twitter: bits 0x8000000000000000 must be zero"
    );
    assert!(
        Layout::SNOWFLAKE_SI
            .parse(&(1u64 << 53).to_string())
            .is_err()
    );
    assert!(Layout::SONYFLAKE.parse(&u64::MAX.to_string()).is_err());
    assert!(Layout::OSMIUM.parse(&u64::MAX.to_string()).is_ok());
}

#[test]
fn custom_layout_round_trips() {
    let layout = Layout::builder("custom", 64)
        .unused(2)
        .time(38)
        .node("region", 3)
        .node("host", 7)
        .sequence(14)
        .tick_ms(4)
        .epoch_ms(1_262_304_000_000)
        .build()
        .unwrap();
    let id = layout
        .compose(
            1_262_304_000_000 + 4 * 1000 + 3,
            &[("host", 100), ("region", 5)],
            9999,
        )
        .unwrap();
    let parts = layout.decode(id).unwrap();
    assert_eq!(parts.ticks(), 1000);
    assert_eq!(
        parts.unix_ms(),
        1_262_304_004_000,
        "floored to the 4 ms tick"
    );
    assert_eq!(parts.node("region"), Some(5));
    assert_eq!(parts.node("host"), Some(100));
    assert_eq!(parts.sequence(), 9999);
}

/// Regression: an unknown preset name was repeated whole in the error: a 100 kB name gave a
/// 100 kB message. The error repeats 64 characters and an ellipsis.
#[test]
fn an_unknown_preset_name_is_repeated_at_most_64_characters() {
    let name = "x".repeat(100_000);
    let err = Layout::preset(&name, None).unwrap_err();
    match &err {
        Error::UnknownLayout { name, .. } => {
            assert_eq!(name.chars().count(), 65);
            assert!(name.ends_with('…'), "{name}");
        }
        other => panic!("expected UnknownLayout, got {other:?}"),
    }
    assert!(
        err.to_string().len() < 400,
        "{} bytes",
        err.to_string().len()
    );
    let err = Layout::preset("twiter", None).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("unknown layout \"twiter\", expected one of "),
        "{err}"
    );
}

#[test]
fn a_node_field_name_with_a_line_break_is_refused_with_a_one_line_message() {
    let err = Layout::builder("ok", 64)
        .unused(1)
        .time(41)
        .node("mach\nine", 10)
        .sequence(12)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        Error::InvalidLayout {
            layout: "ok",
            problem: LayoutProblem::NameCharacter {
                of: "node field",
                found: '\n',
                position: 4
            },
        }
    );
    assert_eq!(
        err.to_string(),
        "invalid layout ok: node field name has '\\n' at byte 4, expected only ASCII letters, \
         digits, '_', '-', '.' and '/'"
    );
}

#[test]
fn a_layout_name_outside_the_allowed_characters_or_lengths_is_refused_without_echoing_it() {
    let long: &'static str = "n".repeat(100_000).leak();
    for (name, problem) in [
        (
            "two words",
            LayoutProblem::NameCharacter {
                of: "layout",
                found: ' ',
                position: 3,
            },
        ),
        (
            "née",
            LayoutProblem::NameCharacter {
                of: "layout",
                found: 'é',
                position: 1,
            },
        ),
        (
            "",
            LayoutProblem::NameLength {
                of: "layout",
                chars: 0,
            },
        ),
        (
            long,
            LayoutProblem::NameLength {
                of: "layout",
                chars: 100_000,
            },
        ),
    ] {
        let err = Layout::builder(name, 64)
            .time(52)
            .sequence(12)
            .build()
            .unwrap_err();
        assert_eq!(
            err,
            Error::InvalidLayout {
                layout: "(invalid name)",
                problem
            }
        );
        let message = err.to_string();
        assert!(message.len() < 200 && !message.contains('\n'), "{message}");
    }
}

#[test]
fn names_of_ascii_letters_digits_and_underscore_dash_dot_slash_up_to_64_characters_are_accepted() {
    let long: &'static str = "a".repeat(64).leak();
    let layout = Layout::builder("v2.0_ids/41-22", 64)
        .time(41)
        .node("rack_1.a-b/c", 5)
        .node(long, 6)
        .sequence(12)
        .build()
        .unwrap();
    assert_eq!(layout.node_field(long).unwrap().bits(), 6);
}

#[test]
fn build_const_refuses_a_name_with_a_line_break() {
    let builder = Layout::builder("ok", 64)
        .time(52)
        .node("a\nb", 1)
        .sequence(11);
    let panic = std::panic::catch_unwind(|| builder.build_const()).unwrap_err();
    let message = panic.downcast_ref::<String>().map_or("", String::as_str);
    assert!(message.contains("a name is not 1 to 64"), "{message}");
}
