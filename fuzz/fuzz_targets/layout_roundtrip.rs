//! Arbitrary custom layouts through `Layout::builder`: `build` never panics and accepts exactly
//! the layouts a model of the rules accepts; a built layout's fields tile its width; in-range
//! values compose and decode back unchanged; out-of-range values are an error, never an ID.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::{
    Error, Layout,
    layout::{FieldKind, LayoutBuilder},
};

/// Node names, including ones that collide with the fixed field names.
const NAMES: [&str; 10] = [
    "machine",
    "worker",
    "process",
    "shard",
    "generator",
    "time",
    "sequence",
    "unused",
    "tick",
    "",
];

#[derive(Debug, Arbitrary)]
enum Kind {
    Unused,
    Time,
    Node(u8),
    Sequence,
    /// Always one bit: `LayoutBuilder::tick_tock` takes no width.
    TickTock,
}

#[derive(Debug, Arbitrary)]
struct FieldSpec {
    kind: Kind,
    /// Taken modulo 72: zero, every valid width and a few too wide.
    bits: u8,
}

#[derive(Debug, Arbitrary)]
enum Width {
    /// The sum of the field widths, so that most inputs get past the width check.
    Sum,
    Explicit(u8),
}

/// A u64 biased towards small values and edges.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Num {
    Small(u8),
    Medium(u32),
    Any(u64),
    Max,
}

impl Num {
    fn get(self) -> u64 {
        match self {
            Num::Small(v) => u64::from(v),
            Num::Medium(v) => u64::from(v),
            Num::Any(v) => v,
            Num::Max => u64::MAX,
        }
    }
}

/// The epoch: any number, or one near the latest epoch the layout allows (where the last
/// representable time is `u64::MAX` ms), to probe the end-of-time boundary.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Epoch {
    Num(Num),
    /// The latest allowed epoch plus one, minus this: 0 is just too late, 1 is the latest.
    NearEnd(u8),
}

