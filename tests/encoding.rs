//! Text forms of IDs: round trips, widths and alphabets, text order, known answers from the
//! source documents, and the error for every kind of bad input.

use proptest::prelude::*;
use snowmint::{Error, Id, Layout, encoding::Encoding, error::ParseIdReason};

mod common;

use common::layouts::presets;

/// 0, 1, the largest ID of every preset, the JavaScript limit and its neighbour, `u64::MAX`.
fn edge_values() -> Vec<u64> {
    let mut values = vec![0, 1, (1 << 53) - 1, 1 << 53, u64::MAX - 1, u64::MAX];
    for layout in presets() {
        values.push(layout.max_id().to_u64());
    }
    values
}

/// The characters a form's encoder may write.
fn alphabet(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Decimal => "0123456789",
        Encoding::Base36 => "0123456789abcdefghijklmnopqrstuvwxyz",
        Encoding::Base32 => "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
        Encoding::Base62 => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        Encoding::Hex => "0123456789abcdef",
        other => panic!("no alphabet for {other}"),
    }
}

/// Checks everything an encoded ID must satisfy, and that it decodes back.
fn check_round_trip(value: u64) {
    let id = Id::from_u64(value);
    for encoding in Encoding::ALL {
        let text = id.encode(encoding);
        let s = text.as_str();
        assert_eq!(encoding.decode(s).unwrap(), id, "{encoding} {s:?}");
        assert_eq!(encoding.decode(s).unwrap(), id);
        match encoding.fixed_width() {
            Some(width) => assert_eq!(s.len(), width, "{encoding} {s:?}"),
            None => {
                assert!((1..=encoding.max_len()).contains(&s.len()), "{s:?}");
                // Unpadded: no leading zero except for the ID 0 itself.
                assert!(s == "0" || !s.starts_with('0'), "{encoding} {s:?}");
            }
        }
        assert!(s.chars().all(|c| alphabet(encoding).contains(c)), "{s:?}");
        let mut buf = [0; Encoding::MAX_LEN];
        assert_eq!(encoding.encode_into(id, &mut buf), s);
        assert_eq!(text.to_string(), s);
    }
    // Independent encoders from std for the forms it has.
    assert_eq!(id.encode(Encoding::Decimal).as_str(), value.to_string());
    assert_eq!(id.encode(Encoding::Hex).as_str(), format!("{value:016x}"));
    let base36 = id.encode(Encoding::Base36);
    assert_eq!(u64::from_str_radix(base36.as_str(), 36), Ok(value));
}

#[test]
fn every_form_round_trips_at_zero_one_each_presets_largest_id_and_u64_max() {
    for value in edge_values() {
        check_round_trip(value);
    }
    assert_eq!(Id::from_u64(0).encode(Encoding::Base36).as_str(), "0");
    assert_eq!(Id::from_u64(0).encode(Encoding::Decimal).as_str(), "0");
    assert_eq!(
        Id::from_u64(0).encode(Encoding::Base32).as_str(),
        "0000000000000"
    );
    assert_eq!(
        Id::from_u64(0).encode(Encoding::Base62).as_str(),
        "00000000000"
    );
    assert_eq!(
        Id::from_u64(1).encode(Encoding::Hex).as_str(),
        "0000000000000001"
    );
}

#[test]
fn the_largest_nanoflake_is_13_base36_characters() {
    // Nanoflake: "encoding nanoflakes using base-36, in order to fit the largest possible nanoflake
    // into a 13-character string". The largest sets all 63 bits below the sign bit. Checked
    // independently: Python's int("1y2p0ij32e8e7", 36) == 2**63 - 1 is True, and Java's
    // Long.toString(Long.MAX_VALUE, 36) gives the same string.
    let layout = Layout::nanoflake(1_600_000_000_000).unwrap();
    let largest = layout.max_id();
    assert_eq!(largest.to_u64(), (1 << 63) - 1);
    let text = largest.encode(Encoding::Base36);
    assert_eq!(text.as_str(), "1y2p0ij32e8e7");
    assert_eq!(text.len(), 13);
    assert_eq!(Encoding::Base36.decode("1y2p0ij32e8e7").unwrap(), largest);
    // The largest nanoflake at its last time with every field at its max is the same ID.
    let composed = layout
        .compose(layout.max_unix_ms(), &[("generator", 1023)], 4095)
        .unwrap();
    assert_eq!(composed, largest);
}

