//! Opaque IDs (`mask`): known answers under a fixed key at each width, a reference written
//! from the cipher's paper and the module's construction, exact inverses, no collisions among
//! 10^7 consecutive IDs (64 bits; fewer at the narrower widths), the width kept, and errors
//! for values outside it.

#![cfg(feature = "mask")]

mod common;

use proptest::prelude::*;
use snowmint::mask::{MaskKey, MaskWidth, Masker};
use snowmint::{Error, Id, Layout};

/// The key of the known answers: bytes 0 to 15.
fn key() -> MaskKey {
    MaskKey::from_bytes(std::array::from_fn(|i| i as u8))
}

/// Speck64/128 written from "The SIMON and SPECK Families of Lightweight Block Ciphers"
/// (2013), section 4.2: 27 rounds on two 32-bit words, rotations 8 and 3, and its key
/// schedule; the key and the block as the paper writes them (most significant word first).
struct Speck {
    round_keys: [u32; 27],
}

impl Speck {
    fn new(key: [u8; 16]) -> Speck {
        let word = |i: usize| u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap());
        // The paper's key (l2, l1, l0, k0), most significant first.
        let (mut l, mut k) = (vec![word(2), word(1), word(0)], word(3));
        let mut round_keys = [0; 27];
        for (i, round_key) in round_keys.iter_mut().enumerate() {
            *round_key = k;
            let next_l = k.wrapping_add(l[i].rotate_right(8)) ^ i as u32;
            k = k.rotate_left(3) ^ next_l;
            l.push(next_l);
        }
        Speck { round_keys }
    }

    /// The cipher under the key the module docs derive from `key` for `tag` (a width, or a
    /// facade's 128 or 129): "mask", the tag and a block index, enciphered, twice.
    fn derived(key: [u8; 16], tag: u64) -> Speck {
        let master = Speck::new(key);
        let derive = |index: u64| master.encrypt(0x6d61_736b << 32 | tag << 8 | index);
        let mut derived = [0u8; 16];
        derived[..8].copy_from_slice(&derive(0).to_be_bytes());
        derived[8..].copy_from_slice(&derive(1).to_be_bytes());
        Speck::new(derived)
    }

    fn encrypt(&self, block: u64) -> u64 {
        let (mut x, mut y) = ((block >> 32) as u32, block as u32);
        for &k in &self.round_keys {
            x = x.rotate_right(8).wrapping_add(y) ^ k;
            y = y.rotate_left(3) ^ x;
        }
        u64::from(x) << 32 | u64::from(y)
    }
}

/// The masking the module docs describe, from the reference cipher: the width's key derived
/// from the master key, then one encryption (64 bits), cycle walking (63), or the 10-round
/// Feistel network of FF1's shape (fewer).
fn reference_mask(key: [u8; 16], bits: u32, value: u64) -> u64 {
    let cipher = Speck::derived(key, u64::from(bits));
    match bits {
        64 => cipher.encrypt(value),
        63 => {
            let mut x = cipher.encrypt(value);
            while x >= 1 << 63 {
                x = cipher.encrypt(x);
            }
            x
        }
        n => {
            let (n, u) = (u64::from(n), u64::from(n / 2));
            let v = n - u;
            let (mut a, mut b) = (value >> v, value & ((1 << v) - 1));
            for i in 0..10 {
                let m = if i & 1 == 0 { u } else { v };
                let f = cipher.encrypt(i << 56 | n << 48 | b) & ((1 << m) - 1);
                (a, b) = (b, a ^ f);
            }
            a << v | b
        }
    }
}

#[test]
fn the_reference_cipher_gives_the_papers_test_vector() {
    let key = [
        0x1b, 0x1a, 0x19, 0x18, 0x13, 0x12, 0x11, 0x10, 0x0b, 0x0a, 0x09, 0x08, 0x03, 0x02, 0x01,
        0x00,
    ];
    assert_eq!(
        Speck::new(key).encrypt(0x3b72_6574_7475_432d),
        0x8c6f_a548_454e_028b
    );
}

