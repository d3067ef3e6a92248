use super::*;
use crate::LocalGenerator;
use crate::clock::ManualClock;
use crate::family::{Engine, Family, Remember};
use crate::id128::{UlidGenerator, Uuid7Generator};
use crate::shard::{ShardedGenerator, Shards};

const T0: u64 = 1_700_000_000_000;

#[test]
fn the_layout_is_42_bits_of_unix_ms_over_a_22_bit_sequence() {
    assert_eq!(
        (LAYOUT.time_field().bits(), LAYOUT.time_field().shift()),
        (42, 22)
    );
    assert_eq!((LAYOUT.epoch_ms(), LAYOUT.tick_ms()), (0, 1));
    assert_eq!(LAYOUT.node_fields().count(), 0);
    assert_eq!(LAYOUT.max_sequence(), SEQUENCE_MASK);
    // 2109-05-15T07:35:11.103Z.
    assert_eq!(LAYOUT.max_unix_ms(), 4_398_046_511_103);
}

#[test]
fn a_first_id_plus_any_sequence_stays_in_its_millisecond_and_field() {
    let ulids = UlidGenerator::builder().build().unwrap();
    let uuids = Uuid7Generator::builder().build().unwrap();
    for ms in [1, 1_700_000_000_000, LAYOUT.max_unix_ms()] {
        let starts = ulids.engine.starts(&ulids.memory);
        let base = bits::<Ulid>(&ulids.map, &starts, ms << SEQUENCE_BITS);
        let last = Ulid::from_u128(base + u128::from(SEQUENCE_MASK));
        assert_eq!(last.unix_ms(), ms);
        assert_eq!(
            last.random() - Ulid::from_u128(base).random(),
            u128::from(SEQUENCE_MASK)
        );
        let starts = uuids.engine.starts(&uuids.memory);
        let base = bits::<Uuid7>(&uuids.map, &starts, ms << SEQUENCE_BITS);
        let (first, last) = (
            Uuid7::from_bits(base),
            Uuid7::from_bits(base + u128::from(SEQUENCE_MASK)),
        );
        assert_eq!(last.unix_ms(), ms);
        assert_eq!(last.random() - first.random(), u128::from(SEQUENCE_MASK));
        assert_eq!(
            Uuid7::from_u128(last.to_u128()),
            Ok(last),
            "version and variant intact"
        );
    }
    // Whatever the seed.
    for seed in [0, u128::MAX] {
        let last = <Uuid7 as Random>::base(7, seed) + u128::from(SEQUENCE_MASK);
        assert_eq!(Uuid7::from_u128(last).map(|id| id.unix_ms()), Ok(7));
        let last = <Ulid as Random>::base(7, seed) + u128::from(SEQUENCE_MASK);
        assert_eq!(Ulid::from_u128(last).unix_ms(), 7);
    }
}

#[test]
fn a_local_generator_remembers_the_first_id_it_computes() {
    let generator = UlidGenerator::builder().build_local().unwrap();
    let key = &generator.map;
    let starts = generator.engine.starts(&generator.memory);
    let ms = 1_700_000_000_000;
    let fresh = <Ulid as Random>::base(ms, key.seed(ms));
    let word = ms << SEQUENCE_BITS;
    assert_eq!(bits::<Ulid>(key, &starts, word + 5), fresh + 5);
    assert_eq!(generator.memory.0.get(), (word, fresh));
    assert_eq!(bits::<Ulid>(key, &starts, word), fresh);
    assert_eq!(
        bits::<Ulid>(key, &starts, word + (1 << SEQUENCE_BITS)) >> 80,
        u128::from(ms + 1)
    );
}

/// A 128-bit ID's bits, for the tests below.
trait Bits: Random + Family + sealed::Family<Map = Key> + fmt::Debug {
    fn bits(self) -> u128;
}

impl Bits for Ulid {
    fn bits(self) -> u128 {
        self.to_u128()
    }
}

impl Bits for Uuid7 {
    fn bits(self) -> u128 {
        self.to_u128()
    }
}