#[test]
fn known_answers_for_the_encyclopedias_tweet_and_u64_max() {
    // Computed with Python: int -> digits in each alphabet, and checked by decoding back with
    // int(s, 36), int(s, 16) and a digit-by-digit sum for base32 and base62.
    let tweet = Id::from_u64(1_541_815_603_606_036_480);
    let expected = [
        (Encoding::Decimal, "1541815603606036480"),
        (Encoding::Base36, "bppc0m3ju134"),
        (Encoding::Base32, "1ASD13XH1F800"),
        (Encoding::Base62, "1ptWyK4WgZU"),
        (Encoding::Hex, "1565a11f6217a000"),
    ];
    for (encoding, text) in expected {
        assert_eq!(tweet.encode(encoding).as_str(), text);
        assert_eq!(encoding.decode(text).unwrap(), tweet);
    }
    let max = Id::from_u64(u64::MAX);
    let expected = [
        (Encoding::Decimal, "18446744073709551615"),
        (Encoding::Base36, "3w5e11264sgsf"),
        (Encoding::Base32, "FZZZZZZZZZZZZ"),
        (Encoding::Base62, "LygHa16AHYF"),
        (Encoding::Hex, "ffffffffffffffff"),
    ];
    for (encoding, text) in expected {
        assert_eq!(max.encode(encoding).as_str(), text);
        assert_eq!(text.len(), encoding.max_len());
    }
}

#[test]
fn crockford_decoding_takes_either_case_and_its_substitutions() {
    let id = Encoding::Base32.decode("1ASD13XH1F800").unwrap();
    assert_eq!(Encoding::Base32.decode("1asd13xh1f800").unwrap(), id);
    // I, i, L, l read as 1; O, o as 0.
    assert_eq!(Encoding::Base32.decode("IASDI3XHLF8oO").unwrap(), id);
    assert_eq!(Encoding::Base32.decode("iASDl3XH1F800").unwrap(), id);
    assert_eq!(
        Encoding::Base32.decode("0000000000001"),
        Encoding::Base32.decode("ooooOOOOooooL")
    );
}

#[test]
fn hex_and_base36_decode_either_case_and_base62_is_case_sensitive() {
    let tweet = Id::from_u64(1_541_815_603_606_036_480);
    assert_eq!(Encoding::Hex.decode("1565A11F6217A000").unwrap(), tweet);
    assert_eq!(Encoding::Base36.decode("BPPC0M3JU134").unwrap(), tweet);
    assert_ne!(
        Encoding::Base62.decode("1PTwYk4wGzu").unwrap(),
        Encoding::Base62.decode("1ptWyK4WgZU").unwrap()
    );
    // Unpadded base36 accepts leading zeros up to 13 characters.
    assert_eq!(Encoding::Base36.decode("0bppc0m3ju134").unwrap(), tweet);
}

fn reason(encoding: Encoding, s: &str) -> ParseIdReason {
    match encoding.decode(s) {
        Err(Error::ParseId {
            encoding: name,
            reason,
            ..
        }) => {
            assert_eq!(name, encoding.name());
            reason
        }
        other => panic!("{encoding} {s:?}: expected ParseId, got {other:?}"),
    }
}

fn message(encoding: Encoding, s: &str) -> String {
    encoding.decode(s).unwrap_err().to_string()
}

#[test]
fn an_empty_string_is_empty_in_every_form() {
    for encoding in Encoding::ALL {
        assert!(matches!(reason(encoding, ""), ParseIdReason::Empty { .. }));
    }
    assert_eq!(
        message(Encoding::Base32, ""),
        "invalid base32 id \"\": empty string, expected exactly 13 Crockford base32 digits"
    );
    assert_eq!(
        message(Encoding::Base36, ""),
        "invalid base36 id \"\": empty string, expected 1 to 13 base36 digits"
    );
}

