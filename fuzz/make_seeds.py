#!/usr/bin/env python3
"""Writes the seeds of fuzz/seeds/layout_roundtrip/, fuzz/seeds/generator_clock/,
fuzz/seeds/sno_text/, fuzz/seeds/decode_text/, fuzz/seeds/generator_lagging_clock/,
fuzz/seeds/generator_cached_clock/, fuzz/seeds/mark_file/, fuzz/seeds/snapshot_resume/
and fuzz/seeds/sharded_runs/.

libFuzzer hands these targets raw bytes that `arbitrary` 1.x decodes into their `Input`; this
encodes chosen inputs the same way, so the seeds start from realistic and extreme cases instead
of noise. Rerun after changing either `Input` (python3 fuzz/make_seeds.py), and check a seed
with `cargo fuzz fmt --sanitizer none <target> fuzz/seeds/<target>/<file>`.

The encoding (arbitrary 1.5): integers are little-endian bytes; a bool is a byte (odd: true);
an enum is a u32 `x` choosing variant `(x * count) >> 32`, then the variant's fields; an Option
is a bool, then the value if true; a Vec that is not the last field is a sequence of (byte 1,
element) ended by a byte 0 (the last field's Vec, the same without the final 0); structs are
their fields in order.
"""

import pathlib
import struct

SEEDS_DIR = pathlib.Path(__file__).resolve().parent / "seeds"


def u8(v):
    return struct.pack("<B", v)


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def i32(v):
    return struct.pack("<i", v)


def boolean(b):
    return u8(1 if b else 0)