/// The sequence `id` carries over its millisecond's start under `generator`'s key, computed
/// anew from the key: panics unless `id` is that start plus a sequence of the field.
fn sequence<K: Bits, G: Engine>(generator: &FamilyGenerator<K, G>, id: K, ms: u64) -> u64 {
    let start = K::base(ms, generator.map.seed(ms));
    let sequence = id.bits().wrapping_sub(start);
    assert!(
        sequence <= u128::from(SEQUENCE_MASK),
        "{id:?} is not a start of its generator's key for {ms} plus a sequence"
    );
    sequence as u64
}

/// On `generator`, whose clock reads [`T0`]: single mints, a batch and a mint that never
/// waits, then the same on the next millisecond, each ID its millisecond's start under the
/// generator's key plus a sequence, increasing; the sequences it carried.
fn keyed<K: Bits, G: Engine>(generator: &FamilyGenerator<K, G>, clock: &ManualClock) -> Vec<u64> {
    let mut sequences = Vec::new();
    for ms in [T0, T0 + 1] {
        clock.set(ms);
        let mut ids = vec![generator.mint().unwrap(), generator.try_mint().unwrap()];
        let mut batch = [K::default(); 3];
        assert_eq!(generator.mint_batch(&mut batch).unwrap(), 3);
        ids.extend(batch);
        ids.push(generator.mint_or_wait().unwrap().minted().unwrap());
        ids.push(generator.mint().unwrap());
        let keyed: Vec<u64> = ids.iter().map(|&id| sequence(generator, id, ms)).collect();
        assert!(keyed.windows(2).all(|pair| pair[0] < pair[1]), "{keyed:?}");
        sequences.extend(keyed);
    }
    sequences
}

#[test]
fn every_engine_mints_each_milliseconds_keyed_start_plus_the_sequence() {
    let clock = ManualClock::new(T0);
    let uuids = || Uuid7Generator::builder().clock(&clock);
    let ulids = || UlidGenerator::builder().clock(&clock);
    let consecutive = [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6];
    assert_eq!(keyed(&uuids().build().unwrap(), &clock), consecutive);
    assert_eq!(keyed(&ulids().build().unwrap(), &clock), consecutive);
    assert_eq!(keyed(&uuids().build_local().unwrap(), &clock), consecutive);
    assert_eq!(keyed(&ulids().build_local().unwrap(), &clock), consecutive);
    // This thread's shard is the first: the lower half of the sequence.
    for sharded in [
        keyed(
            &uuids().build_sharded(Shards::SplitSequence(2)).unwrap(),
            &clock,
        ),
        keyed(
            &ulids().build_sharded(Shards::SplitSequence(2)).unwrap(),
            &clock,
        ),
    ] {
        assert!(
            sharded.iter().all(|&sequence| sequence < 1 << 21),
            "{sharded:?}"
        );
    }
}

/// Mints from `a` and `b` in turn on one thread, `n` each, on [`T0`] and the next
/// millisecond: each ID its own generator's start plus a sequence, each generator's
/// increasing.
fn in_turn<K: Bits, A: Engine, B: Engine>(
    a: &FamilyGenerator<K, A>,
    b: &FamilyGenerator<K, B>,
    clock: &ManualClock,
) {
    for ms in [T0, T0 + 1] {
        clock.set(ms);
        let (mut last_a, mut last_b) = (None, None);
        for _ in 0..20 {
            let next = Some(sequence(a, a.mint().unwrap(), ms));
            assert!(last_a < next);
            last_a = next;
            let next = Some(sequence(b, b.mint().unwrap(), ms));
            assert!(last_b < next);
            last_b = next;
        }
    }
}