#[test]
fn errors_name_the_bad_character_and_its_position() {
    assert_eq!(
        message(Encoding::Hex, "1565a11f6217g000"),
        "invalid hex id \"1565a11f6217g000\": 'g' at position 12 is not a hex digit \
         (0-9, a-f, either case)"
    );
    assert_eq!(
        message(Encoding::Base62, "1ptWyK4W-ZU"),
        "invalid base62 id \"1ptWyK4W-ZU\": '-' at position 8 is not a base62 digit \
         (0-9, A-Z, a-z)"
    );
    assert_eq!(
        message(Encoding::Base36, "bppc_m3ju134"),
        "invalid base36 id \"bppc_m3ju134\": '_' at position 4 is not a base36 digit \
         (0-9, a-z, either case)"
    );
    assert_eq!(
        message(Encoding::Base32, "1ASD-13XH1F80"),
        "invalid base32 id \"1ASD-13XH1F80\": '-' at position 4 is not a Crockford base32 \
         digit (hyphens are not accepted: remove them)"
    );
    assert_eq!(
        message(Encoding::Base32, "u000000000000"),
        "invalid base32 id \"u000000000000\": 'u' at position 0 is not a Crockford base32 \
         digit (U is a check symbol, not a digit)"
    );
    assert_eq!(
        message(Encoding::Decimal, "12a4"),
        "invalid decimal id \"12a4\": 'a' at position 2 is not a decimal digit"
    );
    // Positions are byte offsets; a multi-byte character is named whole.
    assert_eq!(
        reason(Encoding::Base62, "é0000000000"),
        ParseIdReason::InvalidDigit {
            found: 'é',
            position: 0,
            expected: "a base62 digit (0-9, A-Z, a-z)"
        }
    );
    assert_eq!(
        reason(Encoding::Base62, "0é000000000"),
        ParseIdReason::InvalidDigit {
            found: 'é',
            position: 1,
            expected: "a base62 digit (0-9, A-Z, a-z)"
        }
    );
    // The first bad character is the one named.
    assert!(matches!(
        reason(Encoding::Hex, "0x00000000000zz0"),
        ParseIdReason::InvalidDigit {
            found: 'x',
            position: 1,
            ..
        }
    ));
    // No sign, prefix or whitespace in any form.
    for encoding in Encoding::ALL {
        let zero = Id::from_u64(0).encode(encoding);
        let zero = zero.as_str();
        for bad in [
            format!("+{}", &zero[1..]),
            format!("-{}", &zero[1..]),
            format!(" {}", &zero[1..]),
            format!("{}\n", &zero[1..]),
        ] {
            assert!(
                matches!(reason(encoding, &bad), ParseIdReason::InvalidDigit { .. }),
                "{encoding} {bad:?}"
            );
        }
    }
}

#[test]
fn fixed_width_forms_reject_other_lengths_before_reading_characters() {
    for (encoding, width) in [
        (Encoding::Base32, 13),
        (Encoding::Base62, 11),
        (Encoding::Hex, 16),
    ] {
        for length in [1, width - 1, width + 1, 40] {
            let s = "0".repeat(length);
            assert_eq!(
                reason(encoding, &s),
                ParseIdReason::WrongLength {
                    length,
                    expected: match width {
                        13 => "exactly 13",
                        11 => "exactly 11",
                        _ => "exactly 16",
                    }
                },
                "{encoding} {s:?}"
            );
        }
    }
    // A decimal ID given as hex: its length says what is wrong.
    assert_eq!(
        message(Encoding::Hex, "1541815603606036480"),
        "invalid hex id \"1541815603606036480\": 19 characters, expected exactly 16"
    );
    // Lengths count characters, not bytes.
    assert!(matches!(
        reason(Encoding::Base62, "éééééééééé"),
        ParseIdReason::WrongLength { length: 10, .. }
    ));
    assert_eq!(
        message(Encoding::Base36, "00000000000000"),
        "invalid base36 id \"00000000000000\": 14 characters, expected 1 to 13"
    );
}

