//! sno IDs: the 10-byte layout, the 16-character text form, their order, and the generator's
//! timelines, sequence bounds, partition and metabyte.

mod common;

use std::collections::HashSet;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use snowmint::{
    ClockBehind, Error, Generator,
    clock::ManualClock,
    error::ParseIdReason,
    generator::Event,
    sno::{SnoGenerator, SnoId, SnoSnapshot},
};

use common::checks::assert_increasing;
use common::clocks::{T0, sno_on_manual_clock};
use common::threads::on_threads;

const ALPHABET: &str = "23456789abcdefghijklmnopqrstuvwx";

/// splitmix64: deterministic test values without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self) -> [u8; 10] {
        let (a, b) = (self.next().to_be_bytes(), self.next().to_be_bytes());
        [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1]]
    }
}

fn reason(err: Error) -> ParseIdReason {
    match err {
        Error::ParseId {
            encoding: "sno",
            reason,
            ..
        } => reason,
        other => panic!("expected a sno ParseId error, got {other:?}"),
    }
}

#[test]
fn known_answers_for_zero_and_all_ones() {
    let zero = SnoId::from_bytes([0; 10]);
    let max = SnoId::from_bytes([0xff; 10]);
    assert_eq!(zero.to_string(), "2222222222222222");
    assert_eq!(max.to_string(), "xxxxxxxxxxxxxxxx");
    assert_eq!("2222222222222222".parse::<SnoId>().unwrap(), zero);
    assert_eq!("xxxxxxxxxxxxxxxx".parse::<SnoId>().unwrap(), max);
}

#[test]
fn time_bounds_are_the_documents_2010_to_2079() {
    // "The lower bound is 1262304000 seconds relative to Unix."
    let zero = SnoId::from_bytes([0; 10]);
    assert_eq!(zero.unix_ms(), 1_262_304_000_000);
    assert_eq!(zero.time_rfc3339().to_string(), "2010-01-01T00:00:00.000Z");
    // "bounded within 2010-01-01 00:00:00 UTC and 2079-09-07 15:47:35.548 UTC"
    let max = SnoId::from_bytes([0xff; 10]);
    assert_eq!(max.unix_ms(), SnoId::MAX_UNIX_MS);
    assert_eq!(max.time_rfc3339().to_string(), "2079-09-07T15:47:35.548Z");
    assert_eq!(SnoGenerator::LAYOUT.max_unix_ms(), SnoId::MAX_UNIX_MS);
}

#[test]
fn every_component_decodes_from_its_documented_bits() {
    // 39-bit time 0x12_3456_789a (4 ms units), tick 1, meta 0xbc, partition 'A' 10, sequence 0xdef0.
    let units: u64 = 0x12_3456_789a;
    let block = (units << 1 | 1).to_be_bytes();
    let bytes = [
        block[3], block[4], block[5], block[6], block[7], 0xbc, b'A', 10, 0xde, 0xf0,
    ];
    let id = SnoId::from_bytes(bytes);
    assert_eq!(id.ticks(), units);
    assert_eq!(id.unix_ms(), SnoId::EPOCH_MS + units * 4);
    assert_eq!(
        id.time(),
        std::time::UNIX_EPOCH + Duration::from_millis(SnoId::EPOCH_MS + units * 4)
    );
    assert_eq!(id.timeline(), 1);
    assert_eq!(id.meta(), 0xbc);
    assert_eq!(id.partition(), u16::from_be_bytes([b'A', 10]));
    assert_eq!(id.sequence(), 0xdef0);
    assert_eq!(id.as_bytes(), &bytes);
    assert_eq!(id.to_bytes(), bytes);
    assert_eq!(
        SnoId::compose(id.unix_ms() + 3, 1, 0xbc, id.partition(), 0xdef0).unwrap(),
        id
    );
    let debug = format!("{id:?}");
    for part in [
        "timeline: 1",
        "meta: 188",
        "partition: 16650",
        "sequence: 57072",
    ] {
        assert!(debug.contains(part), "{debug}");
    }
}

