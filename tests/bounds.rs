//! Pagination bounds (`min_id_at`, `max_id_at`, `id_range`) and JavaScript safety
//! (`is_js_safe`).

use proptest::prelude::*;
use snowmint::{ClockBehind, Error, Generator, Id, Layout, layout::JS_MAX_SAFE_INTEGER};

mod common;

use common::clocks::on_manual_clock;
use common::layouts::presets;

/// A tick-tock layout shaped like sno's: 4 ms ticks, the timeline bit under the time.
const SNO_LIKE: Layout = Layout::builder("sno-like", 64)
    .time(39)
    .tick_tock()
    .node("partition", 8)
    .sequence(16)
    .tick_ms(4)
    .epoch_ms(1_262_304_000_000)
    .build_const();

/// Unused bits below the time field, which the bounds must leave zero.
const GAPPY: Layout = Layout::builder("gappy", 64)
    .unused(2)
    .time(40)
    .unused(3)
    .node("host", 7)
    .sequence(12)
    .tick_ms(3)
    .epoch_ms(1_700_000_000_000)
    .build_const();

/// Every preset, and the two layouts above.
fn layouts() -> Vec<Layout> {
    let mut layouts = presets();
    layouts.extend([SNO_LIKE, GAPPY]);
    layouts
}

/// The ID of `layout` at `unix_ms` with every node field, the sequence and the timeline set by
/// `pick` (0 for the smallest values, `u64::MAX` for the largest, anything else modulo).
fn compose_with(layout: &Layout, unix_ms: u64, pick: [u64; 4]) -> Id {
    let nodes: Vec<(&str, u64)> = layout
        .node_fields()
        .zip(pick)
        .map(|(f, v)| (f.name(), v % (f.max() + 1)))
        .collect();
    let sequence = pick[2] % (layout.max_sequence() + 1);
    let timeline = layout.tick_tock_field().map_or(0, |_| pick[3] % 2);
    layout
        .compose_on_timeline(unix_ms, timeline, &nodes, sequence)
        .unwrap()
}

#[test]
fn bounds_of_a_time_are_its_ticks_smallest_and_largest_ids() {
    for layout in layouts() {
        for ticks in [0, 1, layout.max_ticks() / 3, layout.max_ticks()] {
            let start = layout.epoch_ms() + ticks * layout.tick_ms();
            for t in [start, start + layout.tick_ms() - 1] {
                let (min, max) = (layout.min_id_at(t).unwrap(), layout.max_id_at(t).unwrap());
                assert_eq!(min, compose_with(&layout, t, [0; 4]), "{layout} {t}");
                assert_eq!(max, compose_with(&layout, t, [u64::MAX; 4]), "{layout} {t}");
                for id in [min, max] {
                    let parts = layout.decode(id).unwrap();
                    assert_eq!(parts.ticks(), ticks, "{layout}");
                    assert_eq!(parts.unix_ms(), start, "{layout}");
                }
                // Nothing fits between one tick's largest ID and the next one's smallest.
                if ticks < layout.max_ticks() {
                    let next = layout.min_id_at(start + layout.tick_ms()).unwrap();
                    assert!(max < next, "{layout}");
                    let gap = next.to_u64() - max.to_u64() - 1;
                    let between = Id::from_u64(max.to_u64() + 1);
                    assert_eq!(gap == 0, layout.decode(between).is_ok(), "{layout}");
                }
            }
        }
        assert_eq!(
            layout.max_id_at(layout.max_unix_ms()).unwrap(),
            layout.max_id()
        );
    }
}

#[test]
fn times_outside_the_layout_give_the_layouts_time_errors() {
    for layout in layouts() {
        if layout.epoch_ms() > 0 {
            let before = layout.epoch_ms() - 1;
            for result in [layout.min_id_at(before), layout.max_id_at(before)] {
                assert_eq!(
                    result,
                    Err(Error::BeforeEpoch {
                        layout: layout.name(),
                        unix_ms: before,
                        epoch_ms: layout.epoch_ms()
                    })
                );
            }
        }
        let past = layout.max_unix_ms() + layout.tick_ms();
        for result in [layout.min_id_at(past), layout.max_id_at(past)] {
            assert!(
                matches!(result, Err(Error::TimeOverflow { unix_ms, max_unix_ms, .. })
                    if unix_ms == past && max_unix_ms == layout.max_unix_ms()),
                "{layout}: {result:?}"
            );
        }
    }
    assert_eq!(
        Layout::TWITTER.min_id_at(0).unwrap_err().to_string(),
        "time 0 ms is before the epoch 1288834974657 ms of layout twitter"
    );
}

