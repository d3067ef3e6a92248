//! The 64-bit text forms (decimal, base36, Crockford base32, base62, hex): `Encoding::decode`
//! of every form against a reference decoder written from the forms' definitions, on the input
//! as text and on strings built from the form's own characters; and for two IDs built from the
//! bytes, `encode` against a reference encoder, the round trip in both cases, and text order
//! against numeric order.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snowmint::{Error, Id, encoding::Encoding, error::ParseIdReason};

fuzz_target!(|data: &[u8]| {
    // Lossy, so invalid UTF-8 still reaches the decoders as U+FFFD (a multi-byte non-digit).
    let s = String::from_utf8_lossy(data);
    for encoding in Encoding::ALL {
        check_decode(encoding, &s);
        // Mostly valid strings of about the form's width, which random bytes rarely are.
        check_decode(encoding, &from_form_chars(encoding, data));
    }

    let a = Id::from_u64(u64_at(data, 0));
    let b = Id::from_u64(u64_at(data, 8));
    for encoding in Encoding::ALL {
        let (ta, tb) = (check_encode(encoding, a), check_encode(encoding, b));
        if encoding.keeps_order() || ta.len() == tb.len() {
            assert_eq!(ta.cmp(&tb), a.cmp(&b), "{encoding}: {ta} {tb}");
        }
    }
});

/// Eight bytes from `start`, little-endian, zero-padded.
fn u64_at(data: &[u8], start: usize) -> u64 {
    let mut bytes = [0u8; 8];
    let rest = data.get(start..).unwrap_or_default();
    let n = rest.len().min(8);
    bytes[..n].copy_from_slice(&rest[..n]);
    u64::from_le_bytes(bytes)
}

/// A form as its definition states it.
struct Spec {
    /// The digits in value order, as the encoder writes them.
    alphabet: &'static str,
    /// Exactly this many characters (`Some`), or at most `max_len` (`None`).
    fixed: Option<usize>,
    /// The most characters (`None`: any number, decimal's leading zeros).
    max_len: Option<usize>,
    /// Letters are read in either case.
    either_case: bool,
    /// Other characters read as digits: Crockford's I, L (1) and O (0).
    aliases: &'static [(char, u64)],
}

fn spec(encoding: Encoding) -> Spec {
    match encoding {
        Encoding::Decimal => Spec {
            alphabet: "0123456789",
            fixed: None,
            max_len: None,
            either_case: false,
            aliases: &[],
        },
        Encoding::Base36 => Spec {
            alphabet: "0123456789abcdefghijklmnopqrstuvwxyz",
            fixed: None,
            max_len: Some(13),
            either_case: true,
            aliases: &[],
        },
        Encoding::Base32 => Spec {
            alphabet: "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
            fixed: Some(13),
            max_len: Some(13),
            either_case: true,
            aliases: &[('I', 1), ('L', 1), ('O', 0)],
        },
        Encoding::Base62 => Spec {
            alphabet: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            fixed: Some(11),
            max_len: Some(11),
            either_case: false,
            aliases: &[],
        },
        Encoding::Hex => Spec {
            alphabet: "0123456789abcdef",
            fixed: Some(16),
            max_len: Some(16),
            either_case: true,
            aliases: &[],
        },
        other => panic!("no reference for {other}"),
    }
}

impl Spec {
    fn digit(&self, c: char) -> Option<u64> {
        let candidates = if self.either_case {
            vec![c, c.to_ascii_lowercase(), c.to_ascii_uppercase()]
        } else {
            vec![c]
        };
        candidates.into_iter().find_map(|c| {
            self.alphabet
                .chars()
                .position(|d| d == c)
                .map(|p| p as u64)
                .or_else(|| {
                    self.aliases
                        .iter()
                        .find(|&&(alias, _)| alias == c)
                        .map(|&(_, v)| v)
                })
        })
    }

    /// What decoding `s` must give: `Ok(value)` or the reason, in the order of the checks.
    fn decode(&self, s: &str) -> Result<u64, Expected> {
        if s.is_empty() {
            return Err(Expected::Empty);
        }
        let length = s.chars().count();
        let length_ok = match (self.fixed, self.max_len) {
            (Some(width), _) => length == width,
            (None, Some(max)) => length <= max,
            (None, None) => true,
        };
        if !length_ok {
            return Err(Expected::WrongLength(length));
        }
        // The first problem in reading order: a character that is not a digit, or the digit
        // that takes the value past u64::MAX (only decimal, with its leading zeros, can have
        // characters after that one).
        let radix = u128::from(self.alphabet.len() as u64);
        let mut value: u128 = 0;
        for (position, c) in s.char_indices() {
            let digit = self.digit(c).ok_or(Expected::InvalidDigit(c, position))?;
            value = value * radix + u128::from(digit);
            if value > u128::from(u64::MAX) {
                return Err(Expected::Overflow);
            }
        }
        Ok(value as u64)
    }