#[test]
fn compose_round_trips_every_component_at_the_extremes() {
    for unix_ms in [SnoId::EPOCH_MS, T0, SnoId::MAX_UNIX_MS] {
        for (tick, meta, partition, sequence) in [(0, 0, 0, 0), (1, 255, 65_535, 65_535)] {
            let id = SnoId::compose(unix_ms, tick, meta, partition, sequence).unwrap();
            assert_eq!(id.unix_ms(), unix_ms);
            assert_eq!(
                (id.timeline(), id.meta(), id.partition(), id.sequence()),
                (tick, meta, partition, sequence)
            );
        }
    }
    let max = SnoId::compose(SnoId::MAX_UNIX_MS + 3, 1, 255, 65_535, 65_535).unwrap();
    assert_eq!(max, SnoId::from_bytes([0xff; 10]));
}

#[test]
fn out_of_range_components_are_errors_naming_value_and_range() {
    let err = SnoId::compose(SnoId::EPOCH_MS - 1, 0, 0, 0, 0).unwrap_err();
    assert!(matches!(
        err,
        Error::BeforeEpoch {
            layout: "sno",
            unix_ms: 1_262_303_999_999,
            epoch_ms: 1_262_304_000_000
        }
    ));
    let past = SnoId::MAX_UNIX_MS + 4;
    let err = SnoId::compose(past, 0, 0, 0, 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "time {past} ms is past the end of layout sno, whose last tick starts at {} ms",
            SnoId::MAX_UNIX_MS
        )
    );
    let err = SnoId::compose(T0, 2, 0, 0, 0).unwrap_err();
    assert!(matches!(
        err,
        Error::TimelineOutOfRange {
            layout: "sno",
            value: 2,
            max: 1
        }
    ));
}

#[test]
fn bytes_and_text_round_trip_for_random_values() {
    let mut rng = Rng(1);
    let mut buf = [0u8; 16];
    for _ in 0..10_000 {
        let bytes = rng.bytes();
        let id = SnoId::from_bytes(bytes);
        assert_eq!(id.to_bytes(), bytes);
        assert_eq!(SnoId::from(<[u8; 10]>::from(id)), id);
        let text = id.encode(&mut buf).to_owned();
        assert_eq!(text, id.to_string());
        assert_eq!(text.len(), 16);
        assert!(text.bytes().all(|b| ALPHABET.as_bytes().contains(&b)));
        assert_eq!(text.parse::<SnoId>().unwrap(), id);
        let again = SnoId::compose(
            id.unix_ms(),
            id.timeline(),
            id.meta(),
            id.partition(),
            id.sequence(),
        );
        assert_eq!(again.unwrap(), id);
    }
}

#[test]
fn text_is_the_80_bits_in_groups_of_five_most_significant_first() {
    // A single set bit at each of the 80 positions lands in character 15 - bit / 5.
    for bit in 0..80 {
        let value = 1u128 << bit;
        let b = value.to_be_bytes();
        let id = SnoId::from_bytes(b[6..].try_into().unwrap());
        assert_eq!(id.to_u128(), value);
        let text = id.to_string();
        let position = 15 - bit / 5;
        for (i, c) in text.chars().enumerate() {
            let expected = if i == position {
                ALPHABET.as_bytes()[1 << (bit % 5)] as char
            } else {
                '2'
            };
            assert_eq!(c, expected, "bit {bit}: {text}");
        }
    }
}

#[test]
fn metabyte_is_in_characters_8_and_9() {
    // "The 8-th and 9-th (0-indexed) characters of the ID contain the encoded bits of the
    // metabyte": changing the metabyte alone changes no other character.
    let base = SnoId::compose(T0, 1, 0, 0xffff, 0xffff)
        .unwrap()
        .to_string();
    for meta in 0..=255u8 {
        let text = SnoId::compose(T0, 1, meta, 0xffff, 0xffff)
            .unwrap()
            .to_string();
        for (i, (a, b)) in base.chars().zip(text.chars()).enumerate() {
            if i != 8 && i != 9 {
                assert_eq!(a, b, "meta {meta} changed character {i}");
            }
        }
    }
    // The document's example ID carries '5' '5' there; any ID with those characters has its
    // metabyte: 5 bits of '5' (3), then 3 bits of '5' (0b000_11): 0b00011_000.
    let example: SnoId = "aaaaaaaa55aaaaaa".parse().unwrap();
    assert_eq!(example.meta(), 0b0001_1000);
    assert_eq!(
        "2222222255xxxxxx".parse::<SnoId>().unwrap().meta(),
        0b0001_1000
    );
}