#[test]
fn a_time_inside_a_sonyflake_tick_maps_to_that_tick() {
    let s = Layout::SONYFLAKE;
    let start = s.epoch_ms() + 1_000 * 10;
    for t in start..start + 10 {
        assert_eq!(s.min_id_at(t).unwrap(), s.min_id_at(start).unwrap());
        assert_eq!(s.max_id_at(t).unwrap(), s.max_id_at(start).unwrap());
    }
    assert!(s.max_id_at(start + 9).unwrap() < s.min_id_at(start + 10).unwrap());
    // 1000 ticks after the epoch: the time field is 1000, above 8 sequence and 16 machine bits.
    assert_eq!(s.min_id_at(start).unwrap().to_u64(), 1000 << 24);
    assert_eq!(
        s.max_id_at(start).unwrap().to_u64(),
        1000 << 24 | ((1 << 24) - 1)
    );
}

#[test]
fn tick_tock_bounds_cover_both_timelines() {
    let t = SNO_LIKE.epoch_ms() + 4 * 1_000_000 + 3;
    let (min, max) = (
        SNO_LIKE.min_id_at(t).unwrap(),
        SNO_LIKE.max_id_at(t).unwrap(),
    );
    for timeline in [0, 1] {
        for (partition, sequence) in [(0, 0), (255, 65_535), (7, 9)] {
            let id = SNO_LIKE
                .compose_on_timeline(t, timeline, &[("partition", partition)], sequence)
                .unwrap();
            assert!(min <= id && id <= max, "timeline {timeline}: {id:?}");
        }
    }
    assert_eq!(SNO_LIKE.decode(min).unwrap().timeline(), Some(0));
    assert_eq!(SNO_LIKE.decode(max).unwrap().timeline(), Some(1));
}

#[test]
fn a_half_open_id_range_selects_the_ids_a_generator_minted_in_a_time_range() {
    // Mint on both timelines of a tick-tock layout, stepping the clock back once.
    let first = SNO_LIKE.epoch_ms() + 40_000;
    let (generator, clock) = on_manual_clock(
        Generator::builder(SNO_LIKE)
            .node("partition", 3)
            .on_clock_behind(ClockBehind::TickTock { max_ms: 0 }),
        first,
    );
    let mut minted = Vec::new();
    let mut t = first;
    for step in 0..400u64 {
        t = if step == 200 { t - 150 } else { t + step % 7 };
        clock.set(t);
        for _ in 0..step % 3 + 1 {
            minted.push((t, generator.mint().unwrap()));
        }
    }
    assert_eq!(
        generator.stats().toggles,
        1,
        "the step back moved to timeline 1"
    );
    for (t0, t1) in [
        (first, t + 1),
        (first + 100, first + 300),
        (first + 5, first + 6),
    ] {
        let (from, to) = (
            SNO_LIKE.min_id_at(t0).unwrap(),
            SNO_LIKE.min_id_at(t1).unwrap(),
        );
        // A tick holds 4 ms: selecting by ID is selecting by tick.
        let tick = |ms: u64| (ms - SNO_LIKE.epoch_ms()) / 4;
        for &(at, id) in &minted {
            let in_time = tick(t0) <= tick(at) && tick(at) < tick(t1);
            assert_eq!(from <= id && id < to, in_time, "{at} in [{t0}, {t1})");
        }
    }
}

