//! 128-bit IDs and their text forms: `Uuid7::parse` and `Ulid::parse` against reference
//! decoders written from RFC 9562 and the ULID specification, the text and bytes round trips,
//! text order against ID order, and the paging bounds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snowmint::Error;
use snowmint::error::ParseIdReason;
use snowmint::id128::{Ulid, Uuid7};

const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

fuzz_target!(|data: &[u8]| {
    // Lossy, so invalid UTF-8 still reaches the parsers as U+FFFD (a multi-byte non-digit).
    let s = String::from_utf8_lossy(data);
    check_uuid_text(&s);
    check_ulid_text(&s);

    // Two values from the bytes (zero-padded): the first 16 and the next 16.
    let a = sixteen(data);
    let b = sixteen(data.get(16..).unwrap_or_default());
    check_value(a);
    check_value(b);
    let (ua, ub) = (Ulid::from_u128(a), Ulid::from_u128(b));
    assert_eq!(ua.cmp(&ub), ua.to_string().cmp(&ub.to_string()));
    // A UUIDv7 made of each: its text sorts as it does.
    let (va, vb) = (as_v7(a), as_v7(b));
    assert_eq!(va.cmp(&vb), va.to_string().cmp(&vb.to_string()));
});

/// The first 16 bytes of `data`, zero-padded, big-endian.
fn sixteen(data: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    let n = data.len().min(16);
    bytes[..n].copy_from_slice(&data[..n]);
    u128::from_be_bytes(bytes)
}

/// `value` with version 7 and variant `0b10` forced in.
fn as_v7(value: u128) -> Uuid7 {
    let forced = value & !(0xf << 76 | 0b11 << 62) | 0x7 << 76 | 0b10 << 62;
    Uuid7::from_u128(forced).expect("version 7, variant 0b10")
}

/// The reference UUID decoder: 32 hex digits, or 36 characters with hyphens at 8, 13, 18
/// and 23 and hex digits elsewhere, in either case.
fn reference_uuid(s: &str) -> Option<u128> {
    let chars: Vec<char> = s.chars().collect();
    let digits: Vec<char> = match chars.len() {
        32 => chars,
        36 => {
            for (i, c) in chars.iter().enumerate() {
                if [8, 13, 18, 23].contains(&i) != (*c == '-') {
                    return None;
                }
            }
            chars.into_iter().filter(|&c| c != '-').collect()
        }
        _ => return None,
    };
    digits.iter().try_fold(0u128, |value, c| {
        Some(value << 4 | u128::from(c.to_digit(16)?))
    })
}

/// The reference ULID decoder: 26 characters of Crockford's base32 in either case, read
/// most significant first; more than 128 bits is `Err`.
fn reference_ulid(s: &str) -> Option<Result<u128, ()>> {
    if s.chars().count() != 26 {
        return None;
    }
    let mut value: u128 = 0;
    let mut first = 0;
    for (i, c) in s.chars().enumerate() {
        let digit = CROCKFORD
            .find(c.to_ascii_uppercase())
            .filter(|_| c.is_ascii())?;
        if i == 0 {
            first = digit;
        }
        value = value.wrapping_shl(5) | digit as u128;
    }
    Some(if first > 7 { Err(()) } else { Ok(value) })
}

fn check_uuid_text(s: &str) {
    let parsed = Uuid7::parse(s);
    assert_eq!(parsed, s.parse::<Uuid7>());
    match (parsed, reference_uuid(s)) {
        (Ok(id), Some(value)) => {
            assert_eq!(id.to_u128(), value);
            let text = id.to_string();
            assert_eq!(Uuid7::parse(&text), Ok(id));
            // The canonical form is the input, lowercase, with the hyphens.
            let canonical: String = s.chars().filter(|&c| c != '-').collect();
            assert_eq!(text.replace('-', ""), canonical.to_ascii_lowercase());
        }
        (Err(err), Some(value)) => {
            // Hex, but not a UUIDv7: the version and variant found.
            let reason = rejection(s, "uuidv7", err);
            assert_eq!(
                reason,
                ParseIdReason::NotUuid7 {
                    version: (value >> 76) as u8 & 0xf,
                    variant: (value >> 62) as u8 & 0b11,
                },
                "{s:?}"
            );
        }
        (Err(err), None) => {
            let reason = rejection(s, "uuidv7", err);
            let length = s.chars().count();
            match reason {
                ParseIdReason::Empty { .. } => assert!(s.is_empty()),
                ParseIdReason::WrongLength { length: n, .. } => {
                    assert_eq!(n, length);
                    assert!(n != 32 && n != 36 && n != 0, "{s:?}");
                }
                ParseIdReason::InvalidDigit {
                    found, position, ..
                } => {
                    assert!(length == 32 || length == 36, "{s:?}");
                    assert_eq!(s[position..].chars().next(), Some(found), "{s:?}");
                }
                other => panic!("{s:?}: {other:?}"),
            }
        }
        (Ok(id), None) => panic!("{s:?}: parsed as {id:?}, which the reference rejects"),
    }
}