#[test]
fn alphabet_is_in_ascii_order_so_text_order_is_byte_order() {
    let bytes = ALPHABET.as_bytes();
    assert_increasing(bytes);
    let mut rng = Rng(2);
    for _ in 0..10_000 {
        let (a, b) = (
            SnoId::from_bytes(rng.bytes()),
            SnoId::from_bytes(rng.bytes()),
        );
        assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
        assert_eq!(a.cmp(&b), a.to_u128().cmp(&b.to_u128()));
    }
    // Neighbours differing in the lowest bit, and in the tick-tock bit alone.
    let low = SnoId::compose(T0, 0, 0, 0, 0).unwrap();
    let high = SnoId::compose(T0, 1, 0, 0, 0).unwrap();
    let next_unit = SnoId::compose(T0 + 4, 0, 0, 0, 0).unwrap();
    assert!(low < high && high < next_unit);
    assert!(low.to_string() < high.to_string() && high.to_string() < next_unit.to_string());
}

#[test]
fn bad_text_is_an_error_for_each_reason() {
    assert!(matches!(
        reason("".parse::<SnoId>().unwrap_err()),
        ParseIdReason::Empty { .. }
    ));
    for short_or_long in [
        "2",
        "222222222222222",
        "22222222222222222",
        "x".repeat(100).as_str(),
    ] {
        let length = short_or_long.chars().count();
        assert_eq!(
            reason(short_or_long.parse::<SnoId>().unwrap_err()),
            ParseIdReason::WrongLength {
                length,
                expected: "exactly 16"
            }
        );
    }
    let err = "22222222222222é".parse::<SnoId>().unwrap_err(); // 15 characters, 16 bytes
    assert!(matches!(
        reason(err),
        ParseIdReason::WrongLength { length: 15, .. }
    ));

    for (text, found, position) in [
        ("1222222222222222", '1', 0),
        ("222222222222222y", 'y', 15),
        ("22222222z2222222", 'z', 8),
        ("222222 222222222", ' ', 6),
        ("2222222222222220", '0', 15),
        ("222222222222222é", 'é', 15), // 16 characters, 17 bytes
        ("é222222222222222", 'é', 0),
        ("2é22222222222222", 'é', 1),
    ] {
        let err = text.parse::<SnoId>().unwrap_err();
        match reason(err) {
            ParseIdReason::InvalidDigit {
                found: f,
                position: p,
                expected,
            } => {
                assert_eq!((f, p), (found, position), "{text}");
                assert_eq!(expected, "a sno character (2-9 or lowercase a-x)");
            }
            other => panic!("{text}: expected InvalidDigit, got {other:?}"),
        }
    }
    let err = "2222222222222222 ".parse::<SnoId>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid sno id \"2222222222222222 \": 17 characters, expected exactly 16"
    );
}

#[test]
fn uppercase_is_rejected_because_the_alphabet_is_lowercase() {
    let id = SnoId::from_bytes([0xab; 10]);
    let upper = id.to_string().to_uppercase();
    assert_ne!(upper, id.to_string());
    let err = upper.parse::<SnoId>().unwrap_err();
    assert!(matches!(reason(err), ParseIdReason::InvalidDigit { .. }));
    assert!("XXXXXXXXXXXXXXXX".parse::<SnoId>().is_err());
    // Digits have no case: an ID whose text is all digits parses whatever "case" it is in.
    assert_eq!(
        "2345678923456789".to_uppercase().parse::<SnoId>().unwrap(),
        "2345678923456789".parse::<SnoId>().unwrap()
    );
}

/// Mints `n` IDs with `meta`, moving the clock forward by 0 to 5 ms between them.
fn mint_across_ticks(
    generator: &SnoGenerator<Generator<ManualClock>>,
    clock: &ManualClock,
    rng: &mut Rng,
    n: usize,
    meta: u8,
) -> Vec<SnoId> {
    (0..n)
        .map(|_| {
            if rng.next().is_multiple_of(4) {
                clock.advance(rng.next() % 6);
            }
            generator.mint_with_meta(meta).unwrap()
        })
        .collect()
}

fn sorted_by_bytes(ids: &[SnoId]) -> Vec<SnoId> {
    let mut sorted = ids.to_vec();
    sorted.sort_by_key(|id| id.to_bytes());
    sorted
}

fn sorted_by_text(ids: &[SnoId]) -> Vec<SnoId> {
    let mut texts: Vec<String> = ids.iter().map(SnoId::to_string).collect();
    texts.sort();
    texts.iter().map(|t| t.parse().unwrap()).collect()
}