impl Epoch {
    fn get(self, specs: &[(FieldKind, &'static str, u8)], tick_ms: u64) -> u64 {
        match self {
            Epoch::Num(n) => n.get(),
            Epoch::NearEnd(back) => {
                let time_bits = specs
                    .iter()
                    .find(|&&(kind, _, _)| kind == FieldKind::Time)
                    .map_or(0, |&(_, _, bits)| u32::from(bits));
                let max_ticks = match time_bits {
                    0 => 0,
                    1..=63 => (1u64 << time_bits) - 1,
                    _ => u64::MAX,
                };
                max_ticks
                    .checked_mul(tick_ms)
                    .map_or(u64::MAX, |span| u64::MAX - span)
                    .wrapping_add(1)
                    .wrapping_sub(u64::from(back))
            }
        }
    }
}

/// A value in `0..=max`.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum InRange {
    Zero,
    Max,
    Mod(u64),
}

impl InRange {
    fn get(self, max: u64) -> u64 {
        match self {
            InRange::Zero => 0,
            InRange::Max => max,
            InRange::Mod(v) => match max.checked_add(1) {
                Some(n) => v % n,
                None => v,
            },
        }
    }
}

/// One way to make `compose` fail.
#[derive(Debug, Arbitrary)]
enum Bad {
    BeforeEpoch(u64),
    PastEnd(u64),
    Sequence(u64),
    Node(u8, u64),
    UnknownNode(u8),
}

#[derive(Debug, Arbitrary)]
struct Input {
    width: Width,
    fields: Vec<FieldSpec>,
    tick_ms: Num,
    epoch_ms: Epoch,
    ticks: InRange,
    /// Milliseconds into the tick (modulo tick_ms): compose floors the time to its tick.
    into_tick: u64,
    sequence: InRange,
    nodes: Vec<InRange>,
    bad: Bad,
    raw: (u64, u64, Vec<(u8, u64)>),
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let specs: Vec<(FieldKind, &'static str, u8)> = input
        .fields
        .iter()
        .take(Layout::MAX_FIELDS + 2)
        .map(|f| {
            let bits = f.bits % 72;
            match f.kind {
                Kind::Unused => (FieldKind::Unused, "unused", bits),
                Kind::Time => (FieldKind::Time, "time", bits),
                Kind::Node(n) => (FieldKind::Node, NAMES[usize::from(n) % NAMES.len()], bits),
                Kind::Sequence => (FieldKind::Sequence, "sequence", bits),
                Kind::TickTock => (FieldKind::TickTock, "tick", 1),
            }
        })
        .collect();
    let sum: u32 = specs.iter().map(|&(_, _, bits)| u32::from(bits)).sum();
    let width = match input.width {
        Width::Sum => u8::try_from(sum).unwrap_or(u8::MAX),
        Width::Explicit(w) => w,
    };
    let tick_ms = input.tick_ms.get();
    let epoch_ms = input.epoch_ms.get(&specs, tick_ms);
    let mut builder: LayoutBuilder = Layout::builder("fuzz", width);
    for &(kind, name, bits) in &specs {
        builder = match kind {
            FieldKind::Unused => builder.unused(bits),
            FieldKind::Time => builder.time(bits),
            FieldKind::Node => builder.node(name, bits),
            FieldKind::Sequence => builder.sequence(bits),
            FieldKind::TickTock => builder.tick_tock(),
        };
    }
    let built = builder.tick_ms(tick_ms).epoch_ms(epoch_ms).build();

    let expected = model(&specs, width, tick_ms, epoch_ms);
    let layout = match (built, expected) {
        (Ok(layout), true) => layout,
        (Err(Error::InvalidLayout { layout, problem }), false) => {
            assert_eq!(layout, "fuzz");
            assert!(!problem.to_string().is_empty());
            return;
        }
        (built, expected) => {
            panic!(
                "build of {specs:?} width {width} tick {tick_ms} epoch {epoch_ms} gave {built:?}, model says valid = {expected:?}"
            )
        }
    };

    check_shape(&layout, &specs, width, tick_ms, epoch_ms);
    round_trip(&layout, &input);
    out_of_range(&layout, &input.bad);
    raw_compose(&layout, &input.raw);
}

/// Whether `build` must accept the layout.
fn model(specs: &[(FieldKind, &'static str, u8)], width: u8, tick_ms: u64, epoch_ms: u64) -> bool {
    if !(1..=64).contains(&width) || specs.len() > Layout::MAX_FIELDS {
        return false;
    }
    if specs.iter().any(|&(_, _, bits)| bits == 0) {
        return false;
    }
    let nodes: Vec<&str> = specs
        .iter()
        .filter(|&&(kind, _, _)| kind == FieldKind::Node)
        .map(|&(_, name, _)| name)
        .collect();
    for (i, name) in nodes.iter().enumerate() {
        if nodes[..i].contains(name) || ["", "unused", "time", "sequence", "tick"].contains(name) {
            return false;
        }
    }
    let sum: u32 = specs.iter().map(|&(_, _, bits)| u32::from(bits)).sum();
    let position = |k| specs.iter().position(|&(kind, _, _)| kind == k);
    let count = |k| specs.iter().filter(|&&(kind, _, _)| kind == k).count();
    sum == u32::from(width)
        && count(FieldKind::Time) == 1
        && count(FieldKind::Sequence) == 1
        && position(FieldKind::Sequence) > position(FieldKind::Time)
        && match count(FieldKind::TickTock) {
            0 => true,
            1 => {
                position(FieldKind::Time) < position(FieldKind::TickTock)
                    && position(FieldKind::TickTock) < position(FieldKind::Sequence)
            }
            _ => false,
        }
        && tick_ms >= 1
        && {
            let time_bits = specs[position(FieldKind::Time).unwrap()].2;
            let max_ticks = u64::MAX >> (64 - u32::from(time_bits));
            max_ticks
                .checked_mul(tick_ms)
                .and_then(|span| span.checked_add(epoch_ms))
                .is_some()
        }
}

/// The built layout is what was asked for, and its fields tile `0..width` without overlap.
fn check_shape(
    layout: &Layout,
    specs: &[(FieldKind, &'static str, u8)],
    width: u8,
    tick_ms: u64,
    epoch_ms: u64,
) {
    assert_eq!(layout.name(), "fuzz");
    assert_eq!(layout.width(), u32::from(width));
    assert_eq!(layout.tick_ms(), tick_ms);
    assert_eq!(layout.epoch_ms(), epoch_ms);
    let fields = layout.fields();
    assert_eq!(fields.len(), specs.len());
    assert_eq!(
        fields.iter().map(|f| f.bits()).sum::<u32>(),
        layout.width(),
        "{layout:?}"
    );
    let mut top = layout.width();
    let mut union = 0u64;
    for (field, &(kind, name, bits)) in fields.iter().zip(specs) {
        assert_eq!(
            (field.kind(), field.name(), field.bits()),
            (kind, name, u32::from(bits))
        );
        assert_eq!(field.shift() + field.bits(), top, "{layout:?}");
        top = field.shift();
        assert_eq!(field.mask() >> field.shift(), field.max());
        assert_eq!(field.max().count_ones(), field.bits());
        assert_eq!(union & field.mask(), 0, "overlapping fields in {layout:?}");
        union |= field.mask();
        if kind == FieldKind::Node {
            assert_eq!(layout.node_field(name), Some(field));
        }
    }
    assert_eq!(top, 0);
    let all = u64::MAX >> (64 - layout.width());
    assert_eq!(union, all);
    let used = fields
        .iter()
        .filter(|f| f.kind() != FieldKind::Unused)
        .fold(0, |m, f| m | f.mask());
    assert_eq!(layout.zero_mask(), !used);
    assert_eq!(layout.time_field().kind(), FieldKind::Time);
    assert_eq!(layout.sequence_field().kind(), FieldKind::Sequence);
    assert!(layout.sequence_field().shift() < layout.time_field().shift());
    assert_eq!(layout.max_ticks(), layout.time_field().max());
    assert_eq!(layout.max_sequence(), layout.sequence_field().max());
    assert_eq!(
        layout
            .max_ticks()
            .checked_mul(tick_ms)
            .and_then(|span| span.checked_add(epoch_ms)),
        Some(layout.max_unix_ms())
    );
    assert_eq!(layout.with_epoch_ms(epoch_ms), Ok(*layout));
    assert_eq!(layout.ticks_at(epoch_ms), Ok(0));
    assert_eq!(
        layout.ticks_at(layout.max_unix_ms()),
        Ok(layout.max_ticks())
    );
    let _ = format!("{layout} {layout:?}");
}

fn round_trip(layout: &Layout, input: &Input) {
    let tick_ms = layout.tick_ms();
    let ticks = input.ticks.get(layout.max_ticks());
    let start = layout.epoch_ms() + ticks * tick_ms; // checked by check_shape's max_unix_ms
    // Any millisecond inside the tick floors to it (where that millisecond is a u64).
    let unix_ms = start
        .checked_add(input.into_tick % tick_ms)
        .unwrap_or(start);
    let sequence = input.sequence.get(layout.max_sequence());
    let node_fields: Vec<_> = layout.node_fields().copied().collect();
    let nodes: Vec<(&str, u64)> = node_fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let pick = input.nodes.get(i).copied().unwrap_or(InRange::Zero);
            (f.name(), pick.get(f.max()))
        })
        .collect();

    assert_eq!(layout.ticks_at(unix_ms), Ok(ticks));
    let id = layout
        .compose(unix_ms, &nodes, sequence)
        .unwrap_or_else(|e| panic!("compose of in-range values failed on {layout:?}: {e}"));
    assert_eq!(id.to_u64() & layout.zero_mask(), 0, "{layout:?} {id:?}");
    let parts = layout
        .decode(id)
        .unwrap_or_else(|e| panic!("decode of a composed id failed on {layout:?}: {e}"));
    assert_eq!(parts.ticks(), ticks);
    assert_eq!(parts.unix_ms(), start);
    assert_eq!(parts.sequence(), sequence);
    assert_eq!(parts.nodes().collect::<Vec<_>>(), nodes);
    for &(name, value) in &nodes {
        assert_eq!(parts.node(name), Some(value));
    }
    // Fields compose independently: the ID is the OR of each field's value at its shift.
    let mut expected =
        ticks << layout.time_field().shift() | sequence << layout.sequence_field().shift();
    for (field, &(_, value)) in node_fields.iter().zip(&nodes) {
        expected |= value << field.shift();
    }
    assert_eq!(id.to_u64(), expected);
    // Leaving the nodes out means zeros.
    let bare = layout.compose(unix_ms, &[], sequence).expect("no nodes");
    assert_eq!(
        bare.to_u64() & node_fields.iter().fold(0, |m, f| m | f.mask()),
        0
    );
    // The decimal form goes through Layout::parse.
    assert_eq!(layout.parse(&id.to_string()), Ok(id));
    let _ = parts.time();
    let _ = format!("{parts} {parts:?}");
}

fn out_of_range(layout: &Layout, bad: &Bad) {
    let epoch = layout.epoch_ms();
    let (max_seq, max_ticks) = (layout.max_sequence(), layout.max_ticks());
    let result = match *bad {
        Bad::BeforeEpoch(back) => {
            if epoch == 0 {
                return;
            }
            let unix_ms = epoch - 1 - back % epoch;
            let r = layout.compose(unix_ms, &[], 0);
            assert!(matches!(r, Err(Error::BeforeEpoch { .. })), "{r:?}");
            assert!(layout.ticks_at(unix_ms).is_err());
            r
        }
        Bad::PastEnd(extra) => {
            // The first millisecond past the last tick, if it is a u64.
            let Some(end) = layout.max_unix_ms().checked_add(layout.tick_ms()) else {
                return;
            };
            let unix_ms = end.saturating_add(extra % 1_000_000);
            let r = layout.compose(unix_ms, &[], 0);
            assert!(matches!(r, Err(Error::TimeOverflow { .. })), "{r:?}");
            assert!(layout.ticks_at(unix_ms).is_err());
            assert_eq!(layout.ticks_at(end - 1), Ok(max_ticks));
            r
        }
        Bad::Sequence(extra) => {
            let Some(first_bad) = max_seq.checked_add(1) else {
                return;
            };
            let r = layout.compose(epoch, &[], first_bad.saturating_add(extra));
            assert!(matches!(r, Err(Error::SequenceOutOfRange { .. })), "{r:?}");
            r
        }
        Bad::Node(which, extra) => {
            let fields: Vec<_> = layout.node_fields().collect();
            if fields.is_empty() {
                return;
            }
            let field = fields[usize::from(which) % fields.len()];
            let Some(first_bad) = field.max().checked_add(1) else {
                return;
            };
            let r = layout.compose(epoch, &[(field.name(), first_bad.saturating_add(extra))], 0);
            assert!(matches!(r, Err(Error::NodeOutOfRange { .. })), "{r:?}");
            r
        }
        Bad::UnknownNode(which) => {
            let name = NAMES[usize::from(which) % NAMES.len()];
            if layout.node_field(name).is_some() {
                return;
            }
            let r = layout.compose(epoch, &[(name, 0)], 0);
            assert!(matches!(r, Err(Error::UnknownNodeField { .. })), "{r:?}");
            r
        }
    };
    let _ = result.map_err(|e| e.to_string());
}

/// Raw (mostly out-of-range) arguments: `compose` is Ok exactly when every value is in range,
/// and then decodes back to them.
fn raw_compose(layout: &Layout, (unix_ms, sequence, raw_nodes): &(u64, u64, Vec<(u8, u64)>)) {
    let (unix_ms, sequence) = (*unix_ms, *sequence);
    let nodes: Vec<(&str, u64)> = raw_nodes
        .iter()
        .take(4)
        .map(|&(n, v)| (NAMES[usize::from(n) % NAMES.len()], v))
        .collect();
    let time_ok = unix_ms >= layout.epoch_ms()
        && (unix_ms - layout.epoch_ms()) / layout.tick_ms() <= layout.max_ticks();
    let sequence_ok = sequence <= layout.max_sequence();
    let nodes_ok = nodes.iter().enumerate().all(|(i, &(name, value))| {
        layout.node_field(name).is_some_and(|f| value <= f.max())
            && !nodes[..i].iter().any(|&(earlier, _)| earlier == name)
    });
    let result = layout.compose(unix_ms, &nodes, sequence);
    match result {
        Ok(id) => {
            assert!(
                time_ok && sequence_ok && nodes_ok,
                "{layout:?} accepted {unix_ms} {nodes:?} {sequence}"
            );
            let parts = layout.decode(id).expect("composed id decodes");
            assert_eq!(
                parts.ticks(),
                (unix_ms - layout.epoch_ms()) / layout.tick_ms()
            );
            assert_eq!(parts.sequence(), sequence);
            for &(name, value) in &nodes {
                assert_eq!(parts.node(name), Some(value));
            }
        }
        Err(err) => {
            assert!(
                !(time_ok && sequence_ok && nodes_ok),
                "{layout:?} rejected in-range {unix_ms} {nodes:?} {sequence}: {err}"
            );
            let _ = err.to_string();
        }
    }
}