def variant(index, count, *fields):
    x = -(-(index << 32) // count)  # ceil(index * 2^32 / count)
    assert (x * count) >> 32 == index
    return u32(x) + b"".join(fields)


def vec(items, last=False):
    return b"".join(b"\x01" + item for item in items) + (b"" if last else b"\x00")


# ---- layout_roundtrip ----

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


# ---- generator_clock ----

# enum Policy { Error, Wait, TickTock }
POLICIES = ["Error", "Wait", "TickTock"]


def policy(name):
    return variant(POLICIES.index(name), 3)


# enum RangeSpec { Default, Whole, Sub { start, len }, Single(u16), Top(u16), Empty(u16),
#                  PastEnd { start, extra }, Raw { start: u64, end: u64 } }
RANGE_DEFAULT = variant(0, 8)
RANGE_WHOLE = variant(1, 8)


def range_sub(start, length):
    """`start..=start + length` (taken modulo the field)."""
    return variant(2, 8, u16(start), u16(length))


def range_single(v):
    return variant(3, 8, u16(v))


def range_top(n):
    """The top `n + 1` values."""
    return variant(4, 8, u16(n))


def range_empty(n):
    """`1 + n..=n` (n modulo max + 2)."""
    return variant(5, 8, u16(n))


def range_past_end(start, extra):
    return variant(6, 8, u16(start), u16(extra))


def range_raw(start, end):
    return variant(7, 8, u64(start), u64(end))


def borrow(ticks):
    """The byte `borrow_ticks` maps to `ticks` (None: unbounded)."""
    if ticks is None:
        return u8(255)
    if ticks == 0:
        return u8(0)
    if ticks <= 4:
        return u8(128 + ticks - 1)
    assert ticks <= 30
    return u8(224 + ticks)


def batch(n):
    """The u16 `batch_len` maps to `n`."""
    assert 0 <= n < 4_500
    return u16(n if n < 12 else 0x8000 | n)


# enum Far { BeforeEpoch(u16), EpochTick(u8), FirstTicks { ticks, ms }, LastTicks { back, ms },
#            PastEnd(u16), Jump(i32), Raw(u64) }
def before_epoch_ms(back):
    return variant(0, 7, u16(back))


def epoch_tick(ms):
    return variant(1, 7, u8(ms))


def first_ticks(ticks, ms=0):
    return variant(2, 7, u8(ticks), u8(ms))


def last_ticks(back, ms=0):
    return variant(3, 7, u8(back), u8(ms))


def past_end_ms(extra):
    return variant(4, 7, u16(extra))


def jump(ticks):
    return variant(5, 7, i32(ticks))


def raw_ms(unix_ms):
    return variant(6, 7, u64(unix_ms))


# enum Op { Step { ticks, ms }, NearLast { ticks, ms }, NearEdge { ticks, ms }, Far(Far), Mint,
#           TryMint, Burst(u8), Fill, MintBatch(u16), TryMintBatch(u16), MintMany(u8),
#           Resume(Resume { policy, borrow: u8, range: Option<NewRange { via_snapshot, spec }> }),
#           Shared { second, near_last, ticks: u8, ms: u8, call: u8, len: u16 } }
# (Shared came last: a seed written for 12 variants decodes to the same ones.)
OPS = 13


def step(ticks, ms=0):
    """The clock `ticks % 7 - 3` ticks from the current one (3: stay in the tick)."""
    return variant(0, OPS, u8(ticks), u8(ms))


def near_last(ticks, ms=0):
    """The clock `ticks % 7 - 3` ticks from the last minted one."""
    return variant(1, OPS, u8(ticks), u8(ms))


def near_edge(ticks, ms=0):
    """The clock `ticks % 5 - 2` ticks from the last minted tick minus the borrow bound."""
    return variant(2, OPS, u8(ticks), u8(ms))


def far(f):
    return variant(3, OPS, f)


MINT = variant(4, OPS)
TRY_MINT = variant(5, OPS)


def burst(n):
    """`n + 1` try_mints (n < 8)."""
    return variant(6, OPS, u8(n))


FILL = variant(7, OPS)


def mint_batch(n):
    return variant(8, OPS, batch(n))


def try_mint_batch(n):
    return variant(9, OPS, batch(n))


def mint_many(n):
    assert n < 64
    return variant(10, OPS, u8(n))


def resume(name, ticks=0, spec=None, via_snapshot=False):
    new_range = b"\x00" if spec is None else b"\x01" + boolean(via_snapshot) + spec
    return variant(11, OPS, policy(name), borrow(ticks), new_range)


SHARED_CALLS = ["mint", "try_mint", "mint_batch", "try_mint_batch"]


def shared(second, call, ticks=3, ms=0, near_last=False, n=0):
    """`call` on generator `second` of the two on one shared word, after moving its clock
    `ticks % 7 - 3` ticks from its own reading's tick (from the word's last, `near_last`);
    a batch of `n`."""
    return variant(
        12,
        OPS,
        boolean(second),
        boolean(near_last),
        u8(ticks),
        u8(ms),
        u8(SHARED_CALLS.index(call)),
        batch(n),
    )


LAYOUTS = ["twitter", "tiny", "tt", "tiny-tt"]


def gc_seed(*, layout, tick_4ms=False, node=0, pol, start, rng=RANGE_DEFAULT, ticks=0, ops):
    return b"".join(
        [
            u8(LAYOUTS.index(layout)),
            boolean(tick_4ms),
            u16(node),
            policy(pol),
            u16(start),
            rng,
            borrow(ticks),
            vec(ops, last=True),
        ]
    )


GC_SEEDS = {
    # Readings inside 4 ms ticks of the tiny layout (4 IDs per tick).
    "tiny_4ms_in_tick": gc_seed(
        layout="tiny",
        tick_4ms=True,
        pol="Wait",
        start=3,
        ops=[
            MINT,
            step(3, 3),
            MINT,
            step(3, 1),
            TRY_MINT,
            TRY_MINT,
            TRY_MINT,
            step(3, 2),
            MINT,
            step(2, 3),
            TRY_MINT,
            far(epoch_tick(3)),
            TRY_MINT,
            far(first_ticks(0, 2)),
            MINT,
            resume("TickTock"),
            step(3, 3),
            FILL,
        ],
    ),
    # Every error of the tiny layout: full ticks, regressions, the epoch's tick, before the
    # epoch, the layout's last tick full, past the end.
    "tiny_error_edges": gc_seed(
        layout="tiny",
        node=1,
        pol="Error",
        start=100,
        ops=[
            TRY_MINT,
            FILL,
            MINT,
            step(4),
            MINT,
            FILL,
            near_last(2),
            TRY_MINT,
            near_last(3),
            TRY_MINT,
            far(epoch_tick(0)),
            TRY_MINT,
            far(before_epoch_ms(0)),
            MINT,
            far(first_ticks(0)),
            MINT,
            far(last_ticks(0)),
            FILL,
            far(past_end_ms(0)),
            TRY_MINT,
            resume("Wait"),
            near_last(3),
            TRY_MINT,
            near_last(0),
            MINT,
            step(6),
            MINT,
            resume("Error"),
            burst(5),
        ],
    ),
    # Tick-tock toggles on the 16-bit tick-tock layout, and a second regression that waits.
    "tiny_tt_toggles": gc_seed(
        layout="tiny-tt",
        pol="TickTock",
        start=50,
        ops=[
            FILL,
            step(2),
            FILL,
            step(2),
            TRY_MINT,
            step(5),
            FILL,
            step(1),
            TRY_MINT,
            resume("Wait"),
            near_last(4),
            MINT,
            resume("TickTock"),
            near_last(2),
            MINT,
            far(last_ticks(1)),
            FILL,
            step(4),
            FILL,
            step(4),
            TRY_MINT,
            far(last_ticks(3)),
            TRY_MINT,
            far(first_ticks(0)),
            TRY_MINT,
        ],
    ),
    # The 41-bit tick-tock layout with 4 ms ticks: toggles, resumes, big jumps.
    "tt_ticktock_4ms": gc_seed(
        layout="tt",
        tick_4ms=True,
        node=513,
        pol="TickTock",
        start=7,
        ops=[
            MINT,
            step(6, 1),
            MINT,
            burst(2),
            step(1, 3),
            MINT,
            TRY_MINT,
            step(2),
            MINT,
            step(7),
            MINT,
            step(2, 2),
            MINT,
            resume("TickTock"),
            step(0),
            MINT,
            resume("Error"),
            step(4),
            MINT,
            resume("TickTock"),
            far(jump(-1000)),
            MINT,
            far(jump(5000)),
            TRY_MINT,
            step(0),
            TRY_MINT,
        ],
    ),
    # Twitter under Wait: a day back and two forward, the README's example time, u64::MAX, 0.
    "twitter_wait": gc_seed(
        layout="twitter",
        node=378,
        pol="Wait",
        start=0,
        ops=[
            MINT,
            burst(7),
            step(4),
            MINT,
            resume("TickTock"),
            step(2),
            TRY_MINT,
            far(jump(-86_400_000)),
            MINT,
            far(jump(172_800_000)),
            MINT,
            far(raw_ms(1_656_432_460_105)),
            MINT,
            far(raw_ms(2**64 - 1)),
            TRY_MINT,
            far(raw_ms(0)),
            TRY_MINT,
            resume("Error"),
            near_last(3),
            MINT,
        ],
    ),
    # Batches on the tiny layout confined to 1..=2 (two IDs per tick): empty buffers, buffers
    # longer than the tick has left, a waiting batch on a full tick (made as try_mint_batch),
    # mint_many across ticks that would wait (made as try_mint_batch calls), and of 0.
    "tiny_range_batches": gc_seed(
        layout="tiny",
        node=1,
        pol="Error",
        start=20,
        rng=range_sub(1, 1),
        ops=[
            mint_batch(0),
            try_mint_batch(0),
            try_mint_batch(5),
            try_mint_batch(1),
            mint_batch(3),
            step(4),
            MINT,
            mint_batch(3),
            step(4),
            mint_batch(1),
            mint_many(5),
            step(4),
            mint_many(0),
            mint_many(2),
            resume("Error"),
            TRY_MINT,
            step(4),
            try_mint_batch(2),
            resume("Wait", spec=range_single(3)),
            step(4),
            mint_batch(11),
            far(before_epoch_ms(3)),
            mint_batch(0),
            mint_batch(4),
            mint_many(3),
        ],
    ),
    # Borrowing two ticks on the tiny layout: a fill runs two ticks ahead, then fails with a
    # retry_after of one tick; readings around the borrowing edge (borrowed time, then a
    # regression, measured from the last minted tick); mint_many running ahead.
    "tiny_borrow_2": gc_seed(
        layout="tiny",
        pol="Wait",
        start=300,
        rng=RANGE_WHOLE,
        ticks=2,
        ops=[
            FILL,
            FILL,
            FILL,
            TRY_MINT,
            step(4),
            TRY_MINT,
            step(4),
            try_mint_batch(9),
            near_edge(2),
            TRY_MINT,
            near_edge(1),
            TRY_MINT,
            near_edge(3),
            mint_batch(9),
            mint_many(6),
            step(6),
            mint_many(20),
            mint_many(5),
            near_edge(1),
            MINT,
            resume("Wait"),
            TRY_MINT,
            near_last(3),
            TRY_MINT,
            resume("Error", ticks=4),
            FILL,
            FILL,
            near_edge(0),
            try_mint_batch(3),
            near_edge(1),
            try_mint_batch(3),
        ],
    ),
    # Tick-tock with batches on the 16-bit tick-tock layout confined to 4..=7, borrowing one
    # tick: a regression toggles (a run of one), mint_many on the new timeline, resumes
    # moving the range through the snapshot and through the builder (one invalid).
    "tiny_tt_batches_toggle": gc_seed(
        layout="tiny-tt",
        pol="TickTock",
        start=40,
        rng=range_top(3),
        ticks=1,
        ops=[
            try_mint_batch(8),
            try_mint_batch(8),
            try_mint_batch(8),
            near_last(0),
            mint_batch(6),
            mint_many(9),
            step(5),
            mint_batch(6),
            resume("TickTock", ticks=1, spec=range_sub(0, 3), via_snapshot=True),
            try_mint_batch(8),
            step(4),
            try_mint_batch(2),
            resume("TickTock", spec=range_past_end(2, 0)),
            resume("TickTock", ticks=3, spec=range_single(6), via_snapshot=False),
            FILL,
            near_last(1),
            mint_batch(4),
            near_edge(0),
            mint_many(4),
        ],
    ),
    # Twitter with big batches and borrowing three ticks: whole ticks in one call, batches
    # borrowing the next ticks, try_mint_batch failing once the borrow bound is reached,
    # mint_many on a borrowed tick, a regression past the bound; about 20,000 IDs in all.
    "twitter_big_batches": gc_seed(
        layout="twitter",
        node=7,
        pol="Error",
        start=5,
        ticks=3,
        ops=[
            mint_batch(4499),
            mint_batch(100),
            try_mint_batch(4000),
            try_mint_batch(4499),
            try_mint_batch(1),
            try_mint_batch(4499),
            try_mint_batch(1),
            step(4),
            mint_many(63),
            try_mint_batch(2),
            near_edge(1),
            try_mint_batch(7),
            resume("Wait", ticks=0),
            try_mint_batch(7),
            near_last(4),
            mint_batch(2000),
            mint_batch(4095),
        ],
    ),
    # Invalid ranges: an empty one with tick-tock asked on a layout without the bit (tick-tock
    # is reported first), then ranges past the field, raw bounds, through the builder and the
    # snapshot on resume.
    "invalid_ranges": gc_seed(
        layout="tiny",
        pol="TickTock",
        start=9,
        rng=range_empty(1),
        ops=[
            MINT,
            resume("Wait", spec=range_past_end(1, 7)),
            MINT,
            resume("TickTock", spec=range_raw(5, 2), via_snapshot=True),
            MINT,
            resume("Error", spec=range_raw(0, 2**64 - 1), via_snapshot=False),
            resume("Error", spec=range_raw(2, 3), via_snapshot=True),
            FILL,
            resume("Error", spec=range_empty(5)),
            TRY_MINT,
        ],
    ),
    # The last ticks of the 16-bit tick-tock layout with one sequence value per tick and an
    # unbounded borrow: mint_many borrows up to the layout's last tick, then fails with
    # LayoutExhausted, dropping the IDs it reserved.
    "layout_end_many": gc_seed(
        layout="tiny-tt",
        tick_4ms=True,
        pol="Wait",
        start=1,
        rng=range_single(5),
        ticks=None,
        ops=[
            mint_many(3),
            far(last_ticks(2)),
            mint_many(5),
            TRY_MINT,
            mint_batch(3),
            far(first_ticks(1)),
            TRY_MINT,
            resume("TickTock", ticks=30),
            far(first_ticks(3)),
            mint_many(2),
            far(last_ticks(3)),
            mint_many(63),
        ],
    ),
    # The 41-bit tick-tock layout resumed into a range above its last sequence: the tick
    # counts as full (then borrowing or a try_ failure), and into a range below it.
    "tt_resume_range_above": gc_seed(
        layout="tt",
        node=1023,
        pol="Error",
        start=70,
        rng=range_sub(0, 99),
        ops=[
            mint_batch(50),
            resume("Error", spec=range_sub(500, 499), via_snapshot=True),
            TRY_MINT,
            mint_batch(3),
            resume("Wait", ticks=1, spec=range_sub(1000, 10)),
            mint_batch(3),
            mint_batch(20),
            resume("TickTock", ticks=1, spec=range_sub(0, 5), via_snapshot=True),
            try_mint_batch(3),
            try_mint_batch(3),
            step(1),
            mint_batch(3),
        ],
    ),
    # Two generators on one shared word, each on a clock of its own, on the 41-bit tick-tock
    # layout: the second runs a tick ahead, the first steps back behind the word and toggles,
    # then is refused a toggle back at the first timeline's mark, and re-enters it above;
    # the run's own generator mints in between.
    "tt_shared_toggles": gc_seed(
        layout="tt",
        node=7,
        pol="TickTock",
        start=50,
        ops=[
            shared(False, "mint"),
            shared(True, "mint"),
            shared(True, "try_mint", ticks=4),
            MINT,
            shared(False, "mint", ticks=1),
            shared(True, "mint"),
            shared(False, "try_mint"),
            step(4),
            MINT,
            shared(False, "mint", ticks=6),
            shared(True, "try_mint_batch", ticks=6, n=5),
            shared(False, "mint", near_last=True, ticks=0),
            shared(False, "mint", near_last=True, ticks=2),
            shared(True, "mint"),
            shared(True, "mint_batch", ticks=0, n=3),
            shared(False, "try_mint", ticks=5),
        ],
    ),
    # Two generators on one shared word on the tiny layout (4 IDs per tick), borrowing two
    # ticks: full ticks borrowed by one and minted after by the other, a clock behind the word
    # by borrowed time and by more (ClockBehind), waiting calls made as try_ calls.
    "tiny_shared_borrow": gc_seed(
        layout="tiny",
        node=1,
        pol="Error",
        start=200,
        rng=RANGE_WHOLE,
        ticks=2,
        ops=[
            shared(False, "try_mint_batch", n=4),
            shared(True, "try_mint"),
            shared(True, "try_mint_batch", n=9),
            shared(False, "try_mint"),
            shared(False, "mint_batch", n=9),
            shared(True, "mint", ticks=0),
            shared(False, "try_mint", near_last=True, ticks=1),
            MINT,
            shared(True, "mint_batch", ticks=6, n=3),
            shared(False, "try_mint", ticks=5),
            shared(True, "try_mint", near_last=True, ticks=0),
            shared(False, "mint", near_last=True, ticks=4),
        ],
    ),
    # Two generators on one shared word on the 16-bit tick-tock layout confined to 2..=5,
    # under Wait: regressions fail at once on either, full ticks fail the try_ calls.
    "tiny_tt_shared_wait": gc_seed(
        layout="tiny-tt",
        pol="Wait",
        start=30,
        rng=range_sub(2, 3),
        ops=[
            shared(False, "try_mint_batch", n=6),
            shared(True, "try_mint"),
            shared(True, "mint", ticks=4),
            shared(False, "mint"),
            shared(False, "try_mint", ticks=5),
            shared(True, "try_mint_batch", ticks=2, n=2),
            FILL,
            shared(True, "mint", near_last=True, ticks=4),
            shared(False, "mint", near_last=True, ticks=3),
        ],
    ),
}

# ---- generator_lagging_clock ----

# enum Op { Source { ticks, ms }, Jump(u16), Refresh { lag, ms }, RefreshAll,
#           SourceBack { ticks, ms }, StepBack { ticks, ms }, NearEnd { back }, Mint, TryMint,
#           Burst(u8), Fill, MintBatch(u8), TryMintBatch(u8), Resume { policy, borrow: u8 } }
LAG_OPS = 14


def source(ticks, ms=0):
    """The source `ticks % 4` ticks and `ms % tick_ms` ms forward; the cache stays."""
    return variant(0, LAG_OPS, u8(ticks), u8(ms))


def source_jump(ticks):
    return variant(1, LAG_OPS, u16(ticks))


def refresh(lag, ms=0):
    """The cache up to the source less `lag % 8` ticks and `ms % tick_ms` ms (never back)."""
    return variant(2, LAG_OPS, u8(lag), u8(ms))


REFRESH_ALL = variant(3, LAG_OPS)


def source_back(ticks, ms=0):
    """The source `ticks % 8` ticks and `ms % tick_ms` ms back; the cache holds."""
    return variant(4, LAG_OPS, u8(ticks), u8(ms))


def step_back(ticks, ms=0):
    """Both readings `ticks % 8` ticks and `ms % tick_ms` ms back."""
    return variant(5, LAG_OPS, u8(ticks), u8(ms))


def near_end(back):
    return variant(6, LAG_OPS, u8(back))


L_MINT = variant(7, LAG_OPS)
L_TRY_MINT = variant(8, LAG_OPS)


def l_burst(n):
    return variant(9, LAG_OPS, u8(n))


L_FILL = variant(10, LAG_OPS)


def l_mint_batch(n):
    """`mint_batch` into `n % 20` IDs."""
    return variant(11, LAG_OPS, u8(n))


def l_try_mint_batch(n):
    return variant(12, LAG_OPS, u8(n))


def l_resume(name, ticks=0):
    """A resume under `name` borrowing `ticks % 4` ticks."""
    return variant(13, LAG_OPS, policy(name), u8(ticks))


LAG_LAYOUTS = ["tiny", "tiny-tt", "wide-tt"]


def lag_seed(*, layout, tick_4ms=False, pol, ticks=0, raise_, start, ops):
    return b"".join(
        [
            u8(LAG_LAYOUTS.index(layout)),
            boolean(tick_4ms),
            policy(pol),
            u8(ticks),
            boolean(raise_),
            u16(start),
            vec(ops, last=True),
        ]
    )


LAG_SEEDS = {
    # A starved cache (only precise reads raise it) on the tiny layout (4 IDs per tick): each
    # full tick reads the source and moves on at once; try_mint fails only when the source is
    # still on the full tick; waiting calls on a tick the source has left.
    "tiny_starved_full_ticks": lag_seed(
        layout="tiny",
        pol="Error",
        raise_=True,
        start=10,
        ops=[
            L_FILL,
            source(1),
            L_FILL,
            L_TRY_MINT,
            source(1),
            L_MINT,
            l_burst(2),
            source(2),
            l_mint_batch(6),
            l_try_mint_batch(3),
            source(1),
            l_mint_batch(19),
            source(3),
            L_MINT,
            refresh(1),
            L_FILL,
        ],
    ),
    # A cache only its own timer refreshes: after the first full tick every reading is behind
    # the state, read again from the source, and no regression; refreshes with lags.
    "tiny_lagging_behind_state": lag_seed(
        layout="tiny",
        tick_4ms=True,
        pol="Error",
        raise_=False,
        start=100,
        ops=[
            L_FILL,
            source(1, 2),
            L_FILL,
            source(1),
            L_FILL,
            l_try_mint_batch(9),
            source_jump(7),
            l_mint_batch(2),
            refresh(3, 1),
            L_FILL,
            source(2),
            L_MINT,
            l_resume("Error"),
            L_TRY_MINT,
            REFRESH_ALL,
            L_FILL,
        ],
    ),
    # The source steps back behind a full tick while the cache holds (tick-tock, borrowing
    # three ticks, 4 ms ticks): the call that would never return is skipped; then the whole
    # clock steps back and a reading behind the state toggles.
    "tiny_tt_source_back_full_tick": lag_seed(
        layout="tiny-tt",
        tick_4ms=True,
        pol="TickTock",
        ticks=3,
        raise_=True,
        start=200,
        ops=[
            source_back(3, 3),
            L_FILL,
            source(0),
            step_back(6),
            L_TRY_MINT,
            L_FILL,
            source_back(5),
            l_try_mint_batch(4),
            source(3),
            source(3),
            L_MINT,
            REFRESH_ALL,
            L_FILL,
        ],
    ),
    # Regressions under tick-tock on the 41-bit layout: the whole clock back (a toggle at the
    # source's tick), the source back with the cache held (minting on the cache's tick until it
    # fills), batches, resumes under Error and Wait.
    "wide_tt_step_backs": lag_seed(
        layout="wide-tt",
        pol="TickTock",
        raise_=False,
        start=5,
        ops=[
            L_FILL,
            step_back(2),
            L_TRY_MINT,
            l_mint_batch(10),
            REFRESH_ALL,
            source(3),
            L_FILL,
            source_back(1),
            l_try_mint_batch(19),
            l_resume("Error"),
            L_TRY_MINT,
            step_back(1, 0),
            L_TRY_MINT,
            l_resume("Wait", 2),
            source(3),
            L_MINT,
        ],
    ),
    # Borrowing three ticks ahead of a source that stays, then a resume with no borrowing: the
    # state is ahead of the source, a regression though the source never went back.
    "tiny_borrow_then_resume_without": lag_seed(
        layout="tiny",
        pol="Wait",
        ticks=3,
        raise_=True,
        start=50,
        ops=[
            L_FILL,
            L_FILL,
            L_FILL,
            L_FILL,
            L_TRY_MINT,
            l_resume("Error", 0),
            L_TRY_MINT,
            source(3),
            source(1),
            L_MINT,
            l_resume("Wait", 1),
            L_FILL,
        ],
    ),
    # The last ticks of the 16-bit tick-tock layout: full ticks at the end, LayoutExhausted,
    # and a step back from there.
    "tiny_tt_near_end": lag_seed(
        layout="tiny-tt",
        pol="Error",
        ticks=1,
        raise_=True,
        start=0,
        ops=[
            L_MINT,
            near_end(1),
            L_FILL,
            L_FILL,
            L_TRY_MINT,
            l_mint_batch(4),
            near_end(0),
            L_FILL,
            L_FILL,
            step_back(2),
            L_TRY_MINT,
        ],
    ),
}

# ---- generator_cached_clock ----

# enum Op { Forward(u8), Jump { ticks, ms }, Far(u16), Back { ticks, ms }, FarBack(u16), Refresh,
#           Mint, TryMint, Burst(u8), Fill, MintBatch(u8), TryMintBatch(u8) }
CACHED_OPS = 12


def c_forward(ms):
    """The source `ms % tick_ms` ms forward: less than a tick."""
    return variant(0, CACHED_OPS, u8(ms))


def c_jump(ticks, ms=0):
    """The source `1 + ticks % 8` ticks and `ms % tick_ms` ms forward."""
    return variant(1, CACHED_OPS, u8(ticks), u8(ms))


def c_far(ticks):
    return variant(2, CACHED_OPS, u16(ticks))


def c_back(ticks, ms=0):
    """The source `ticks % 8` ticks and `ms % tick_ms` ms back."""
    return variant(3, CACHED_OPS, u8(ticks), u8(ms))


def c_far_back(ticks):
    return variant(4, CACHED_OPS, u16(ticks))


C_REFRESH = variant(5, CACHED_OPS)
C_MINT = variant(6, CACHED_OPS)
C_TRY_MINT = variant(7, CACHED_OPS)


def c_burst(n):
    return variant(8, CACHED_OPS, u8(n))


C_FILL = variant(9, CACHED_OPS)


def c_mint_batch(n):
    return variant(10, CACHED_OPS, u8(n))


def c_try_mint_batch(n):
    return variant(11, CACHED_OPS, u8(n))


CACHED_LAYOUTS = ["tiny-tt", "wide-tt"]
# Input.policy modulo 4: 0 Error, 1 Wait { max_ms: 0 }, else TickTock { max_ms: 0 }.
CACHED_POLICIES = {"Error": 0, "Wait": 1, "TickTock": 2}


def cached_seed(*, layout, tick_4ms=False, pol, start, ops):
    return b"".join(
        [
            u8(CACHED_LAYOUTS.index(layout)),
            boolean(tick_4ms),
            u8(CACHED_POLICIES[pol]),
            u16(start),
            vec(ops, last=True),
        ]
    )


CACHED_SEEDS = {
    # The refresher's whole cycle on 4 ms ticks: refreshes, a probe, a park, a reader's
    # precise reading that wakes it, and small steps inside a tick with the cache behind.
    "tiny_tt_probe_park_wake": cached_seed(
        layout="tiny-tt",
        tick_4ms=True,
        pol="TickTock",
        start=100,
        ops=[
            C_MINT,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            c_forward(3),
            C_TRY_MINT,
            C_REFRESH,
            c_forward(2),
            C_FILL,
            c_jump(0),
            C_MINT,
            C_REFRESH,
            C_FILL,
        ],
    ),
    # Step backs on the 41-bit layout: the refresher publishes the new time, a mint reads it
    # behind the state and toggles to timeline 1; the source jumps ahead and steps back above
    # timeline 0's mark (a toggle back), then back again below timeline 1's (refused:
    # ClockBehind).
    "wide_tt_there_and_back": cached_seed(
        layout="wide-tt",
        pol="TickTock",
        start=20,
        ops=[
            C_FILL,
            c_jump(1),
            c_mint_batch(5),
            c_back(4),
            C_MINT,
            c_burst(3),
            c_jump(7),
            C_MINT,
            c_back(2),
            C_TRY_MINT,
            c_back(5),
            C_TRY_MINT,
            c_far(100),
            C_MINT,
        ],
    ),
    # Full ticks with the source still on them (try_ forms fail), then a step back of less
    # than a tick across a tick boundary: the cache is ahead of the source by a hair.
    "tiny_tt_4ms_full_tick_back_a_hair": cached_seed(
        layout="tiny-tt",
        tick_4ms=True,
        pol="TickTock",
        start=40,
        ops=[
            C_FILL,
            C_MINT,
            c_try_mint_batch(3),
            c_forward(3),
            C_FILL,
            c_back(0, 1),
            C_TRY_MINT,
            C_REFRESH,
            c_back(0, 3),
            C_FILL,
            c_jump(2, 1),
            c_mint_batch(19),
        ],
    ),
    # Error and Wait { max_ms: 0 }: a step back fails until the source returns to the state's
    # tick; far jumps both ways.
    "wide_tt_error_steps_back": cached_seed(
        layout="wide-tt",
        tick_4ms=True,
        pol="Error",
        start=7,
        ops=[
            C_MINT,
            c_back(3, 2),
            C_TRY_MINT,
            C_REFRESH,
            C_MINT,
            c_jump(2),
            C_FILL,
            c_far_back(500),
            c_mint_batch(4),
            c_far(600),
            C_MINT,
        ],
    ),
    "tiny_tt_wait_far": cached_seed(
        layout="tiny-tt",
        pol="Wait",
        start=2000,
        ops=[
            c_burst(7),
            c_far_back(1000),
            C_TRY_MINT,
            C_REFRESH,
            C_REFRESH,
            c_far(1000),
            C_FILL,
            C_MINT,
        ],
    ),
    # Many refresher turns between mints on 1 ms ticks: probes answered by the next mint,
    # parks, wakes, with steps back that the refresher publishes before anyone mints.
    "tiny_tt_refresher_turns": cached_seed(
        layout="tiny-tt",
        pol="TickTock",
        start=300,
        ops=[
            C_TRY_MINT,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            C_TRY_MINT,
            C_REFRESH,
            C_REFRESH,
            c_back(3),
            C_REFRESH,
            C_TRY_MINT,
            C_REFRESH,
            C_REFRESH,
            C_REFRESH,
            c_jump(5),
            c_try_mint_batch(9),
            c_back(1),
            C_FILL,
        ],
    ),
}

# sno_text takes raw bytes: text for the parser, and the first 20 bytes as two 10-byte IDs.
SNO_SEEDS = {
    "zero": b"2222222222222222",
    "max": b"xxxxxxxxxxxxxxxx",
    "doc_example": b"aaaaaaaa55aaaaaa",  # the document's example: the metabyte in chars 8-9
    "uppercase": b"AAAAAAAA55AAAAAA",
    "too_short": b"222222222222222",
    "too_long": b"22222222222222222",
    "bad_digit_1": b"2222222222222221",
    "bad_digit_y": b"y222222222222222",
    "multibyte_16_chars": "222222222222222\u00e9".encode(),
    "multibyte_15_chars": "22222222222222\u00e9".encode(),
    "invalid_utf8": b"22222222\xff2222222",
    "empty": b"",
    "two_ids_tick_flip": bytes([0, 0, 0, 0, 1, 7, 0x41, 0x0A, 0, 42, 0, 0, 0, 0, 0, 7, 0x41, 0x0A, 0, 43]),
    "two_ids_extremes": bytes([0xFF] * 10 + [0] * 10),
}

# decode_text takes raw bytes: text for every decoder, and the first 16 bytes as two u64 IDs.
DT_SEEDS = {
    "zero_decimal": b"0",
    "max_decimal": b"18446744073709551615",
    "over_decimal": b"18446744073709551616",
    "tweet_decimal": b"1541815603606036480",
    "max_base36": b"3w5e11264sgsf",
    "over_base36": b"3w5e11264sgsg",
    "nanoflake_max_base36": b"1y2p0ij32e8e7",
    "tweet_base36_upper": b"BPPC0M3JU134",
    "max_base32": b"FZZZZZZZZZZZZ",
    "over_base32": b"G000000000000",
    "base32_aliases": b"IASDl3XH1F8oO",
    "base32_hyphen": b"1ASD-13XH1F80",
    "base32_u": b"000000000000U",
    "max_base62": b"LygHa16AHYF",
    "over_base62": b"LygHa16AHYG",
    "tweet_base62": b"1ptWyK4WgZU",
    "max_hex": b"ffffffffffffffff",
    "hex_upper_prefix": b"0x1565A11F6217A0",
    "multibyte_11_chars": "0000000000\u00e9".encode(),
    "invalid_utf8": b"0000000\xff00000",
    "empty": b"",
    "two_ids_js_limit": (2**53 - 1).to_bytes(8, "little") + (2**53).to_bytes(8, "little"),
    "two_ids_extremes": bytes([0xFF] * 8 + [0] * 8),
}

# mark_file: Input { ahead_ms: u16, content: Vec<u8> (last field: the rest) }.
MARK_FILE_SEEDS = {
    "mark_with_newline": u16(5) + b"1700000000000\n",
    "mark_without_newline": u16(0) + b"1700000000000",
    "plus_sign": u16(1) + b"+1700000000000\n",
    "empty": u16(0) + b"",
    "newline_only": u16(0) + b"\n",
    "two_lines": u16(0) + b"1\n2\n",
    "negative": u16(0) + b"-5\n",
    "u64_max": u16(0) + b"18446744073709551615\n",
    "u64_max_plus_one": u16(0) + b"18446744073709551616\n",
    "sixty_four_digits": u16(0) + b"0" * 63 + b"1",
    "sixty_five_bytes": u16(0) + b"0" * 64 + b"\n",
    "past_twitters_end": u16(0) + b"9999999999999999\n",
    "control_characters": u16(0) + bytes(range(1, 32)) * 3,
    "invalid_utf8": u16(0) + b"17000\xff00000\n",
}

# snapshot_resume: enum Input { Raw(Vec<u8>), Fields(Fields) }.
SNAP_JSON = (
    b'{"layout":{"name":"twitter","width":64,"fields":['
    b'{"kind":"unused","name":"unused","bits":1},{"kind":"time","name":"time","bits":41},'
    b'{"kind":"node","name":"machine","bits":10},{"kind":"sequence","name":"sequence","bits":12}],'
    b'"tick_ms":1,"epoch_ms":1288834974657},"nodes":[["machine",5]],"last_tick":411165025343,'
    b'"sequence":4095,"timeline":0,"other_timeline_tick":0,'
    b'"sequence_range":{"start":0,"end":4095}}'
)


def snap_fields(layout, node, wrong_node, last_tick, sequence, timeline, other, rng, clock_ms,
                clock_behind, tick_tock, mints):
    opt = boolean(False) if rng is None else boolean(True) + u64(rng[0]) + u64(rng[1])
    return variant(1, 2, u8(layout) + u64(node) + boolean(wrong_node) + u64(last_tick)
                   + u64(sequence) + u64(timeline) + u64(other) + opt + u32(clock_ms)
                   + boolean(clock_behind) + boolean(tick_tock) + u8(mints))


SNAP_SEEDS = {
    "raw_twitter_snapshot": variant(0, 2, SNAP_JSON),
    "raw_not_json": variant(0, 2, b"not a snapshot"),
    "raw_truncated": variant(0, 2, SNAP_JSON[:120]),
    "tt_step_back_tick_tock": snap_fields(0, 5, False, 411165025343, 15, 0, 0, None, 5000, True,
                                          True, 30),
    "tt_on_timeline_one": snap_fields(0, 5, False, 411165025343, 3, 1, 411165030000, None, 10,
                                      False, True, 30),
    "twitter_full_tick_ahead": snap_fields(1, 7, False, 411165025343, 4095, 0, 0, None, 0, False,
                                           False, 10),
    "discord_sub_range": snap_fields(2, 3, False, 10**11, 100, 0, 0, (100, 200), 1, False,
                                     False, 20),
    "sonyflake_past_range": snap_fields(3, 1, False, 2**39 - 1, 255, 0, 0, (0, 300), 0, False,
                                        False, 5),
    "wrong_node_name": snap_fields(1, 1, True, 10, 0, 0, 0, None, 0, False, False, 1),
    "timeline_out_of_range": snap_fields(1, 1, False, 10, 0, 2, 0, None, 0, False, False, 1),
}

# ---- sharded_runs ----

# enum ShardsSpec { Split(u8), Block { first: u8, count: u8 } }
def split(n):
    """`SplitSequence(1 + n % 4)`."""
    return variant(0, 2, u8(n))


def block(first, count):
    """`NodeBlock` of `1 + count % 4` values of the last node field, from `first`."""
    return variant(1, 2, u8(first), u8(count))


# enum Op { Step { ticks, ms }, Within(u8), NearLast { ticks, ms }, Far(Far), Mint, TryMint,
#           Burst(u8), Fill, MintBatch(u8), TryMintBatch(u8), MintMany(u8), LocalTryMint,
#           LocalMint, ShardTryMint(u8), ShardsTryMint(u8), ShardMint(u8), RunReading,
#           Kept { by_index: bool, call: KeptCall }, Elsewhere { wait: bool },
#           AtExit { mints: u8, others: u8 } }
SR_OPS = 20


def sr_step(ticks, ms=0):
    """The clock `ticks % 7 - 3` ticks from the current one (3: stay in the tick)."""
    return variant(0, SR_OPS, u8(ticks), u8(ms))


def sr_within(ms):
    """Another reading of the current tick: `ms % tick_ms` into it."""
    return variant(1, SR_OPS, u8(ms))


def sr_near_last(ticks, ms=0):
    """The clock `ticks % 7 - 3` ticks from the thread's shard's last minted tick."""
    return variant(2, SR_OPS, u8(ticks), u8(ms))


def sr_far(f):
    return variant(3, SR_OPS, f)


SR_MINT = variant(4, SR_OPS)
SR_TRY_MINT = variant(5, SR_OPS)


def sr_burst(n):
    """`n + 1` of the handle's try_mints (n < 64)."""
    assert n < 64
    return variant(6, SR_OPS, u8(n))


SR_FILL = variant(7, SR_OPS)


def sr_mint_batch(n):
    assert n < 24
    return variant(8, SR_OPS, u8(n))


def sr_try_mint_batch(n):
    assert n < 24
    return variant(9, SR_OPS, u8(n))


def sr_mint_many(n):
    assert n < 24
    return variant(10, SR_OPS, u8(n))


SR_LOCAL_TRY_MINT = variant(11, SR_OPS)
SR_LOCAL_MINT = variant(12, SR_OPS)


def sr_shard_try_mint(i):
    return variant(13, SR_OPS, u8(i))


def sr_shards_try_mint(i):
    return variant(14, SR_OPS, u8(i))


def sr_shard_mint(i):
    return variant(15, SR_OPS, u8(i))


SR_RUN_READING = variant(16, SR_OPS)
"""The clock back to the reading the thread's run was reserved at."""

# enum KeptCall { Mint, TryMint, MintBatch(u8), TryMintBatch(u8), MintMany(u8) }
KEPT_MINT = variant(0, 5)
KEPT_TRY_MINT = variant(1, 5)


def kept_mint_batch(n):
    assert n < 24
    return variant(2, 5, u8(n))


def kept_try_mint_batch(n):
    assert n < 24
    return variant(3, 5, u8(n))


def kept_mint_many(n):
    assert n < 24
    return variant(4, 5, u8(n))


def sr_kept(call, by_index=False):
    """`call` on the kept `local()` handle, or on the kept `shard(own)` one."""
    return variant(17, SR_OPS, boolean(by_index), call)


def sr_elsewhere(wait=False):
    """`shard(own)`'s `mint` (`wait`) or `try_mint` on a thread spawned for the call."""
    return variant(18, SR_OPS, boolean(wait))


def sr_at_exit(mints, others=0):
    """A thread minting `mints + 1` IDs (mints < 8), then from `4 + others % 2` other sharded
    generators, then once more in a thread-local destructor."""
    assert mints < 8
    return variant(19, SR_OPS, u8(mints), u8(others))


SR_LAYOUTS = ["twitter", "tiny", "small", "tt", "tiny-tt"]


def sr_seed(*, layout, tick_4ms=False, node=0, pol, shards, start, ticks=0, ops):
    return b"".join(
        [
            u8(SR_LAYOUTS.index(layout)),
            boolean(tick_4ms),
            u16(node),
            policy(pol),
            shards,
            u16(start),
            borrow(ticks),
            vec(ops, last=True),
        ]
    )


SR_SEEDS = {
    # Runs doubling up to the cap on twitter (2 shards: 256 IDs), interrupted by direct mints
    # from the thread's own shard and the other one, a batch and mint_many.
    "twitter_runs_grow": sr_seed(
        layout="twitter",
        node=7,
        pol="Error",
        shards=split(1),
        start=5,
        ops=[sr_burst(63)] * 12
        + [
            SR_LOCAL_TRY_MINT,
            sr_burst(40),
            sr_shard_try_mint(1),
            sr_burst(40),
            sr_shards_try_mint(0),
            sr_try_mint_batch(5),
            sr_burst(20),
            sr_mint_many(10),
            SR_MINT,
            sr_step(4),
            sr_burst(63),
            SR_FILL,
            SR_MINT,
            SR_TRY_MINT,
        ],
    ),
    # Readings changing inside 2 ms ticks with runs left over (4 shards of 32 IDs: runs of up
    # to 4), a full tick, then the next tick.
    "small_readings_in_tick": sr_seed(
        layout="small",
        node=3,
        pol="Wait",
        shards=split(3),
        start=40,
        ops=[
            sr_burst(20),
            sr_within(1),
            SR_TRY_MINT,
            SR_TRY_MINT,
            sr_within(0),
            sr_burst(10),
            SR_FILL,
            SR_MINT,
            sr_step(4),
            sr_burst(6),
            sr_shard_try_mint(2),
            sr_burst(6),
            sr_within(1),
            SR_FILL,
            sr_mint_batch(23),
            sr_step(4, 1),
            SR_MINT,
        ],
    ),
    # Tick-tock on the 16-bit layout, a node block of 2: full ticks, steps back that toggle,
    # a third toggle refused, the other shard minted from directly.
    "tiny_tt_toggles": sr_seed(
        layout="tiny-tt",
        pol="TickTock",
        shards=block(0, 1),
        start=20,
        ops=[
            SR_FILL,
            sr_step(0),
            SR_TRY_MINT,
            SR_FILL,
            sr_near_last(1),
            SR_TRY_MINT,
            sr_shard_try_mint(1),
            sr_step(5),
            sr_burst(9),
            sr_step(1),
            SR_MINT,
            sr_near_last(4),
            sr_burst(9),
            sr_mint_many(5),
        ],
    ),
    # Borrowing 2 ticks on 4 ms ticks with 4 IDs a tick; the layout's edges and errors.
    "tiny_borrow_edges": sr_seed(
        layout="tiny",
        tick_4ms=True,
        node=1,
        pol="Wait",
        shards=split(1),
        start=8,
        ticks=2,
        ops=[
            SR_FILL,
            SR_FILL,
            SR_MINT,
            SR_FILL,
            sr_step(2, 1),
            SR_TRY_MINT,
            sr_near_last(3, 3),
            SR_LOCAL_MINT,
            sr_far(epoch_tick(3)),
            SR_TRY_MINT,
            sr_far(before_epoch_ms(0)),
            SR_MINT,
            sr_far(last_ticks(0)),
            SR_FILL,
            SR_MINT,
            sr_far(past_end_ms(3)),
            SR_TRY_MINT,
            sr_shard_mint(1),
        ],
    ),
    # A block of 3 machines on the 41-bit tick-tock layout under Error with 4 ms ticks:
    # readings inside a tick, a batch, a step back refused, direct mints from each shard.
    "tt_block_4ms": sr_seed(
        layout="tt",
        tick_4ms=True,
        node=5,
        pol="Error",
        shards=block(5, 2),
        start=100,
        ticks=1,
        ops=[
            sr_burst(63),
            sr_within(2),
            sr_burst(63),
            sr_mint_batch(23),
            sr_step(2),
            SR_TRY_MINT,
            sr_shard_mint(2),
            sr_shards_try_mint(1),
            sr_step(4, 3),
            SR_MINT,
            sr_far(jump(-1000)),
            SR_TRY_MINT,
            sr_far(jump(2000)),
            sr_burst(3),
        ],
    ),
    # Handles taken once and kept on twitter (2 shards): runs grow between kept-handle mints,
    # batches and mint_many; then a run left on tick T, the shard minting through the kept
    # handle on T + 1, and the clock back to exactly the run's reading (the policy answers).
    "twitter_kept_handles": sr_seed(
        layout="twitter",
        node=9,
        pol="Error",
        shards=split(1),
        start=30,
        ops=[sr_burst(63)] * 3
        + [
            sr_kept(KEPT_MINT),
            sr_burst(40),
            sr_kept(kept_try_mint_batch(5), by_index=True),
            sr_burst(40),
            sr_kept(kept_mint_many(4)),
            sr_burst(30),
            sr_kept(KEPT_TRY_MINT, by_index=True),
            sr_kept(kept_mint_batch(3)),
            sr_burst(62),
            sr_step(4),
            sr_kept(KEPT_MINT),
            SR_RUN_READING,
            SR_TRY_MINT,
            SR_MINT,
            sr_step(4),
            SR_TRY_MINT,
            sr_burst(20),
        ],
    ),
    # The thread's own shard minted from on other threads (4 shards of 32 IDs on the small
    # layout, 2 ms ticks): each ends the run; then on a later tick and back to the run's
    # reading under `Wait`.
    "small_elsewhere": sr_seed(
        layout="small",
        node=2,
        pol="Wait",
        shards=split(3),
        start=60,
        ops=[
            sr_burst(10),
            sr_elsewhere(),
            SR_TRY_MINT,
            sr_burst(5),
            sr_elsewhere(wait=True),
            sr_burst(5),
            sr_within(1),
            sr_elsewhere(),
            SR_RUN_READING,
            SR_TRY_MINT,
            sr_burst(3),
            sr_step(4),
            sr_elsewhere(),
            SR_RUN_READING,
            SR_TRY_MINT,
            SR_MINT,
        ],
    ),
    # Threads minting at exit from a generator they no longer know: 3 shards of twitter, then
    # a single shard the exiting threads share with this one, each followed by this thread's
    # run.
    "twitter_exit_mints": sr_seed(
        layout="twitter",
        node=3,
        pol="Error",
        shards=split(2),
        start=12,
        ops=[
            sr_burst(6),
            sr_at_exit(3),
            SR_TRY_MINT,
            sr_at_exit(7, 1),
            sr_burst(6),
            sr_shard_try_mint(2),
            sr_at_exit(0),
            SR_MINT,
            sr_step(4),
            sr_at_exit(5),
            sr_burst(3),
        ],
    ),
    "tiny_exit_shared_shard": sr_seed(
        layout="tiny",
        node=1,
        pol="Wait",
        shards=split(0),
        start=50,
        ops=[
            SR_TRY_MINT,
            sr_at_exit(1),
            SR_TRY_MINT,
            SR_TRY_MINT,
            sr_step(4),
            sr_at_exit(2, 1),
            SR_FILL,
            sr_step(4),
            sr_at_exit(6),
            SR_TRY_MINT,
        ],
    ),
    # Tick-tock on a node block of 2: an exiting thread toggles its shard after a step back,
    # and its destructor mints from the shard whose last ID is the highest.
    "tt_exit_after_step_back": sr_seed(
        layout="tt",
        tick_4ms=True,
        pol="TickTock",
        shards=block(255, 1),
        start=17733,
        ticks=0,
        ops=[
            SR_TRY_MINT,
            sr_at_exit(7),
            sr_step(2),
            sr_at_exit(7),
            sr_near_last(3),
            sr_kept(KEPT_TRY_MINT),
            SR_RUN_READING,
            SR_TRY_MINT,
        ],
    ),
}

TARGETS = {
    "layout_roundtrip": SEEDS,
    "generator_clock": GC_SEEDS,
    "sno_text": SNO_SEEDS,
    "decode_text": DT_SEEDS,
    "generator_lagging_clock": LAG_SEEDS,
    "generator_cached_clock": CACHED_SEEDS,
    "mark_file": MARK_FILE_SEEDS,
    "snapshot_resume": SNAP_SEEDS,
    "sharded_runs": SR_SEEDS,
}


def main():
    for target, seeds in TARGETS.items():
        out = SEEDS_DIR / target
        out.mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (out / name).write_bytes(data)
            print(f"{out / name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