#[test]
fn sorting_as_bytes_and_as_text_gives_minting_order() {
    // A small sequence range, so some 4 ms units fill and the generator waits.
    let (generator, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(0x0102)
            .meta(7)
            .sequence_range(0..=99),
        T0 + 1,
    );
    let mut rng = Rng(3);
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.extend(mint_across_ticks(&generator, &clock, &mut rng, 200, 7));
        // Fill the current unit so the next mint needs the next one; advance it for mint().
        while let Ok(id) = generator.try_mint() {
            ids.push(id);
        }
        clock.advance(4);
    }
    let units: HashSet<u64> = ids.iter().map(SnoId::ticks).collect();
    assert!(units.len() > 100, "only {} units", units.len());
    assert_eq!(sorted_by_bytes(&ids), ids);
    assert_eq!(sorted_by_text(&ids), ids);
    assert_increasing(&ids);
}

#[test]
fn after_a_tick_tock_toggle_ids_sort_by_time_then_timeline() {
    let (generator, clock) = sno_on_manual_clock(SnoGenerator::builder().partition(5), T0);
    let mut rng = Rng(4);
    let mut ids = mint_across_ticks(&generator, &clock, &mut rng, 3_000, 1);
    let high = ids.last().unwrap().unix_ms();
    assert!(ids.iter().all(|id| id.timeline() == 0));

    // The clock steps back 40 ms: no wait, no error: timeline 1 at the earlier time, and it
    // carries on past the time timeline 0 reached.
    clock.set(high - 40);
    let after = mint_across_ticks(&generator, &clock, &mut rng, 3_000, 1);
    assert_eq!(after[0].unix_ms(), high - 40);
    assert!(after.iter().all(|id| id.timeline() == 1));
    assert!(after.last().unwrap().unix_ms() > high);
    assert_eq!(generator.engine().stats().toggles, 1);
    ids.extend(&after);

    // The promised order: strictly increasing within each timeline ...
    for timeline in [0, 1] {
        let on: Vec<SnoId> = ids
            .iter()
            .copied()
            .filter(|id| id.timeline() == timeline)
            .collect();
        assert_increasing(&on);
    }
    // ... and overall, minting order re-sorted (stably) by time, then timeline.
    let mut expected = ids.clone();
    expected.sort_by_key(|id| (id.unix_ms(), id.timeline()));
    assert_eq!(sorted_by_bytes(&ids), expected);
    assert_eq!(sorted_by_text(&ids), expected);
    // Not minting order: the step back put later IDs below earlier ones.
    assert_ne!(expected, ids);
    // Within a 4 ms unit both timelines used, timeline 1 sorts right after timeline 0.
    let shared = after[0].ticks();
    let in_unit: Vec<u8> = expected
        .iter()
        .filter(|id| id.ticks() == shared)
        .map(SnoId::timeline)
        .collect();
    assert!(in_unit.contains(&0) && in_unit.contains(&1));
    assert!(in_unit.windows(2).all(|pair| pair[0] <= pair[1]));
}

#[test]
fn a_second_regression_into_used_time_waits_then_fails() {
    let (generator, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(0)
            .on_clock_behind(ClockBehind::TickTock { max_ms: 0 }),
        T0,
    );
    let first = generator.mint().unwrap();
    clock.set(T0 - 100);
    let toggled = generator.mint().unwrap();
    assert_eq!((first.timeline(), toggled.timeline()), (0, 1));
    // Back again, into time timeline 0 has used: sno waits here; max_ms 0 fails at once.
    clock.set(T0 - 200);
    assert!(matches!(
        generator.mint(),
        Err(Error::ClockBehind {
            layout: "sno",
            behind_ms: 100,
            max_wait_ms: 0
        })
    ));
    // Past timeline 0's last time, a regression may toggle back to it.
    clock.set(T0 + 1_000);
    let later = generator.mint().unwrap();
    clock.set(T0 + 500);
    let back = generator.mint().unwrap();
    assert_eq!((later.timeline(), back.timeline()), (1, 0));
    let all = [first, toggled, later, back];
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 4);
}

