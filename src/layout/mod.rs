//! Bit layouts: the width and order of each field, the tick length and the epoch.
//!
//! A [`Layout`] is plain data, checked once when it is built: by `const fn` at compile time for
//! the presets and any layout written as a constant ([`LayoutBuilder::build_const`]), by
//! [`LayoutBuilder::build`] with an [`Error`](crate::Error) at run time.

mod arithmetic;
mod builder;
mod field;
mod fixed;
mod parts;
mod presets;
mod range;
mod shape;
mod spelled;

pub use crate::error::layout_problem::LayoutProblem;
pub use arithmetic::JS_MAX_SAFE_INTEGER;
pub use builder::LayoutBuilder;
#[cfg(feature = "serde")]
pub(crate) use builder::name_problem;
pub use field::{Field, FieldKind};
pub use fixed::{
    AnyLayout, Discord, FixedLayout, Instagram, LayoutKind, Mastodon, Osmium, SnowflakeSi,
    Sonyflake, Twitter,
};
pub use parts::Parts;
pub use range::UnixTime;
pub(crate) use range::ms_window;
pub use shape::Layout;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn presets_match_the_source_documents() {
        let shape = |l: &Layout| -> Vec<(&str, u32)> {
            l.fields().iter().map(|f| (f.name(), f.bits())).collect()
        };
        let t = Layout::TWITTER;
        assert_eq!(
            shape(&t),
            [
                ("unused", 1),
                ("time", 41),
                ("machine", 10),
                ("sequence", 12)
            ]
        );
        assert_eq!(
            (t.tick_ms(), t.epoch_ms(), t.width()),
            (1, 1_288_834_974_657, 64)
        );
        let d = Layout::DISCORD;
        assert_eq!(
            shape(&d),
            [
                ("time", 42),
                ("worker", 5),
                ("process", 5),
                ("sequence", 12)
            ]
        );
        assert_eq!(d.epoch_ms(), 1_420_070_400_000);
        let i = Layout::INSTAGRAM;
        assert_eq!(shape(&i), [("time", 41), ("shard", 13), ("sequence", 10)]);
        assert_eq!(i.epoch_ms(), 1_293_840_000_000);
        let m = Layout::MASTODON;
        assert_eq!(shape(&m), [("time", 48), ("sequence", 16)]);
        assert_eq!(m.epoch_ms(), 0);
        let s = Layout::SONYFLAKE;
        assert_eq!(
            shape(&s),
            [
                ("unused", 1),
                ("time", 39),
                ("sequence", 8),
                ("machine", 16)
            ]
        );
        assert_eq!((s.tick_ms(), s.epoch_ms()), (10, 1_409_529_600_000));
        let n = Layout::nanoflake(1_600_000_000_000).unwrap();
        assert_eq!(
            shape(&n),
            [
                ("unused", 1),
                ("time", 41),
                ("generator", 10),
                ("sequence", 12)
            ]
        );
        let si = Layout::SNOWFLAKE_SI;
        assert_eq!(shape(&si), [("time", 40), ("machine", 5), ("sequence", 8)]);
        assert_eq!((si.width(), si.epoch_ms()), (53, 1_577_836_800_000));
        let o = Layout::OSMIUM;
        assert_eq!(
            shape(&o),
            [
                ("time", 42),
                ("worker", 5),
                ("process", 5),
                ("sequence", 12)
            ]
        );
        assert_eq!(o.epoch_ms(), 1_640_995_200_000);
    }

    #[test]
    fn shifts_place_fields_most_significant_first() {
        let t = Layout::TWITTER;
        assert_eq!(t.time_field().shift(), 22);
        assert_eq!(t.node_field("machine").unwrap().shift(), 12);
        assert_eq!(t.sequence_field().shift(), 0);
        assert_eq!(t.zero_mask(), 1 << 63);
        let s = Layout::SONYFLAKE;
        assert_eq!(s.sequence_field().shift(), 16);
        assert_eq!(s.node_field("machine").unwrap().shift(), 0);
        assert_eq!(Layout::SNOWFLAKE_SI.zero_mask(), !((1u64 << 53) - 1));
    }

    fn problem(builder: LayoutBuilder) -> String {
        match builder.build() {
            Err(Error::InvalidLayout { problem, .. }) => problem.to_string(),
            other => panic!("expected InvalidLayout, got {other:?}"),
        }
    }

    #[test]
    fn invalid_layouts_are_rejected_with_the_reason() {
        let b = Layout::builder;
        assert_eq!(
            problem(b("x", 64).time(41).node("m", 10).sequence(12)),
            "field widths add up to 63 bits, expected 64"
        );
        assert_eq!(
            problem(b("x", 65).time(53).sequence(12)),
            "width 65 bits is out of range (1..=64)"
        );
        assert_eq!(
            problem(b("x", 12).sequence(12)),
            "0 time fields, expected exactly 1"
        );
        assert_eq!(
            problem(b("x", 41).time(41)),
            "0 sequence fields, expected exactly 1"
        );
        assert_eq!(
            problem(b("x", 64).sequence(12).time(52)),
            "the sequence field is above the time field, expected it below"
        );
        assert_eq!(
            problem(b("x", 64).time(40).node("m", 6).node("m", 6).sequence(12)),
            "two node fields are named \"m\", expected distinct names"
        );
        for name in ["", "unused", "time", "sequence"] {
            assert_eq!(
                problem(b("x", 64).time(40).node(name, 12).sequence(12)),
                format!(
                    "node field named {name:?}, expected a non-empty name other than unused, time and sequence"
                )
            );
        }
        assert_eq!(
            problem(b("x", 64).time(52).node("m", 0).sequence(12)),
            "field m has 0 bits, expected at least 1"
        );
        assert_eq!(
            problem(b("x", 64).time(52).sequence(12).tick_ms(0)),
            "tick of 0 ms, expected at least 1 ms"
        );
        let last_epoch = u64::MAX - ((1 << 52) - 1);
        assert_eq!(
            problem(b("x", 64).time(52).sequence(12).epoch_ms(last_epoch + 1)),
            format!(
                "epoch {} ms plus {} ticks of 1 ms passes u64::MAX ms, \
                 expected an epoch of at most {last_epoch} ms",
                last_epoch + 1,
                (1u64 << 52) - 1
            )
        );
        assert!(
            b("x", 64)
                .time(52)
                .sequence(12)
                .epoch_ms(last_epoch)
                .build()
                .is_ok()
        );
        assert_eq!(
            problem(b("x", 64).time(63).sequence(1).tick_ms(3)),
            "63 time bits of 3 ms ticks span more than u64::MAX ms, \
             expected fewer time bits or a shorter tick"
        );
        let nine = b("x", 9)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .time(1)
            .sequence(1)
            .unused(1);
        assert_eq!(problem(nine), "9 fields, expected at most 8");
    }

    #[test]
    fn preset_epoch_rules() {
        assert!(matches!(
            Layout::preset("nanoflake", None),
            Err(Error::EpochRequired { .. })
        ));
        assert_eq!(Layout::preset("nanoflake", Some(5)).unwrap().epoch_ms(), 5);
        assert!(matches!(
            Layout::preset("twitter", Some(1)),
            Err(Error::EpochFixed { .. })
        ));
        assert_eq!(
            Layout::preset("twitter", Some(1_288_834_974_657)).unwrap(),
            Layout::TWITTER
        );
        assert_eq!(
            Layout::preset("snowflake-si", None).unwrap(),
            Layout::SNOWFLAKE_SI
        );
        assert_eq!(
            Layout::preset("snowflake-si", Some(7)).unwrap().epoch_ms(),
            7
        );
        let err = Layout::preset("twiter", None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown layout \"twiter\", expected one of twitter")
        );
    }

    #[test]
    fn ticks_at_rejects_times_outside_the_layout() {
        let t = Layout::TWITTER;
        assert_eq!(t.ticks_at(t.epoch_ms()).unwrap(), 0);
        assert_eq!(t.ticks_at(t.max_unix_ms()).unwrap(), t.max_ticks());
        assert!(matches!(
            t.ticks_at(t.max_unix_ms() + 1),
            Err(Error::TimeOverflow { .. })
        ));
        assert!(matches!(
            t.ticks_at(t.epoch_ms() - 1),
            Err(Error::BeforeEpoch { .. })
        ));
        // Sonyflake: the last tick spans 10 ms.
        let s = Layout::SONYFLAKE;
        assert_eq!(s.ticks_at(s.max_unix_ms() + 9).unwrap(), s.max_ticks());
        assert!(s.ticks_at(s.max_unix_ms() + 10).is_err());
    }
}
