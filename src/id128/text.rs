//! The text forms: a UUID's hex (hyphenated 8-4-4-4-12, or 32 digits) and a ULID's 26
//! characters of Crockford's base32, written and read without allocating.

pub(crate) use crate::encoding::ascii;
use crate::encoding::{NOT_A_DIGIT as INVALID, digit_table};
use crate::error::{Error, ParseIdReason, bounded};

/// The length of a hyphenated UUID.
pub(crate) const HYPHENATED_LEN: usize = 36;
/// The length of a UUID written as 32 hex digits.
const SIMPLE_LEN: usize = 32;
/// Where a hyphenated UUID has its hyphens.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// The length of a ULID.
pub(crate) const ULID_LEN: usize = 26;
/// Crockford's base32 alphabet, as ULIDs are written: digits and uppercase letters without
/// `I`, `L`, `O` and `U`, in ascending ASCII order.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// The largest ULID, written: 48 bits of time and 80 of randomness, all ones.
pub(crate) const ULID_MAX: &str = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The value of each byte as a hex digit (either case), or `INVALID`.
const HEX_DIGITS: [u8; 256] = digit_table(HEX, true);
/// The value of each byte as a Crockford digit (either case), or `INVALID`.
const CROCKFORD_DIGITS: [u8; 256] = digit_table(CROCKFORD, true);

/// What a UUID's characters are expected to be, for parse errors.
const EXPECTED_UUID: &str = "a uuid: 8-4-4-4-12 hex digits with hyphens, or 32 hex digits";
const EXPECTED_HEX: &str = "a hex digit";
const EXPECTED_HYPHEN: &str = "a hyphen";
const EXPECTED_ULID: &str = "26 characters of crockford base32";
const EXPECTED_CROCKFORD: &str = "a crockford base32 digit (0-9, a-z but i, l, o, u)";

/// `value` as a hyphenated UUID in lowercase hex.
pub(crate) const fn hyphenated(value: u128) -> [u8; HYPHENATED_LEN] {
    let mut text = [b'-'; HYPHENATED_LEN];
    let (mut digit, mut at) = (0, 0);
    while digit < 32 {
        if at == 8 || at == 13 || at == 18 || at == 23 {
            at += 1;
        }
        text[at] = HEX[((value >> (124 - 4 * digit)) & 0xf) as usize];
        digit += 1;
        at += 1;
    }
    text
}

/// `value` as a ULID: 26 characters of Crockford's base32, uppercase; the first holds the
/// top 3 bits.
pub(crate) const fn crockford(value: u128) -> [u8; ULID_LEN] {
    let mut text = [0u8; ULID_LEN];
    let mut i = 0;
    while i < ULID_LEN {
        text[i] = CROCKFORD[((value >> (125 - 5 * i)) & 0x1f) as usize];
        i += 1;
    }
    text
}

/// The 128 bits of a UUID written hyphenated or as 32 hex digits, in either case.
///
/// # Errors
///
/// Why `s` is not a UUID.
#[inline]
pub(crate) fn parse_uuid(s: &str) -> Result<u128, ParseIdReason> {
    let bytes = s.as_bytes();
    let digits = match bytes.len() {
        HYPHENATED_LEN if HYPHENS.iter().all(|&at| bytes[at] == b'-') => {
            let mut digits = [0u8; SIMPLE_LEN];
            let groups = [
                &bytes[..8],
                &bytes[9..13],
                &bytes[14..18],
                &bytes[19..23],
                &bytes[24..],
            ];
            let mut at = 0;
            for group in groups {
                digits[at..at + group.len()].copy_from_slice(group);
                at += group.len();
            }
            digits
        }
        SIMPLE_LEN => bytes.try_into().unwrap_or([0; SIMPLE_LEN]),
        _ => return Err(uuid_problem(s)),
    };
    digits
        .iter()
        .try_fold(0u128, |value, &byte| {
            let digit = HEX_DIGITS[usize::from(byte)];
            (digit != INVALID).then_some(value << 4 | u128::from(digit))
        })
        .ok_or_else(|| uuid_problem(s))
}

/// The 128 bits of a ULID's 26 characters, in either case.
///
/// # Errors
///
/// Why `s` is not a ULID.
#[inline]
pub(crate) fn parse_ulid(s: &str) -> Result<u128, ParseIdReason> {
    let bytes = s.as_bytes();
    if bytes.len() != ULID_LEN {
        return Err(ulid_problem(s));
    }
    let value = bytes.iter().try_fold(0u128, |value, &byte| {
        let digit = CROCKFORD_DIGITS[usize::from(byte)];
        // 26 digits are 130 bits: the first may hold 3.
        (digit != INVALID).then_some(value << 5 | u128::from(digit))
    });
    match value {
        Some(value) if CROCKFORD_DIGITS[usize::from(bytes[0])] <= 7 => Ok(value),
        _ => Err(ulid_problem(s)),
    }
}