#[test]
fn default_policy_is_tick_tock_and_wait_and_error_are_available() {
    let (generator, clock) = sno_on_manual_clock(SnoGenerator::builder().partition(0), T0);
    generator.mint().unwrap();
    clock.set(T0 - 10_000); // far more than any wait bound: toggling needs no wait
    assert_eq!(generator.mint().unwrap().timeline(), 1);

    let (strict, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(0)
            .on_clock_behind(ClockBehind::Error),
        T0,
    );
    strict.mint().unwrap();
    clock.set(T0 - 8);
    assert!(matches!(strict.mint(), Err(Error::ClockBehind { .. })));
}

#[test]
fn sequence_bounds_are_respected_in_every_unit() {
    let (generator, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(0)
            .sequence_range(1000..=1003),
        T0,
    );
    for unit in 0..5 {
        let sequences: Vec<u16> = (0..4)
            .map(|_| generator.try_mint().unwrap().sequence())
            .collect();
        assert_eq!(sequences, [1000, 1001, 1002, 1003], "unit {unit}");
        match generator.try_mint() {
            Err(Error::SequenceExhausted { retry_after, .. }) => {
                assert_eq!(retry_after, Duration::from_millis(4));
            }
            other => panic!("expected SequenceExhausted, got {other:?}"),
        }
        clock.advance(4);
    }

    let mut buffer = [SnoId::default(); 10];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 4);
    let sequences: Vec<u16> = buffer[..4].iter().map(SnoId::sequence).collect();
    assert_eq!(sequences, [1000, 1001, 1002, 1003]);
    assert_eq!(buffer[4], SnoId::default());
    assert!(matches!(
        generator.try_mint_batch(&mut buffer),
        Err(Error::SequenceExhausted { .. })
    ));

    let err = SnoGenerator::builder()
        .partition(0)
        .sequence_range(std::ops::RangeInclusive::new(9, 3))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "sequence range 9..=3 for layout sno is empty; expected a non-empty range within 0..=65535"
    );
}

#[test]
fn the_whole_sequence_gives_65536_ids_per_4_ms() {
    // "65,536 guaranteed unique IDs per 4msec per partition"
    let (generator, clock) = sno_on_manual_clock(SnoGenerator::builder().partition(0), T0);
    let mut buffer = vec![SnoId::default(); 70_000];
    assert_eq!(generator.try_mint_batch(&mut buffer).unwrap(), 65_536);
    assert_eq!(buffer[65_535].sequence(), 65_535);
    assert!(generator.try_mint().is_err());
    clock.advance(3);
    assert!(generator.try_mint().is_err()); // still the same 4 ms unit
    clock.advance(1);
    assert_eq!(generator.try_mint().unwrap().sequence(), 0);
}

#[test]
fn partition_and_metabyte_are_carried() {
    let clock = ManualClock::new(T0 + 2);
    let generator = SnoGenerator::builder()
        .partition(u16::from_be_bytes([b'A', 10]))
        .clock(&clock)
        .build()
        .unwrap();
    assert_eq!(generator.partition(), 0x410a);
    for meta in 0..=255u8 {
        let id = generator.mint_with_meta(meta).unwrap();
        assert_eq!((id.meta(), id.partition()), (meta, 0x410a));
        assert_eq!(id.as_bytes()[5..8], [meta, b'A', 10]);
        assert_eq!(id.unix_ms(), T0);
        assert_eq!(id.sequence(), u16::from(meta));
    }
    let mut buffer = [SnoId::default(); 3];
    generator.mint_batch_with_meta(42, &mut buffer).unwrap();
    assert!(
        buffer
            .iter()
            .all(|id| id.meta() == 42 && id.partition() == 0x410a)
    );
    assert_eq!(generator.mint_batch_with_meta(42, &mut []).unwrap(), 0);
}

#[test]
fn generators_sharing_a_partition_with_disjoint_ranges_never_collide() {
    let clock = ManualClock::new(T0);
    let halves = [0..=32_767, 32_768..=65_535];
    let generators: Vec<_> = halves
        .iter()
        .map(|range| {
            SnoGenerator::builder()
                .partition(7)
                .sequence_range(range.clone())
                .clock(&clock)
                .build()
                .unwrap()
        })
        .collect();
    let mut seen = HashSet::new();
    for _ in 0..5 {
        for generator in &generators {
            for _ in 0..1000 {
                assert!(seen.insert(generator.mint().unwrap()));
            }
        }
        clock.advance(4);
    }
}