/// Known answers: the key 00..0f, the Twitter ID of the layout docs and two edge values, at
/// each width. Computed once by this implementation, and each checked against the reference first;
/// a change to any of them changes every public ID a service has handed out.
#[test]
fn known_answers_at_each_width() {
    let tweet = Layout::TWITTER.parse("1541815603606036480").unwrap();
    let cases: [(MaskWidth, [(u64, u64); 3]); 3] = [
        (
            MaskWidth::U64,
            [
                (0, 0xf798_2269_cc80_793d),
                (tweet.to_u64(), 0xfee4_cd1d_8a24_2aed),
                (u64::MAX, 0x0750_6e9a_3032_7fd4),
            ],
        ),
        (
            MaskWidth::BIGINT,
            [
                (0, 0x40b9_9ef0_aea4_e49b),
                (tweet.to_u64(), 0x63c0_cdc5_42b0_83f1),
                (i64::MAX as u64, 0x0a04_fa7d_19b9_2175),
            ],
        ),
        (
            MaskWidth::JS_SAFE,
            [
                (0, 0x001d_e106_a267_6aa4),
                (1 << 52, 0x0014_cfc2_fea4_ab43),
                ((1 << 53) - 1, 0x0012_af4d_0617_e053),
            ],
        ),
    ];
    for (width, answers) in &cases {
        for &(id, masked) in answers {
            assert_eq!(reference_mask(key().to_bytes(), width.get(), id), masked);
        }
    }
    for (width, answers) in cases {
        let masker = Masker::new(&key(), width);
        for (id, masked) in answers {
            assert_eq!(
                masker.mask(Id::from_u64(id)).unwrap(),
                masked,
                "{width:?}: {id:#x}"
            );
            assert_eq!(masker.unmask(masked).unwrap().to_u64(), id, "{width:?}");
        }
    }
}

proptest! {
    #[test]
    fn mask_is_the_reference_and_unmask_its_inverse(
        key in any::<[u8; 16]>(),
        bits in prop_oneof![Just(64u32), Just(63), Just(53), 32u32..=62],
        raw in any::<u64>(),
    ) {
        let masker = Masker::new(&MaskKey::from_bytes(key), MaskWidth::bits(bits).unwrap());
        let id = raw >> (64 - bits);
        let masked = masker.mask(Id::from_u64(id)).unwrap();
        prop_assert_eq!(masked, reference_mask(key, bits, id));
        prop_assert!(bits == 64 || masked >> bits == 0, "{} out of {} bits", masked, bits);
        prop_assert_eq!(masker.unmask(masked).unwrap().to_u64(), id);
    }
}

/// Masks `count` consecutive IDs (the sequence of one node in one busy stretch, the values
/// most alike) at `width`: each inside the width, no two alike.
fn assert_consecutive_ids_mask_apart(width: MaskWidth, count: u64) {
    let first = Layout::TWITTER
        .parse("1541815603606036480")
        .unwrap()
        .to_u64()
        >> 11;
    let masker = Masker::new(&key(), width);
    let mut masked: Vec<u64> = (first..first + count)
        .map(|id| masker.mask(Id::from_u64(id)).unwrap())
        .collect();
    assert!(
        masked
            .iter()
            .all(|&m| width.get() == 64 || m >> width.get() == 0)
    );
    masked.sort_unstable();
    masked.dedup();
    assert_eq!(masked.len() as u64, count, "{width:?}: collisions");
}

/// 10^7 at 64 bits (one encryption each); 10^6 at 63 bits (two) and 4 × 10^5 at 53 (ten),
/// which this debug-built test would take half a minute over at 10^7 (the ignored test below
/// runs 10^7 at each, optimized).
#[test]
fn consecutive_ids_mask_to_distinct_values_ten_million_at_64_bits() {
    assert_consecutive_ids_mask_apart(MaskWidth::U64, 10_000_000);
    assert_consecutive_ids_mask_apart(MaskWidth::BIGINT, 1_000_000);
    assert_consecutive_ids_mask_apart(MaskWidth::JS_SAFE, 400_000);
}

/// 10^7 consecutive IDs at each width, all distinct: at 63 and 53 bits too, where the debug
/// build of the test above takes fewer. Optimized: `.ci/check` runs it with
/// `cargo test --release --features mask --test mask -- --ignored` (a few seconds).
#[test]
#[ignore = "10^7 masks at each width: run optimized, as .ci/check does"]
fn ten_million_consecutive_ids_mask_to_distinct_values_at_every_width() {
    for width in [MaskWidth::U64, MaskWidth::BIGINT, MaskWidth::JS_SAFE] {
        assert_consecutive_ids_mask_apart(width, 10_000_000);
    }
}