/// Why `s` is not a UUID: empty, a length other than 32 or 36 characters, or the first
/// character that is not what its place expects (a character outside ASCII never is, so the
/// byte offsets before it are character offsets).
#[cold]
#[inline(never)]
fn uuid_problem(s: &str) -> ParseIdReason {
    if s.is_empty() {
        return ParseIdReason::Empty {
            expected: EXPECTED_UUID,
        };
    }
    let length = s.chars().count();
    if length != HYPHENATED_LEN && length != SIMPLE_LEN {
        return ParseIdReason::WrongLength {
            length,
            expected: "36 (8-4-4-4-12 with hyphens) or 32 (hex digits only)",
        };
    }
    let hyphenated = length == HYPHENATED_LEN;
    let (position, found, expected) = s
        .char_indices()
        .map(|(at, c)| {
            let hyphen = hyphenated && HYPHENS.contains(&at);
            let expected = if hyphen {
                EXPECTED_HYPHEN
            } else {
                EXPECTED_HEX
            };
            let fits = if hyphen {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            };
            (at, c, expected, fits)
        })
        .find(|&(.., fits)| !fits)
        .map_or((0, '\0', EXPECTED_HEX), |(at, c, expected, _)| {
            (at, c, expected)
        });
    ParseIdReason::InvalidDigit {
        found,
        position,
        expected,
    }
}

/// Why `s` is not a ULID: empty, a length other than 26 characters, a character outside the
/// alphabet, or a first character above `7` (more than 128 bits).
#[cold]
#[inline(never)]
fn ulid_problem(s: &str) -> ParseIdReason {
    if s.is_empty() {
        return ParseIdReason::Empty {
            expected: EXPECTED_ULID,
        };
    }
    let length = s.chars().count();
    if length != ULID_LEN {
        return ParseIdReason::WrongLength {
            length,
            expected: "exactly 26",
        };
    }
    match s
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() || CROCKFORD_DIGITS[c as usize] == INVALID)
    {
        Some((position, found)) => ParseIdReason::InvalidDigit {
            found,
            position,
            expected: EXPECTED_CROCKFORD,
        },
        None => ParseIdReason::Overflow { max: ULID_MAX },
    }
}

/// The error for `s`, read as `encoding`: its first 64 characters and the reason.
#[cold]
pub(crate) fn parse_error(encoding: &'static str, s: &str, reason: ParseIdReason) -> Error {
    Error::ParseId {
        input: bounded(s),
        encoding,
        reason,
    }
}

/// The 16 bytes of a 128-bit ID in `bytes`, or the error naming its length, which echoes
/// them in hex (bounded).
pub(crate) fn sixteen_bytes(encoding: &'static str, bytes: &[u8]) -> Result<[u8; 16], Error> {
    bytes.try_into().map_err(|_| {
        let shown = &bytes[..bytes.len().min(ECHO_BYTES)];
        let hex: String = shown
            .iter()
            .flat_map(|&b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]])
            .map(char::from)
            .collect();
        let reason = ParseIdReason::WrongByteLength {
            length: bytes.len(),
            expected: 16,
        };
        parse_error(encoding, &hex, reason)
    })
}

/// Bytes echoed by [`sixteen_bytes`]: one more than the bounded echo's hex holds, so that a
/// longer input shows its ellipsis.
const ECHO_BYTES: usize = 33;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_invert_their_alphabets() {
        for (value, &byte) in CROCKFORD.iter().enumerate() {
            assert_eq!(usize::from(CROCKFORD_DIGITS[usize::from(byte)]), value);
        }
        let crockford = (0..=255u8).filter(|&b| CROCKFORD_DIGITS[usize::from(b)] != INVALID);
        assert_eq!(crockford.count(), 10 + 2 * 22); // digits, and 22 letters in either case
        let hex = (0..=255u8).filter(|&b| HEX_DIGITS[usize::from(b)] != INVALID);
        assert_eq!(hex.count(), 10 + 2 * 6);
    }

    #[test]
    fn bytes_of_another_length_are_named_and_echoed_bounded() {
        assert_eq!(sixteen_bytes("ulid", &[7; 16]), Ok([7; 16]));
        let err = sixteen_bytes("ulid", &[0xab; 40]).unwrap_err();
        let echo = format!("{}…", "ab".repeat(32));
        assert_eq!(
            err.to_string(),
            format!("invalid ulid id \"{echo}\": 40 bytes, expected 16")
        );
        let err = sixteen_bytes("uuidv7", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid uuidv7 id \"\": 0 bytes, expected 16"
        );
    }

    #[test]
    fn text_round_trips_at_the_edges() {
        for value in [0, 1, u128::MAX, 0x017f_22e2_79b0_7cc3_98c4_dc0c_0c07_398f] {
            let text = hyphenated(value);
            assert_eq!(parse_uuid(ascii(&text)), Ok(value));
            let simple: String = ascii(&text).chars().filter(|&c| c != '-').collect();
            assert_eq!(parse_uuid(&simple.to_uppercase()), Ok(value));
        }
        for value in [0, 1, u128::MAX, 1 << 127] {
            let text = crockford(value);
            assert_eq!(parse_ulid(ascii(&text)), Ok(value));
            assert_eq!(parse_ulid(&ascii(&text).to_lowercase()), Ok(value));
        }
    }
}