#[test]
fn generators_used_in_turn_on_one_thread_mint_from_their_own_keys() {
    let clock = ManualClock::new(T0);
    let shared = || UlidGenerator::builder().clock(&clock).build().unwrap();
    let sharded = || {
        UlidGenerator::builder()
            .clock(&clock)
            .build_sharded(Shards::SplitSequence(2))
            .unwrap()
    };
    let local = || {
        UlidGenerator::builder()
            .clock(&clock)
            .build_local()
            .unwrap()
    };
    in_turn::<_, Generator<_>, Generator<_>>(&shared(), &shared(), &clock);
    in_turn::<_, ShardedGenerator<_>, ShardedGenerator<_>>(&sharded(), &sharded(), &clock);
    in_turn::<_, Generator<_>, ShardedGenerator<_>>(&shared(), &sharded(), &clock);
    in_turn::<_, ShardedGenerator<_>, LocalGenerator<_>>(&sharded(), &local(), &clock);
    // A sharded generator's batches between single mints of another.
    let (a, b) = (sharded(), sharded());
    clock.set(T0);
    for _ in 0..20 {
        sequence(&a, a.mint().unwrap(), T0);
        let mut batch = [Ulid::default(); 2];
        b.mint_batch(&mut batch).unwrap();
        sequence(&b, batch[0], T0);
        sequence(&b, b.mint().unwrap(), T0);
    }
}

#[test]
fn a_generator_built_after_another_mints_from_its_own_key() {
    let clock = ManualClock::new(T0);
    let mut keys = Vec::new();
    for _ in 0..4 {
        // Each built where the last one was, after it minted on this thread.
        let shared = Uuid7Generator::builder().clock(&clock).build().unwrap();
        assert_eq!(sequence(&shared, shared.mint().unwrap(), T0), 0);
        keys.push(shared.map);
        let sharded = Uuid7Generator::builder()
            .clock(&clock)
            .build_sharded(Shards::SplitSequence(1))
            .unwrap();
        assert_eq!(sequence(&sharded, sharded.mint().unwrap(), T0), 0);
        keys.push(sharded.map);
    }
    assert!((1..keys.len()).all(|i| !keys[..i].contains(&keys[i])));
}

/// What `generator`, given key `(1, 2)` and a clock at [`T0`], mints: two IDs, then one on
/// the next millisecond.
fn under_a_given_key<K: Bits, G: Engine>(
    mut generator: FamilyGenerator<K, G>,
    clock: &ManualClock,
) -> [u128; 3] {
    generator.map = Key::new(1, 2);
    clock.set(T0);
    let (a, b) = (generator.mint().unwrap(), generator.mint().unwrap());
    clock.advance(1);
    [a.bits(), b.bits(), generator.mint().unwrap().bits()]
}

#[test]
fn the_ids_of_a_given_key_and_clock_are_pinned_on_every_engine() {
    let clock = ManualClock::new(T0);
    let uuids = || Uuid7Generator::builder().clock(&clock);
    let ulids = || UlidGenerator::builder().clock(&clock);
    // The same on every engine, whether it computes each first ID or remembers it.
    let uuid = [
        0x018bcfe5_68007d5b_9691e240_b23071d2,
        0x018bcfe5_68007d5b_9691e240_b23071d3,
        0x018bcfe5_68017aef_87e57f4e_c8619c91,
    ];
    let ulid = [
        0x018bcfe5_68005d5b_d691e240_b23071d2,
        0x018bcfe5_68005d5b_d691e240_b23071d3,
        0x018bcfe5_68016aef_87e57f4e_c8619c91,
    ];
    assert_eq!(under_a_given_key(uuids().build().unwrap(), &clock), uuid);
    assert_eq!(
        under_a_given_key(uuids().build_local().unwrap(), &clock),
        uuid
    );
    let sharded = uuids().build_sharded(Shards::SplitSequence(1)).unwrap();
    assert_eq!(under_a_given_key(sharded, &clock), uuid);
    assert_eq!(under_a_given_key(ulids().build().unwrap(), &clock), ulid);
    assert_eq!(
        under_a_given_key(ulids().build_local().unwrap(), &clock),
        ulid
    );
    let sharded = ulids().build_sharded(Shards::SplitSequence(1)).unwrap();
    assert_eq!(under_a_given_key(sharded, &clock), ulid);
}