fn check_ulid_text(s: &str) {
    let parsed = Ulid::parse(s);
    assert_eq!(parsed, s.parse::<Ulid>());
    match (parsed, reference_ulid(s)) {
        (Ok(id), Some(Ok(value))) => {
            assert_eq!(id.to_u128(), value);
            let text = id.to_string();
            assert_eq!(text, s.to_ascii_uppercase());
            assert_eq!(Ulid::parse(&text), Ok(id));
        }
        (Err(err), Some(Err(()))) => {
            let reason = rejection(s, "ulid", err);
            assert!(matches!(reason, ParseIdReason::Overflow { .. }), "{s:?}");
        }
        (Err(err), None) => {
            let length = s.chars().count();
            match rejection(s, "ulid", err) {
                ParseIdReason::Empty { .. } => assert!(s.is_empty()),
                ParseIdReason::WrongLength { length: n, .. } => {
                    assert_eq!(n, length);
                    assert!(n != 26 && n != 0, "{s:?}");
                }
                ParseIdReason::InvalidDigit {
                    found, position, ..
                } => {
                    assert_eq!(length, 26, "{s:?}");
                    let first_bad = s.char_indices().find(|&(_, c)| {
                        !c.is_ascii() || !CROCKFORD.contains(c.to_ascii_uppercase())
                    });
                    assert_eq!(first_bad, Some((position, found)), "{s:?}");
                }
                other => panic!("{s:?}: {other:?}"),
            }
        }
        (parsed, reference) => panic!("{s:?}: parse gave {parsed:?}, the reference {reference:?}"),
    }
}

/// The reason of a parse error, after checking its form and its bounded echo of `s`.
fn rejection(s: &str, form: &str, err: Error) -> ParseIdReason {
    let Error::ParseId {
        input,
        encoding,
        reason,
    } = err
    else {
        panic!("{s:?}: expected ParseId, got {err:?}");
    };
    assert_eq!(encoding, form);
    assert!(input.chars().count() <= 65, "{input:?}");
    assert!(
        s.starts_with(input.trim_end_matches('…')),
        "{s:?}: {input:?}"
    );
    reason
}

/// Bytes and text round trips, fields and bounds of one 128-bit value as each family.
fn check_value(value: u128) {
    let ulid = Ulid::from_u128(value);
    assert_eq!(Ulid::from_bytes(ulid.to_bytes()), ulid);
    assert_eq!(Ulid::parse(&ulid.to_string()), Ok(ulid));
    assert_eq!(ulid.unix_ms(), (value >> 80) as u64);
    assert_eq!(ulid.random(), value & ((1 << 80) - 1));
    let ms = ulid.unix_ms();
    assert!(Ulid::min_at(ms).unwrap() <= ulid && ulid <= Ulid::max_at(ms).unwrap());

    let is_v7 = (value >> 76) & 0xf == 7 && (value >> 62) & 0b11 == 0b10;
    assert_eq!(Uuid7::from_u128(value).is_ok(), is_v7);
    let uuid = as_v7(value);
    assert_eq!(Uuid7::from_bytes(uuid.to_bytes()), Ok(uuid));
    assert_eq!(Uuid7::parse(&uuid.to_string()), Ok(uuid));
    assert_eq!(uuid.unix_ms(), ms);
    assert!(Uuid7::min_at(ms).unwrap() <= uuid && uuid <= Uuid7::max_at(ms).unwrap());
    // The 74 random bits, packed: rand_a above rand_b.
    let packed = (value >> 64 & 0xfff) << 62 | value & ((1 << 62) - 1);
    assert_eq!(uuid.random(), packed);
}