#[test]
fn eight_threads_mint_unique_ids() {
    let generator = SnoGenerator::builder().partition(99).build().unwrap();
    let per_thread = 20_000;
    let ids: Vec<Vec<SnoId>> = on_threads(8, |meta| {
        let meta = meta as u8;
        let mut ids = Vec::with_capacity(per_thread);
        let mut buffer = [SnoId::default(); 16];
        while ids.len() < per_thread {
            if ids.len() % 3 == 0 {
                let n = generator.mint_batch_with_meta(meta, &mut buffer).unwrap();
                ids.extend_from_slice(&buffer[..n]);
            } else {
                ids.push(generator.mint_with_meta(meta).unwrap());
            }
        }
        ids
    });
    let mut unique = HashSet::new();
    for (meta, thread_ids) in ids.iter().enumerate() {
        for id in thread_ids {
            assert_eq!((id.meta(), id.partition()), (meta as u8, 99));
            assert!(unique.insert(*id), "{id:?} minted twice");
        }
    }
    // Unique without the metabyte too: the word alone tells them apart.
    let words: HashSet<(u64, u8, u16)> = ids
        .iter()
        .flatten()
        .map(|id| (id.ticks(), id.timeline(), id.sequence()))
        .collect();
    assert_eq!(words.len(), unique.len());
}

#[test]
fn a_stalled_mint_sends_an_overflow_event() {
    let (tx, rx) = mpsc::sync_channel(4);
    let (generator, clock) = sno_on_manual_clock(
        SnoGenerator::builder()
            .partition(0)
            .sequence_range(0..=0)
            .notify(tx),
        T0,
    );
    generator.mint().unwrap();
    let next = thread::scope(|s| {
        s.spawn(|| {
            thread::sleep(Duration::from_millis(50));
            clock.advance(4);
        });
        generator.mint().unwrap()
    });
    assert_eq!(next.unix_ms(), T0 + 4);
    let tick = (T0 - SnoId::EPOCH_MS) / 4;
    assert_eq!(rx.try_recv(), Ok(Event::Overflow { tick }));
}

#[test]
fn a_resumed_generator_keeps_its_partition_and_never_repeats() {
    let (old, clock) = sno_on_manual_clock(
        SnoGenerator::builder().partition(3).sequence_range(10..=20),
        T0,
    );
    let before: Vec<SnoId> = (0..5).map(|_| old.mint().unwrap()).collect();
    let snapshot = old.snapshot();
    assert_eq!(snapshot.partition, 3);
    assert_eq!(snapshot.core.sequence_range, 10..=20);

    // Same clock: continues after the last sequence.
    let same = SnoGenerator::resume(&snapshot)
        .clock(clock.clone())
        .build()
        .unwrap();
    let next = same.mint().unwrap();
    assert_eq!(
        (next.partition(), next.sequence(), next.timeline()),
        (3, 15, 0)
    );
    assert!(next > *before.last().unwrap());

    // A clock behind: the other timeline.
    let behind = SnoGenerator::resume(&snapshot)
        .clock(ManualClock::new(T0 - 400))
        .build()
        .unwrap();
    let moved = behind.mint().unwrap();
    assert_eq!((moved.timeline(), moved.sequence()), (1, 10));
    assert!(!before.contains(&moved));

    // A snapshot of another layout is refused.
    let other = snowmint::Generator::builder(snowmint::Layout::TWITTER)
        .node("machine", 0)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    let mut foreign = SnoSnapshot::at_mark(0, 0, None);
    foreign.core = other.snapshot();
    let err = SnoGenerator::resume(&foreign)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidSnapshot {
            layout: "twitter",
            ..
        }
    ));
}

#[test]
fn a_clock_outside_the_sno_range_is_an_error() {
    let generator = SnoGenerator::builder()
        .partition(0)
        .clock(ManualClock::new(SnoId::EPOCH_MS - 1))
        .build()
        .unwrap();
    assert!(matches!(
        generator.mint(),
        Err(Error::BeforeEpoch { layout: "sno", .. })
    ));
    let generator = SnoGenerator::builder()
        .partition(0)
        .clock(ManualClock::new(SnoId::MAX_UNIX_MS + 4))
        .build()
        .unwrap();
    assert!(matches!(
        generator.mint(),
        Err(Error::TimeOverflow { layout: "sno", .. })
    ));
    let last = SnoGenerator::builder()
        .partition(0)
        .clock(ManualClock::new(SnoId::MAX_UNIX_MS + 3))
        .build()
        .unwrap()
        .mint_with_meta(255)
        .unwrap();
    assert_eq!(last.unix_ms(), SnoId::MAX_UNIX_MS);
}

