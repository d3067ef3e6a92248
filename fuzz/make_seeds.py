#!/usr/bin/env python3
"""Writes the structured seeds of fuzz/seeds/layout_roundtrip/.

libFuzzer hands layout_roundtrip raw bytes that `arbitrary` 1.x decodes into its `Input`;
this encodes chosen inputs the same way, so the seeds start from realistic and extreme layouts
instead of noise. Rerun after changing `Input` (python3 fuzz/make_seeds.py), and check a seed
with `cargo fuzz fmt layout_roundtrip fuzz/seeds/layout_roundtrip/<file>`.

The encoding (arbitrary 1.5): integers are little-endian bytes; an enum is a u32 `x` choosing
variant `(x * count) >> 32`, then the variant's fields; a Vec that is not the last field is
a sequence of (byte 1, element) ended by a byte 0 (the last field's Vec, the same without the
final 0); structs are their fields in order.
"""

import pathlib
import struct

OUT = pathlib.Path(__file__).resolve().parent / "seeds" / "layout_roundtrip"


def u8(v):
    return struct.pack("<B", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def variant(index, count, *fields):
    x = -(-(index << 32) // count)  # ceil(index * 2^32 / count)
    assert (x * count) >> 32 == index
    return u32(x) + b"".join(fields)


def vec(items, last=False):
    return b"".join(b"\x01" + item for item in items) + (b"" if last else b"\x00")


NAMES = ["machine", "worker", "process", "shard", "generator", "time", "sequence", "unused", ""]


# enum Width { Sum, Explicit(u8) }
def width_sum():
    return variant(0, 2)


def width(w):
    return variant(1, 2, u8(w))


# struct FieldSpec { kind: Kind { Unused, Time, Node(u8), Sequence }, bits: u8 }
def unused(bits):
    return variant(0, 4) + u8(bits)


def time(bits):
    return variant(1, 4) + u8(bits)


def node(name, bits):
    return variant(2, 4, u8(NAMES.index(name))) + u8(bits)


def sequence(bits):
    return variant(3, 4) + u8(bits)


# enum Num { Small(u8), Medium(u32), Any(u64), Max }
def num(v):
    if v < 1 << 8:
        return variant(0, 4, u8(v))
    if v < 1 << 32:
        return variant(1, 4, u32(v))
    return variant(2, 4, u64(v))


# enum Epoch { Num(Num), NearEnd(u8) }
def epoch(v):
    return variant(0, 2, num(v))


def epoch_near_end(back):
    return variant(1, 2, u8(back))


# enum InRange { Zero, Max, Mod(u64) }
ZERO = variant(0, 3)
MAX = variant(1, 3)


def mod(v):
    return variant(2, 3, u64(v))


# enum Bad { BeforeEpoch(u64), PastEnd(u64), Sequence(u64), Node(u8, u64), UnknownNode(u8) }
def before_epoch(back):
    return variant(0, 5, u64(back))


def past_end(extra):
    return variant(1, 5, u64(extra))


def bad_sequence(extra):
    return variant(2, 5, u64(extra))


def bad_node(which, extra):
    return variant(3, 5, u8(which), u64(extra))


def unknown_node(name):
    return variant(4, 5, u8(NAMES.index(name)))


def seed(*, w, fields, tick, ep, ticks, into_tick, seq, nodes, bad, raw):
    unix_ms, raw_seq, raw_nodes = raw
    return b"".join(
        [
            w,
            vec(fields),
            num(tick),
            ep,
            ticks,
            u64(into_tick),
            seq,
            vec(nodes),
            bad,
            u64(unix_ms),
            u64(raw_seq),
            vec([u8(NAMES.index(n)) + u64(v) for n, v in raw_nodes], last=True),
        ]
    )


SEEDS = {
    # Twitter's layout, composing the README's example ID 1541815603606036480.
    "twitter": seed(
        w=width_sum(),
        fields=[unused(1), time(41), node("machine", 10), sequence(12)],
        tick=1,
        ep=epoch(1_288_834_974_657),
        ticks=mod(1_656_432_460_105 - 1_288_834_974_657),
        into_tick=0,
        seq=ZERO,
        nodes=[mod(378)],
        bad=bad_node(0, 0),
        raw=(1_656_432_460_105, 0, [("machine", 378)]),
    ),
    # Sonyflake: 10 ms ticks, sequence above the node; the last tick, every field at its max.
    "sonyflake_max": seed(
        w=width_sum(),
        fields=[unused(1), time(39), sequence(8), node("machine", 16)],
        tick=10,
        ep=epoch(1_409_529_600_000),
        ticks=MAX,
        into_tick=9,
        seq=MAX,
        nodes=[MAX],
        bad=past_end(0),
        raw=(1_409_529_600_000, 256, [("machine", 65_535)]),
    ),
    # Discord: two nodes; an out-of-range sequence.
    "discord": seed(
        w=width(64),
        fields=[time(42), node("worker", 5), node("process", 5), sequence(12)],
        tick=1,
        ep=epoch(1_420_070_400_000),
        ticks=mod(42_000_000_000),
        into_tick=0,
        seq=mod(7),
        nodes=[mod(1), ZERO],
        bad=bad_sequence(0),
        raw=(1_462_015_105_796, 7, [("worker", 1), ("process", 0), ("shard", 1)]),
    ),
    # The widest time field, with the latest epoch allowed: the last tick is u64::MAX ms.
    "end_of_time": seed(
        w=width(64),
        fields=[time(63), sequence(1)],
        tick=1,
        ep=epoch_near_end(1),
        ticks=MAX,
        into_tick=0,
        seq=MAX,
        nodes=[],
        bad=before_epoch(0),
        raw=(2**64 - 1, 1, []),
    ),
    # Snowflake-SI's 53 bits, epoch one millisecond too late: build must fail.
    "epoch_too_late": seed(
        w=width(53),
        fields=[time(40), node("machine", 5), sequence(8)],
        tick=1,
        ep=epoch_near_end(0),
        ticks=ZERO,
        into_tick=0,
        seq=ZERO,
        nodes=[],
        bad=unknown_node("shard"),
        raw=(0, 0, []),
    ),
    # Eight fields, with unused bits between and below the others.
    "eight_fields": seed(
        w=width_sum(),
        fields=[
            unused(1),
            node("shard", 7),
            time(30),
            unused(2),
            node("worker", 4),
            sequence(10),
            unused(3),
            node("generator", 7),
        ],
        tick=250,
        ep=epoch(1_700_000_000_000),
        ticks=mod(12_345),
        into_tick=249,
        seq=mod(1000),
        nodes=[MAX, mod(9), ZERO],
        bad=bad_node(1, 100),
        raw=(1_700_000_000_249, 1023, [("worker", 15), ("worker", 1)]),
    ),
    # Invalid: the sequence above the time field.
    "sequence_above_time": seed(
        w=width_sum(),
        fields=[sequence(12), time(52)],
        tick=1,
        ep=epoch(0),
        ticks=ZERO,
        into_tick=0,
        seq=ZERO,
        nodes=[],
        bad=before_epoch(0),
        raw=(0, 0, []),
    ),
}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in SEEDS.items():
        (OUT / name).write_bytes(data)
        print(f"{OUT / name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
