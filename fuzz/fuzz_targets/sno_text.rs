//! sno IDs and their text form: `SnoId::parse` against a reference decoder written from the
//! format's definition, the text and bytes round trips of every 10-byte value, text order
//! against byte order, and the components against the documented bit positions.

#![no_main]

use std::cmp::Ordering;

use libfuzzer_sys::fuzz_target;
use snowmint::{Error, error::ParseIdReason, sno::SnoId};

const ALPHABET: &str = "23456789abcdefghijklmnopqrstuvwx";

fuzz_target!(|data: &[u8]| {
    // Lossy, so invalid UTF-8 still reaches the parser as U+FFFD (a multi-byte non-digit).
    let s = String::from_utf8_lossy(data);
    check_parse(&s);

    // Two IDs from the bytes (zero-padded): the first 10 and the next 10.
    let a = SnoId::from_bytes(ten(data));
    let b = SnoId::from_bytes(ten(data.get(10..).unwrap_or_default()));
    check_id(a);
    check_id(b);
    let (ta, tb) = (a.to_string(), b.to_string());
    assert_eq!(
        a.cmp(&b),
        ta.cmp(&tb),
        "text order differs from id order: {ta} {tb}"
    );
    assert_eq!(a.cmp(&b), a.as_bytes().cmp(b.as_bytes()));
    assert_eq!(a == b, ta == tb);
});

/// The first 10 bytes of `data`, zero-padded.
fn ten(data: &[u8]) -> [u8; 10] {
    let mut bytes = [0u8; 10];
    let n = data.len().min(10);
    bytes[..n].copy_from_slice(&data[..n]);
    bytes
}

/// The reference decoder: exactly 16 characters, each in the alphabet, read as base-32 digits
/// most significant first into an 80-bit number; its 10 big-endian bytes.
fn reference_decode(s: &str) -> Option<[u8; 10]> {
    if s.chars().count() != 16 {
        return None;
    }
    let mut value: u128 = 0;
    for c in s.chars() {
        let digit = ALPHABET.find(c)?;
        value = value * 32 + digit as u128;
    }
    let be = value.to_be_bytes();
    Some(be[6..].try_into().unwrap())
}

/// `SnoId::parse` accepts exactly what the reference accepts, with the same value, and each
/// rejection gives the reason the rules call for.
fn check_parse(s: &str) {
    let parsed = SnoId::parse(s);
    assert_eq!(parsed, s.parse::<SnoId>());
    match (parsed, reference_decode(s)) {
        (Ok(id), Some(bytes)) => {
            assert_eq!(id.to_bytes(), bytes);
            // One spelling per ID: the text is exactly the canonical encoding.
            assert_eq!(id.to_string(), s);
        }
        (Err(err), None) => check_rejection(s, err),
        (parsed, reference) => {
            panic!("{s:?}: parse gave {parsed:?}, the reference {reference:?}")
        }
    }
}

fn check_rejection(s: &str, err: Error) {
    let Error::ParseId {
        input,
        encoding,
        reason,
    } = err
    else {
        panic!("{s:?}: expected ParseId, got {err:?}");
    };
    assert_eq!(encoding, "sno");
    assert!(
        s.starts_with(input.trim_end_matches('…')),
        "{s:?}: input {input:?}"
    );
    let length = s.chars().count();
    match reason {
        ParseIdReason::Empty { .. } => assert!(s.is_empty(), "{s:?}"),
        ParseIdReason::WrongLength {
            length: reported,
            expected,
        } => {
            assert!(!s.is_empty() && length != 16, "{s:?}");
            assert_eq!((reported, expected), (length, "exactly 16"), "{s:?}");
        }
        ParseIdReason::InvalidDigit {
            found, position, ..
        } => {
            assert_eq!(length, 16, "{s:?}");
            let first_bad = s.char_indices().find(|&(_, c)| !ALPHABET.contains(c));
            assert_eq!(first_bad, Some((position, found)), "{s:?}");
        }
        other => panic!("{s:?}: unexpected reason {other:?}"),
    }
}

/// Round trips and components of one ID.
fn check_id(id: SnoId) {
    let bytes = id.to_bytes();
    assert_eq!(SnoId::from_bytes(bytes), id);
    assert_eq!(id.as_bytes(), &bytes);

    let text = id.to_string();
    let mut buf = [0u8; 16];
    assert_eq!(id.encode(&mut buf), text);
    assert_eq!(text.len(), 16);
    assert!(text.chars().all(|c| ALPHABET.contains(c)), "{text}");
    assert_eq!(reference_decode(&text), Some(bytes));
    assert_eq!(SnoId::parse(&text), Ok(id));

    // Components at the documented bit positions of the 80-bit big-endian value.
    let value = id.to_u128();
    let field = |shift: u32, bits: u32| (value >> shift) & ((1 << bits) - 1);
    assert_eq!(u128::from(id.ticks()), field(41, 39));
    assert_eq!(u128::from(id.timeline()), field(40, 1));
    assert_eq!(u128::from(id.meta()), field(32, 8));
    assert_eq!(u128::from(id.partition()), field(16, 16));
    assert_eq!(u128::from(id.sequence()), field(0, 16));
    assert_eq!(id.unix_ms(), 1_262_304_000_000 + id.ticks() * 4);
    assert!(id.unix_ms() <= SnoId::MAX_UNIX_MS);

    // Composing from the components (anywhere in the 4 ms unit) gives the ID back.
    let offset = u64::from(bytes[9] % 4);
    let composed = SnoId::compose(
        id.unix_ms() + offset,
        id.timeline(),
        id.meta(),
        id.partition(),
        id.sequence(),
    );
    assert_eq!(composed, Ok(id));
    // A tick-tock value above 1 is an error, never an ID.
    assert!(matches!(
        SnoId::compose(id.unix_ms(), 2 + bytes[0] % 254, 0, 0, 0),
        Err(Error::TimelineOutOfRange { .. })
    ));

    // Flipping the tick-tock bit orders the pair by it, with nothing between them in time.
    let mut flipped = bytes;
    flipped[4] ^= 1;
    let other = SnoId::from_bytes(flipped);
    assert_eq!(other.ticks(), id.ticks());
    assert_eq!(id.cmp(&other), id.timeline().cmp(&other.timeline()));
    assert_ne!(id.cmp(&other), Ordering::Equal);
}