#[cfg(feature = "serde")]
#[test]
fn serde_uses_the_text_form() {
    let id = SnoId::compose(T0, 1, 2, 3, 4).unwrap();
    let json = serde_json::to_string(&id).unwrap();
    assert_eq!(json, format!("\"{id}\""));
    assert_eq!(serde_json::from_str::<SnoId>(&json).unwrap(), id);

    let ids = vec![id, SnoId::from_bytes([0xff; 10])];
    let json = serde_json::to_string(&ids).unwrap();
    assert_eq!(json, format!("[\"{id}\",\"xxxxxxxxxxxxxxxx\"]"));
    assert_eq!(serde_json::from_str::<Vec<SnoId>>(&json).unwrap(), ids);

    let err = serde_json::from_str::<SnoId>("\"222222222222222\"").unwrap_err();
    assert!(
        err.to_string()
            .contains("invalid sno id \"222222222222222\": 15 characters, expected exactly 16"),
        "{err}"
    );
    let err = serde_json::from_str::<SnoId>("\"XXXXXXXXXXXXXXXX\"").unwrap_err();
    assert!(err.to_string().contains("'X' at position 0"), "{err}");
    let err = serde_json::from_str::<SnoId>("12").unwrap_err();
    assert!(err.to_string().contains("a sno id: 16 characters"), "{err}");
}

/// Regression: a sno generator built without a partition minted as partition 0, so two
/// processes that both forgot it minted the same IDs. The partition has no default.
#[test]
fn a_sno_generator_without_a_partition_is_an_error() {
    let err = SnoGenerator::builder().build().unwrap_err();
    assert_eq!(
        err,
        Error::NodeNotSet {
            layout: "sno",
            fields: vec![("partition", 65_535)],
        }
    );
    // Resumed from a snapshot, it keeps the snapshot's partition.
    let old = SnoGenerator::builder()
        .partition(0)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    old.mint().unwrap();
    let new = SnoGenerator::resume(&old.snapshot())
        .clock(ManualClock::new(T0 + 8))
        .build()
        .unwrap();
    assert_eq!(new.mint().unwrap().partition(), 0);
}

/// Regression: a snapshot did not keep the metabyte and a resumed
/// generator minted with metabyte 0, so within one 4 ms unit its first ID sorted below the last
/// one before the snapshot. The snapshot keeps it, and the resumed generator mints with it.
#[test]
fn a_resumed_generator_keeps_the_metabyte_and_sorts_above_the_last_id() {
    let clock = ManualClock::new(T0);
    let old = SnoGenerator::builder()
        .partition(3)
        .meta(0xa0)
        .clock(&clock)
        .build()
        .unwrap();
    let last = old.mint().unwrap();
    let snapshot = old.snapshot();
    assert_eq!(snapshot.meta, 0xa0);
    let resumed = SnoGenerator::resume(&snapshot)
        .clock(&clock)
        .build()
        .unwrap();
    let next = resumed.mint().unwrap();
    assert_eq!((next.meta(), next.partition()), (0xa0, 3));
    assert_eq!(next.unix_ms(), last.unix_ms()); // the same 4 ms unit
    assert!(next > last, "{next} sorts below {last}");
    // The builder may still set another.
    let other = SnoGenerator::resume(&snapshot)
        .meta(1)
        .clock(&clock)
        .build()
        .unwrap();
    assert_eq!(other.mint().unwrap().meta(), 1);
}

#[test]
fn try_mint_with_meta_stamps_the_metabyte_and_fails_instead_of_waiting() {
    let clock = snowmint::clock::ManualClock::new(1_700_000_000_000);
    let generator = snowmint::sno::SnoGenerator::builder()
        .partition(3)
        .sequence_range(0..=1)
        .clock(&clock)
        .build()
        .unwrap();
    let first = generator.try_mint_with_meta(200).unwrap();
    assert_eq!((first.meta(), first.partition()), (200, 3));
    assert_eq!(generator.try_mint_with_meta(9).unwrap().meta(), 9);
    assert!(matches!(
        generator.try_mint_with_meta(9),
        Err(snowmint::Error::SequenceExhausted { .. })
    ));
}
