//! Snapshot decoding into `resume`: whatever JSON a snapshot file holds, decoding never
//! panics; a snapshot that decodes round-trips through serde; and a generator resumed from it
//! either is refused at build or mints only IDs the snapshot's generator cannot have minted:
//! above its last state on its timeline, or above the other timeline's high-water tick.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use snowmint::clock::ManualClock;
use snowmint::{ClockBehind, Error, Generator, Layout, Snapshot};

/// A layout with a tick-tock bit and a small sequence, so toggles and full ticks are near.
const TT: Layout = Layout::builder("fuzz-tt", 64)
    .unused(9)
    .time(41)
    .tick_tock()
    .node("machine", 9)
    .sequence(4)
    .epoch_ms(1_288_834_974_657)
    .build_const();

#[derive(Arbitrary, Debug)]
enum Input {
    /// Bytes decoded as they are.
    Raw(Vec<u8>),
    /// A well-formed snapshot of one of a few layouts, with arbitrary state.
    Fields(Fields),
}

#[derive(Arbitrary, Debug)]
struct Fields {
    layout: u8,
    /// Node values, and whether to name a field the layout lacks.
    node: u64,
    wrong_node: bool,
    last_tick: u64,
    sequence: u64,
    timeline: u64,
    other_timeline_tick: u64,
    range: Option<(u64, u64)>,
    /// The clock when resumed: how far from the snapshot's last time, and which way.
    clock_ms: u32,
    clock_behind: bool,
    tick_tock: bool,
    mints: u8,
}

fn layout(choice: u8) -> Layout {
    match choice % 4 {
        0 => TT,
        1 => Layout::TWITTER,
        2 => Layout::DISCORD,
        _ => Layout::SONYFLAKE,
    }
}

/// The JSON of a snapshot with `fields`: a real snapshot's form, its values replaced.
fn json(fields: &Fields) -> Value {
    let layout = layout(fields.layout);
    let nodes: Vec<Value> = layout
        .node_fields()
        .map(|f| {
            let name = if fields.wrong_node { "rack" } else { f.name() };
            json!([name, fields.node & f.max()])
        })
        .collect();
    let mut value = json!({
        "layout": serde_json::to_value(layout).expect("a layout serializes"),
        "nodes": nodes,
        "last_tick": fields.last_tick,
        "sequence": fields.sequence,
        "timeline": fields.timeline,
        "other_timeline_tick": fields.other_timeline_tick,
    });
    if let Some((start, end)) = fields.range {
        value["sequence_range"] = json!({ "start": start, "end": end });
    }
    value
}

fuzz_target!(|input: Input| {
    let (bytes, fields) = match &input {
        Input::Raw(bytes) => (bytes.clone(), None),
        Input::Fields(fields) => (serde_json::to_vec(&json(fields)).unwrap(), Some(fields)),
    };
    let Ok(snapshot) = serde_json::from_slice::<Snapshot>(&bytes) else {
        return;
    };
    // What decodes, encodes to the same snapshot.
    let again: Snapshot = serde_json::from_value(serde_json::to_value(&snapshot).unwrap())
        .expect("an encoded snapshot decodes");
    assert_eq!(again, snapshot);

    let Some(fields) = fields else { return };
    let layout = snapshot.layout;
    let last_ms = layout
        .epoch_ms()
        .saturating_add(snapshot.last_tick.saturating_mul(layout.tick_ms()));
    let now = if fields.clock_behind {
        last_ms.saturating_sub(u64::from(fields.clock_ms))
    } else {
        last_ms.saturating_add(u64::from(fields.clock_ms))
    };
    // Never a policy that waits: the manual clock would never catch up.
    let policy = if fields.tick_tock && layout.tick_tock_field().is_some() {
        ClockBehind::TickTock { max_ms: 0 }
    } else {
        ClockBehind::Error
    };
    let built = Generator::resume(&snapshot)
        .clock(ManualClock::new(now))
        .on_clock_behind(policy)
        .build();
    let generator = match built {
        Ok(generator) => generator,
        Err(
            Error::InvalidSnapshot { .. }
            | Error::InvalidSequenceRange { .. }
            | Error::NodeOutOfRange { .. }
            | Error::UnknownNodeField { .. }
            | Error::NodeNotSet { .. },
        ) => return,
        Err(err) => panic!("resume of {snapshot:?} failed with {err:?}"),
    };
    for _ in 0..fields.mints % 40 {
        let id = match generator.try_mint() {
            Ok(id) => id,
            Err(
                Error::ClockBehind { .. }
                | Error::SequenceExhausted { .. }
                | Error::LayoutExhausted { .. }
                | Error::TimeOverflow { .. }
                | Error::BeforeEpoch { .. }
                | Error::EpochTick { .. },
            ) => break,
            Err(err) => panic!("mint after resuming {snapshot:?}: {err:?}"),
        };
        let parts = layout.decode(id).expect("an id of the layout");
        let timeline = parts.timeline().unwrap_or(0);
        let (tick, sequence) = (parts.ticks(), parts.sequence());
        if timeline == snapshot.timeline {
            assert!(
                (tick, sequence) > (snapshot.last_tick, snapshot.sequence),
                "{parts:?} is not above the snapshot's last state {snapshot:?}"
            );
        } else {
            assert!(
                tick > snapshot.other_timeline_tick,
                "{parts:?} is not above the other timeline's mark {snapshot:?}"
            );
        }
        assert!(
            snapshot.sequence_range.contains(&sequence),
            "{parts:?} {snapshot:?}"
        );
    }
});