#[test]
fn snowflake_si_never_passes_the_javascript_limit_up_to_its_last_time() {
    for epoch_ms in [Layout::SNOWFLAKE_SI.epoch_ms(), 0, 1_047_972_019_224] {
        let si = Layout::SNOWFLAKE_SI.with_epoch_ms(epoch_ms).unwrap();
        assert!(si.is_js_safe());
        let largest = si
            .compose(si.max_unix_ms(), &[("machine", 31)], 255)
            .unwrap();
        assert_eq!(largest.to_u64(), JS_MAX_SAFE_INTEGER);
        assert_eq!(largest, si.max_id());
        assert_eq!(si.max_id_at(si.max_unix_ms()).unwrap(), largest);
        // A JavaScript number (an f64) holds it exactly.
        assert_eq!(largest.to_u64() as f64 as u64, largest.to_u64());
        // Past its last time there is no ID to mint, rather than one past the limit.
        assert!(si.compose(si.max_unix_ms() + 1, &[], 0).is_err());
    }
    assert_eq!(JS_MAX_SAFE_INTEGER, 9_007_199_254_740_991);
}

#[test]
fn only_snowflake_si_of_the_presets_is_javascript_safe() {
    let safe: Vec<(&str, bool)> = layouts()[..8]
        .iter()
        .map(|l| (l.name(), l.is_js_safe()))
        .collect();
    assert_eq!(
        safe,
        [
            ("twitter", false),
            ("discord", false),
            ("instagram", false),
            ("mastodon", false),
            ("sonyflake", false),
            ("nanoflake", false),
            ("snowflake-si", true),
            ("osmium", false),
        ]
    );
    // Twitter's IDs reach 2^53 at 2^31 ms (about 24.9 days) after its epoch.
    let t = Layout::TWITTER.epoch_ms() + (1 << 31);
    assert_eq!(Layout::TWITTER.min_id_at(t).unwrap().to_u64(), 1 << 53);
    assert!(Layout::TWITTER.max_id_at(t - 1).unwrap().to_u64() <= JS_MAX_SAFE_INTEGER);
}

#[test]
fn javascript_safety_depends_on_the_used_bits_not_the_width() {
    let b = Layout::builder;
    assert!(
        b("w53", 53)
            .time(41)
            .sequence(12)
            .build()
            .unwrap()
            .is_js_safe()
    );
    assert!(
        !b("w54", 54)
            .time(42)
            .sequence(12)
            .build()
            .unwrap()
            .is_js_safe()
    );
    let top_unused = b("top", 64)
        .unused(11)
        .time(41)
        .sequence(12)
        .build()
        .unwrap();
    assert!(top_unused.is_js_safe());
    let low_unused = b("low", 64)
        .unused(10)
        .time(41)
        .sequence(12)
        .unused(1)
        .build()
        .unwrap();
    assert!(!low_unused.is_js_safe());
}

#[test]
fn an_id_range_of_times_inside_the_layout_runs_from_the_first_ticks_smallest_to_the_last_ticks_largest_id()
 {
    for layout in layouts() {
        let tick = layout.tick_ms();
        let t0 = layout.epoch_ms() + 5 * tick + tick / 2;
        let t1 = t0 + 7 * tick;
        let expected = layout.min_id_at(t0).unwrap()..=layout.max_id_at(t1).unwrap();
        assert_eq!(layout.id_range(t0..=t1), Some(expected.clone()), "{layout}");
        assert_eq!(layout.id_range(t0..t1 + 1), Some(expected), "{layout}");
        let single = layout.min_id_at(t0).unwrap()..=layout.max_id_at(t0).unwrap();
        assert_eq!(layout.id_range(t0..=t0), Some(single), "{layout}");
    }
}

#[test]
fn open_ends_and_times_outside_the_layout_clamp_to_its_first_and_last_ids() {
    for layout in layouts() {
        let first = Id::from_u64(0);
        let last = layout.max_id();
        let inside = layout.epoch_ms() + 3 * layout.tick_ms();
        assert_eq!(layout.id_range::<u64>(..), Some(first..=last), "{layout}");
        assert_eq!(layout.id_range(0..), Some(first..=last), "{layout}");
        assert_eq!(layout.id_range(..=u64::MAX), Some(first..=last), "{layout}");
        let to_inside = layout.id_range(0..=inside).unwrap();
        assert_eq!(*to_inside.start(), first, "{layout}");
        assert_eq!(
            *to_inside.end(),
            layout.max_id_at(inside).unwrap(),
            "{layout}"
        );
        let from_inside = layout.id_range(inside..).unwrap();
        assert_eq!(
            *from_inside.start(),
            layout.min_id_at(inside).unwrap(),
            "{layout}"
        );
        assert_eq!(*from_inside.end(), last, "{layout}");
    }
}