#[test]
fn values_outside_the_width_are_errors_never_wrapped() {
    let masker = Masker::new(&key(), MaskWidth::JS_SAFE);
    let err = masker.mask(Id::from_u64(1 << 53)).unwrap_err();
    assert!(
        matches!(err, Error::OutsideMaskWidth { what: "id", value, bits: 53 } if value == 1 << 53)
    );
    assert_eq!(
        err.to_string(),
        "id 9007199254740992 is outside the mask's 53-bit width, expected a value below 2^53"
    );
    let bigint = Masker::new(&key(), MaskWidth::BIGINT);
    assert!(matches!(
        bigint.unmask(u64::MAX),
        Err(Error::OutsideMaskWidth {
            what: "masked value",
            bits: 63,
            ..
        })
    ));
    assert!(matches!(
        MaskWidth::bits(31),
        Err(Error::InvalidMaskWidth { bits: 31 })
    ));
    assert!(MaskWidth::bits(65).is_err());
}

#[test]
fn keys_read_from_hex_and_never_shown() {
    let key = MaskKey::from_hex(" 000102030405060708090a0b0c0d0e0F\n").unwrap();
    assert_eq!(key, self::key());
    assert_eq!(format!("{key:?}"), "MaskKey(..)");
    for (text, problem) in [
        ("00", "2 characters, expected 32 hexadecimal digits"),
        (
            "000102030405060708090a0b0c0d0e0g",
            "'g' at position 31 is not a hexadecimal digit",
        ),
    ] {
        let err = MaskKey::from_hex(text).unwrap_err().to_string();
        assert!(err.contains(problem), "{text}: {err}");
    }
    // Two keys, two unrelated permutations; two widths of one key too.
    let other = Masker::new(&MaskKey::from_bytes([1; 16]), MaskWidth::U64);
    let masker = Masker::new(&key, MaskWidth::U64);
    let bigint = Masker::new(&key, MaskWidth::BIGINT);
    let id = Id::from_u64(12_345);
    assert_ne!(masker.mask(id).unwrap(), other.mask(id).unwrap());
    assert_ne!(masker.mask(id).unwrap(), bigint.mask(id).unwrap());
}