    /// `value` in the form, by long division in u128.
    fn encode(&self, value: u64) -> String {
        let digits: Vec<char> = self.alphabet.chars().collect();
        let radix = digits.len() as u128;
        let (mut v, mut out) = (u128::from(value), Vec::new());
        loop {
            out.push(digits[(v % radix) as usize]);
            v /= radix;
            if v == 0 {
                break;
            }
        }
        while out.len() < self.fixed.unwrap_or(1) {
            out.push(digits[0]);
        }
        out.iter().rev().collect()
    }
}

#[derive(Debug, PartialEq)]
enum Expected {
    Empty,
    WrongLength(usize),
    InvalidDigit(char, usize),
    Overflow,
}

fn check_decode(encoding: Encoding, s: &str) {
    let expected = spec(encoding).decode(s);
    let got = encoding.decode(s);
    match (&got, &expected) {
        (Ok(id), Ok(value)) => assert_eq!(id.to_u64(), *value, "{encoding} {s:?}"),
        (
            Err(Error::ParseId {
                input,
                encoding: name,
                reason,
            }),
            Err(want),
        ) => {
            assert_eq!(*name, encoding.name());
            let shortened = match s.char_indices().nth(64) {
                Some((end, _)) => format!("{}…", &s[..end]),
                None => s.to_owned(),
            };
            assert_eq!(*input, shortened);
            let message = got.as_ref().unwrap_err().to_string();
            assert!(
                message.starts_with(&format!("invalid {encoding} id ")),
                "{message}"
            );
            match (reason, want) {
                (ParseIdReason::Empty { .. }, Expected::Empty) => {}
                (ParseIdReason::WrongLength { length, .. }, Expected::WrongLength(want)) => {
                    assert_eq!(length, want, "{encoding} {s:?}");
                    assert!(message.contains(&format!("{length} characters, expected ")));
                }
                (
                    ParseIdReason::InvalidDigit {
                        found, position, ..
                    },
                    Expected::InvalidDigit(c, p),
                ) => {
                    assert_eq!((found, position), (c, p), "{encoding} {s:?}");
                    assert!(message.contains(&format!("{found:?} at position {position} is not ")));
                }
                (ParseIdReason::Overflow { max }, Expected::Overflow) => {
                    assert_eq!(encoding.decode(max).map(Id::to_u64), Ok(u64::MAX));
                }
                (reason, want) => panic!("{encoding} {s:?}: got {reason:?}, expected {want:?}"),
            }
        }
        _ => panic!("{encoding} {s:?}: got {got:?}, expected {expected:?}"),
    }
}

/// A string of the form's characters (and, where the form reads them, other cases and
/// aliases), its length from the first byte, its characters from the rest.
fn from_form_chars(encoding: Encoding, data: &[u8]) -> String {
    let spec = spec(encoding);
    let mut chars: Vec<char> = spec.alphabet.chars().collect();
    if spec.either_case {
        let other: Vec<char> = chars
            .iter()
            .map(|c| {
                if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        chars.extend(other);
    }
    for &(alias, _) in spec.aliases {
        chars.extend([alias, alias.to_ascii_lowercase()]);
    }
    let Some((&first, rest)) = data.split_first() else {
        return String::new();
    };
    let width = spec.fixed.or(spec.max_len).unwrap_or(20);
    // Mostly the form's width, sometimes one more or fewer, or none.
    let len = match first % 8 {
        0 => width.saturating_sub(1),
        1 => width + 1,
        2 => usize::from(first) % (width + 2),
        _ => width,
    };
    rest.iter()
        .cycle()
        .take(if rest.is_empty() { 0 } else { len })
        .map(|&b| chars[usize::from(b) % chars.len()])
        .collect()
}

/// Encodes `id`, checks the text against the reference and the form's rules, decodes it back,
/// and returns it.
fn check_encode(encoding: Encoding, id: Id) -> String {
    let spec = spec(encoding);
    let encoded = id.encode(encoding);
    let text = encoded.as_str().to_owned();
    assert_eq!(text, spec.encode(id.to_u64()), "{encoding} {id:?}");
    assert_eq!(encoded.to_string(), text);
    assert_eq!(encoded.len(), text.len());
    let mut buf = [0u8; Encoding::MAX_LEN];
    assert_eq!(encoding.encode_into(id, &mut buf), text);
    match encoding.fixed_width() {
        Some(width) => assert_eq!(text.len(), width),
        None => {
            assert!(!text.is_empty() && text.len() <= encoding.max_len());
            assert!(text == "0" || !text.starts_with('0'), "{text}");
        }
    }
    assert!(text.chars().all(|c| spec.alphabet.contains(c)), "{text}");
    assert_eq!(encoding.decode(&text).map(Id::to_u64), Ok(id.to_u64()));
    if spec.either_case {
        for variant in [text.to_ascii_uppercase(), text.to_ascii_lowercase()] {
            assert_eq!(encoding.decode(&variant).map(Id::to_u64), Ok(id.to_u64()));
        }
    }
    text
}