#[test]
fn values_above_u64_max_overflow_with_the_largest_id_in_the_form() {
    let cases = [
        (
            Encoding::Decimal,
            "18446744073709551616",
            "18446744073709551615",
        ),
        (Encoding::Base36, "3w5e11264sgsg", "3w5e11264sgsf"),
        (Encoding::Base36, "zzzzzzzzzzzzz", "3w5e11264sgsf"),
        (Encoding::Base32, "G000000000000", "FZZZZZZZZZZZZ"),
        (Encoding::Base32, "zzzzzzzzzzzzz", "FZZZZZZZZZZZZ"),
        (Encoding::Base62, "LygHa16AHYG", "LygHa16AHYF"),
        (Encoding::Base62, "zzzzzzzzzzz", "LygHa16AHYF"),
    ];
    for (encoding, s, max) in cases {
        assert_eq!(
            reason(encoding, s),
            ParseIdReason::Overflow { max },
            "{encoding} {s:?}"
        );
        assert_eq!(encoding.decode(max).unwrap().to_u64(), u64::MAX);
    }
    assert_eq!(
        message(Encoding::Base62, "LygHa16AHYG"),
        "invalid base62 id \"LygHa16AHYG\": larger than the largest id, LygHa16AHYF"
    );
}

#[test]
fn long_inputs_are_shortened_in_the_error() {
    let long = "g".repeat(1000);
    match Encoding::Hex.decode(&long) {
        Err(Error::ParseId { input, .. }) => {
            assert_eq!(input, format!("{}…", "g".repeat(64)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn encodings_parse_by_name_and_unknown_names_list_the_choices() {
    for encoding in Encoding::ALL {
        assert_eq!(encoding.name().parse::<Encoding>().unwrap(), encoding);
        assert_eq!(encoding.to_string(), encoding.name());
    }
    assert_eq!(Encoding::default(), Encoding::Decimal);
    let err = "base64".parse::<Encoding>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown encoding \"base64\", expected one of decimal, base36, base32, base62, hex"
    );
    assert!("Hex".parse::<Encoding>().is_err());
}

#[test]
fn fixed_width_forms_keep_order_and_unpadded_ones_do_not() {
    for encoding in Encoding::ALL {
        assert_eq!(encoding.keeps_order(), encoding.fixed_width().is_some());
    }
    let (nine, ten) = (Id::from_u64(9), Id::from_u64(10));
    assert!(nine.encode(Encoding::Decimal) > ten.encode(Encoding::Decimal));
    let (z, next) = (Id::from_u64(35), Id::from_u64(36));
    assert!(z.encode(Encoding::Base36) > next.encode(Encoding::Base36)); // "z" > "10"
    // Sorted edge values sort the same way as text in every fixed-width form.
    let mut values = edge_values();
    values.sort_unstable();
    for encoding in Encoding::ALL.into_iter().filter(|e| e.keeps_order()) {
        let texts: Vec<_> = values
            .iter()
            .map(|&v| Id::from_u64(v).encode(encoding))
            .collect();
        assert!(texts.windows(2).all(|w| w[0] <= w[1]), "{encoding}");
    }
}

proptest! {
    #[test]
    fn random_values_round_trip_in_every_form(value in any::<u64>()) {
        check_round_trip(value);
    }

    #[test]
    fn text_order_equals_numeric_order_in_fixed_width_forms(a in any::<u64>(), b in any::<u64>()) {
        for encoding in Encoding::ALL.into_iter().filter(|e| e.keeps_order()) {
            let (ta, tb) = (Id::from_u64(a).encode(encoding), Id::from_u64(b).encode(encoding));
            prop_assert_eq!(ta.as_str().cmp(tb.as_str()), a.cmp(&b), "{}", encoding);
        }
    }

    #[test]
    fn case_insensitive_forms_decode_the_other_case(value in any::<u64>()) {
        let id = Id::from_u64(value);
        for encoding in [Encoding::Base36, Encoding::Base32, Encoding::Hex] {
            let text = id.encode(encoding);
            let upper = text.as_str().to_ascii_uppercase();
            let lower = text.as_str().to_ascii_lowercase();
            prop_assert_eq!(encoding.decode(&upper).unwrap(), id);
            prop_assert_eq!(encoding.decode(&lower).unwrap(), id);
        }
    }
}