/// The serde adapter: the struct keeps the real ID, JSON shows the installed masker's value
/// as a decimal string, reading it back unmasks it, and a value outside the width is refused.
/// (The only test of this binary that installs a masker.)
#[cfg(feature = "serde")]
#[test]
fn masked_fields_show_the_masked_value_and_read_back_the_real_id() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Row {
        #[serde(with = "snowmint::mask::masked")]
        id: Id,
    }
    let masker = Masker::new(&key(), MaskWidth::JS_SAFE);
    assert!(snowmint::mask::install(masker.clone()).is_ok());
    let row = Row {
        id: Id::from_u64(1_234_567_890),
    };
    let json = serde_json::to_string(&row).unwrap();
    let shown = masker.mask(row.id).unwrap();
    assert_eq!(json, format!(r#"{{"id":"{shown}"}}"#));
    assert_eq!(serde_json::from_str::<Row>(&json).unwrap(), row);
    // A number is read too; a value no ID masks to is an error naming the width.
    let number: Row = serde_json::from_str(&format!(r#"{{"id":{shown}}}"#)).unwrap();
    assert_eq!(number, row);
    let err = serde_json::from_str::<Row>(r#"{"id":"9007199254740992"}"#).unwrap_err();
    assert!(
        err.to_string().contains("outside the mask's 53-bit width"),
        "{err}"
    );
    // An ID too large for the width is refused when written, never wrapped.
    let too_large = Row {
        id: Id::from_u64(1 << 60),
    };
    assert!(serde_json::to_string(&too_large).is_err());
    // A forked child keeps the installed masker: the same public IDs.
    let ended = common::forks::fork(|pipe| {
        use std::io::Write;
        let json = serde_json::to_string(&Row {
            id: Id::from_u64(1_234_567_890),
        })
        .map_err(|e| e.to_string())?;
        write!(pipe, "{json}").map_err(|e| e.to_string())
    })
    .wait(std::time::Duration::from_secs(30));
    ended.success().unwrap();
    assert_eq!(ended.output, json);
}

mod facade {
    //! The 128-bit facades: a UUIDv7 as a version 4 UUID and back, a ULID as noise and back,
    //! the counter of consecutive IDs hidden, a reference from the test's own cipher, known
    //! answers, and the facade's text.

    use super::*;
    use snowmint::error::ParseIdReason;
    use snowmint::id128::{Ulid, Uuid7, Uuid7Generator};
    use snowmint::mask::{FacadeMasker, MaskedUuid};

    #[test]
    fn a_uuid7_shows_as_a_version_4_uuid_with_its_time_and_counter_hidden_and_comes_back() {
        let masker = FacadeMasker::new(&key());
        let generator = Uuid7Generator::builder().build().unwrap();
        let ids = generator.mint_many(10_000).unwrap();
        let mut shown_times = std::collections::HashSet::new();
        let mut shown_randoms = Vec::new();
        for &id in &ids {
            let shown = masker.mask_uuid7(id);
            let text = shown.to_string();
            assert_eq!(text.as_bytes()[14], b'4', "{text}");
            assert!(
                matches!(text.as_bytes()[19], b'8' | b'9' | b'a' | b'b'),
                "{text}"
            );
            shown_times.insert(shown.to_u128() >> 80);
            shown_randoms.push(shown.to_u128() & ((1 << 62) - 1));
            assert_eq!(masker.unmask_uuid7(shown), id);
            assert_eq!(masker.unmask_uuid7(text.parse().unwrap()), id);
        }
        // 10,000 IDs of a few milliseconds: 10,000 different shown times, and the counter in
        // their random bits hidden: no two consecutive IDs show nearby random parts.
        assert_eq!(shown_times.len(), ids.len());
        assert!(
            shown_randoms
                .windows(2)
                .all(|pair| pair[0].abs_diff(pair[1]) > 1 << 22)
        );
        // Another key shows other values.
        let other = FacadeMasker::new(&MaskKey::from_bytes([9; 16]));
        assert_ne!(other.mask_uuid7(ids[0]), masker.mask_uuid7(ids[0]));
    }

    #[test]
    fn a_ulid_shows_as_noise_and_comes_back() {
        let masker = FacadeMasker::new(&key());
        let ids = snowmint::id128::UlidGenerator::builder()
            .build()
            .unwrap()
            .mint_many(10_000)
            .unwrap();
        let mut times = std::collections::HashSet::new();
        let mut randoms = Vec::new();
        for &id in &ids {
            let shown = masker.mask_ulid(id);
            times.insert(shown.unix_ms());
            randoms.push(shown.random());
            assert_eq!(masker.unmask_ulid(shown), id);
        }
        assert_eq!(times.len(), ids.len());
        assert!(
            randoms
                .windows(2)
                .all(|pair| pair[0].abs_diff(pair[1]) > 1 << 22)
        );
    }

    #[test]
    fn known_answers_and_text_errors() {
        let masker = FacadeMasker::new(&key());
        let uuid: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse().unwrap();
        let shown = masker.mask_uuid7(uuid);
        assert_eq!(shown.to_string(), KNOWN_UUID);
        assert_eq!(masker.unmask_uuid7(KNOWN_UUID.parse().unwrap()), uuid);
        let ulid: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
        assert_eq!(masker.mask_ulid(ulid).to_string(), KNOWN_ULID);
        // A version 7 UUID (or any but a version 4) is no facade.
        let err = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
            .parse::<MaskedUuid>()
            .unwrap_err();
        assert!(matches!(
            err,
            Error::ParseId {
                reason: ParseIdReason::NotUuid4 {
                    version: 7,
                    variant: 0b10
                },
                ..
            }
        ));
        assert!("not a uuid".parse::<MaskedUuid>().is_err());
        assert!(MaskedUuid::from_u128(0).is_err());
    }

    /// The facade the [`FacadeMasker`] docs describe, from the reference cipher: under the key
    /// derived for the facade's tag (128 for UUIDs, 129 for ULIDs), four Feistel rounds on the
    /// time `t` and the random bits `r` (a UUID's `rand_a` over its `rand_b`; a ULID's 80):
    /// `t ^= F(1, r)`, `r ^= G(2, t)`, `t ^= F(3, r)`, `r ^= G(4, t)`, where `F(i, r)` is the
    /// top 48 bits of `E(E(low r) ^ (high r | i << 56))` and `G(i, t)` the low bits of
    /// `E(t | i << 56 | 0 << 48) ‖ E(t | i << 56 | 1 << 48)`; a UUID's version then 4.
    fn reference_facade(key: [u8; 16], bits: u128, uuid: bool) -> u128 {
        let tag: u64 = if uuid { 128 } else { 129 };
        let e = Speck::derived(key, tag);
        let width = if uuid { 74 } else { 80 };
        let mut t = (bits >> 80) as u64;
        let mut r = if uuid {
            (bits >> 64 & 0xfff) << 62 | bits & ((1 << 62) - 1)
        } else {
            bits & ((1 << 80) - 1)
        };
        let f =
            |i: u64, r: u128| e.encrypt(e.encrypt(r as u64) ^ ((r >> 64) as u64 | i << 56)) >> 16;
        let g = |i: u64, t: u64| {
            let (a, b) = (e.encrypt(t | i << 56), e.encrypt(t | i << 56 | 1 << 48));
            (u128::from(a) << 64 | u128::from(b)) & ((1 << width) - 1)
        };
        t ^= f(1, r);
        r ^= g(2, t);
        t ^= f(3, r);
        r ^= g(4, t);
        if uuid {
            u128::from(t) << 80 | 0x4 << 76 | (r >> 62) << 64 | 0b10 << 62 | r & ((1 << 62) - 1)
        } else {
            u128::from(t) << 80 | r
        }
    }

    #[test]
    fn the_facades_are_the_reference() {
        let masker = FacadeMasker::new(&key());
        let generator = Uuid7Generator::builder().build().unwrap();
        for id in generator.mint_many(1_000).unwrap() {
            let expected = reference_facade(key().to_bytes(), id.to_u128(), true);
            assert_eq!(masker.mask_uuid7(id).to_u128(), expected);
        }
        let ulid: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
        assert_eq!(
            masker.mask_ulid(ulid).to_u128(),
            reference_facade(key().to_bytes(), ulid.to_u128(), false)
        );
        let uuid: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse().unwrap();
        assert_eq!(
            KNOWN_UUID.parse::<MaskedUuid>().unwrap().to_u128(),
            reference_facade(key().to_bytes(), uuid.to_u128(), true)
        );
        assert_eq!(
            KNOWN_ULID.parse::<Ulid>().unwrap().to_u128(),
            reference_facade(key().to_bytes(), ulid.to_u128(), false)
        );
    }

    /// The facades of the RFC 9562 example UUIDv7 and of the ULID specification's example
    /// under the key 00..0f.
    const KNOWN_UUID: &str = "9452f9ae-d68a-4b2b-9957-ccd35f7d6ed7";
    const KNOWN_ULID: &str = "75QVP0VH0MKRGFR0Z6QASXZ2N3";
}

#[test]
fn the_checked_form_refuses_nearly_every_guess_and_no_real_value() {
    // IDs below 2^53 masked into 64 bits: a guess passes with probability 2^-11.
    let masker = Masker::new(&key(), MaskWidth::U64);
    let max_id = (1 << 53) - 1;
    for id in (0..1u64 << 53).step_by(1 << 37) {
        let shown = masker.mask(Id::from_u64(id)).unwrap();
        assert_eq!(masker.unmask_within(shown, max_id).unwrap().to_u64(), id);
    }
    let guesses = 200_000u64;
    let passed = (0..guesses)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .filter(|&guess| masker.unmask_within(guess, max_id).is_ok())
        .count() as f64;
    // 2^-11 of 200,000 is about 98; five times that is out of any plausible spread.
    assert!(
        passed < 5.0 * guesses as f64 / 2048.0,
        "{passed} guesses passed"
    );
    let (guess, err) = (0..)
        .find_map(|guess| Some((guess, masker.unmask_within(guess, max_id).err()?)))
        .unwrap();
    assert!(
        matches!(err, Error::NotMaskedId { masked, max_id: m } if masked == guess && m == max_id)
    );
    assert!(err.to_string().contains("is not a masked id"), "{err}");
}