#[test]
fn an_empty_range_or_one_wholly_outside_the_layout_gives_none() {
    for layout in layouts() {
        let inside = layout.epoch_ms() + 3 * layout.tick_ms();
        assert_eq!(layout.id_range(inside..inside), None, "{layout}");
        assert_eq!(layout.id_range(inside + 1..=inside), None, "{layout}");
        assert_eq!(layout.id_range(..layout.epoch_ms()), None, "{layout}");
        if layout.max_unix_ms() < u64::MAX - layout.tick_ms() {
            let past = layout.max_unix_ms() + layout.tick_ms();
            assert_eq!(layout.id_range(past..), None, "{layout}");
        }
    }
}

#[test]
fn a_range_of_system_times_gives_the_range_of_its_unix_milliseconds() {
    use std::time::{Duration, UNIX_EPOCH};
    let t0 = 1_656_432_460_000;
    let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
    let layout = Layout::TWITTER;
    assert_eq!(
        layout.id_range(at(t0)..at(t0 + 10)),
        layout.id_range(t0..t0 + 10)
    );
    assert_eq!(
        layout.id_range(at(t0)..=at(t0 + 10)),
        layout.id_range(t0..=t0 + 10)
    );
    // A time inside a millisecond stands for the whole millisecond, at either end.
    let inside = at(t0 + 10) + Duration::from_micros(500);
    assert_eq!(
        layout.id_range(at(t0)..inside),
        layout.id_range(t0..=t0 + 10)
    );
    assert_eq!(
        layout.id_range((
            std::ops::Bound::Excluded(inside),
            std::ops::Bound::Unbounded
        )),
        layout.id_range(t0 + 10..)
    );
    // Before 1970 clamps like any time before the epoch.
    let before_1970 = UNIX_EPOCH - Duration::from_secs(1);
    assert_eq!(layout.id_range(before_1970..at(t0)), layout.id_range(0..t0));
    assert_eq!(layout.id_range(..before_1970), None);
}

proptest! {
    #[test]
    fn every_id_composed_at_a_time_lies_within_its_bounds(
        which in 0usize..10,
        at in any::<u64>(),
        pick in any::<[u64; 4]>(),
        later in any::<u64>(),
        pick_later in any::<[u64; 4]>(),
    ) {
        let layout = layouts()[which];
        let span = layout.max_unix_ms() - layout.epoch_ms() + layout.tick_ms();
        let t0 = layout.epoch_ms() + at % span;
        let id = compose_with(&layout, t0, pick);
        let (min, max) = (layout.min_id_at(t0).unwrap(), layout.max_id_at(t0).unwrap());
        prop_assert!(min <= id && id <= max, "{} {}: {:?}", layout, t0, id);

        // A later time in a later tick: its lower bound is above every ID of t0.
        let t1 = t0 + later % (layout.max_unix_ms() + layout.tick_ms() - t0);
        let later_id = compose_with(&layout, t1, pick_later);
        let (min1, max1) = (layout.min_id_at(t1).unwrap(), layout.max_id_at(t1).unwrap());
        prop_assert!(min1 <= later_id && later_id <= max1);
        let window = layout.id_range(t0..=t1).unwrap();
        prop_assert!(window.contains(&id) && window.contains(&later_id));
        prop_assert_eq!(window, min..=max1);
        if layout.ticks_at(t1).unwrap() > layout.ticks_at(t0).unwrap() {
            prop_assert!(min1 > max && min1 > id);
            prop_assert!(later_id > id);
        } else {
            prop_assert_eq!((min1, max1), (min, max));
        }
    }
}
