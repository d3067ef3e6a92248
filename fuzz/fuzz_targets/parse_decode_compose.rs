//! Any string: `Id::from_str` against an independent model of its grammar, the decimal round
//! trip, and for every preset layout `decode` -> `compose` back to the same ID (or
//! `IdOutOfLayout` exactly when the ID has bits the layout keeps zero), and `Layout::parse`
//! agreeing with `parse` + `decode`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snowmint::layout::LayoutProblem;
use snowmint::{Error, Id, Layout, error::ParseIdReason};

fuzz_target!(|data: &[u8]| {
    // Lossy, so invalid UTF-8 still reaches the parser as U+FFFD (a multi-byte non-digit).
    let s = String::from_utf8_lossy(data);
    let parsed = s.parse::<Id>();
    check_parse(&s, &parsed);

    let id = match &parsed {
        Ok(id) => *id,
        // Still exercise decode with the raw bytes as a number, so decoding does not depend
        // on the fuzzer first finding a valid decimal string.
        Err(_) => Id::from_u64(raw_u64(data)),
    };
    check_id(id);
    for layout in layouts(id) {
        check_layout(&layout, id, &s, &parsed);
    }
});

/// The first 8 bytes, little-endian, zero-padded.
fn raw_u64(data: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = data.len().min(8);
    bytes[..n].copy_from_slice(&data[..n]);
    u64::from_le_bytes(bytes)
}

/// Every preset, plus the presets that take an epoch built with the ID itself as the epoch
/// (exercising the "last representable time passes u64::MAX" check).
fn layouts(id: Id) -> Vec<Layout> {
    let mut layouts = vec![
        Layout::TWITTER,
        Layout::DISCORD,
        Layout::INSTAGRAM,
        Layout::MASTODON,
        Layout::SONYFLAKE,
        Layout::SNOWFLAKE_SI,
        Layout::OSMIUM,
        Layout::nanoflake(1_600_000_000_000).expect("nanoflake with a 2020 epoch"),
    ];
    let epoch = id.to_u64();
    for built in [
        Layout::nanoflake(epoch),
        Layout::SNOWFLAKE_SI.with_epoch_ms(epoch),
        Layout::OSMIUM.with_epoch_ms(epoch),
    ] {
        match built {
            Ok(layout) => {
                assert_eq!(layout.epoch_ms(), epoch);
                assert!(layout.max_unix_ms() >= epoch);
                layouts.push(layout);
            }
            Err(Error::InvalidLayout { problem, .. }) => {
                assert!(
                    matches!(problem, LayoutProblem::EndPastU64 { .. }),
                    "{problem:?}"
                );
                assert!(
                    problem.to_string().contains("expected an epoch of at most"),
                    "{problem}"
                );
            }
            Err(other) => {
                panic!("unexpected error building a layout with epoch {epoch}: {other:?}")
            }
        }
    }
    layouts
}

/// `Id::from_str` accepts exactly a non-empty run of ASCII digits whose value fits in a u64.
fn check_parse(s: &str, parsed: &Result<Id, Error>) {
    let all_digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // `u64::from_str` also accepts a leading '+', which `Id` does not; only compare on digits.
    let reference = if all_digits {
        s.parse::<u64>().ok()
    } else {
        None
    };
    match parsed {
        Ok(id) => {
            assert_eq!(reference, Some(id.to_u64()), "accepted {s:?}");
            let canonical = id.to_string();
            assert_eq!(canonical.parse::<Id>(), Ok(*id));
            let stripped = s.trim_start_matches('0');
            let expected = if stripped.is_empty() { "0" } else { stripped };
            assert_eq!(canonical, expected, "canonical form of {s:?}");
            assert_eq!(format!("{id:?}"), format!("Id({canonical})"));
        }
        Err(Error::ParseId {
            input,
            encoding,
            reason,
        }) => {
            assert_eq!(*encoding, "decimal");
            assert_eq!(reference, None, "rejected {s:?}: {reason:?}");
            // The input itself, or its first 64 characters and an ellipsis.
            let first_64: String = s.chars().take(64).collect();
            if s.chars().count() > 64 {
                assert_eq!(*input, format!("{first_64}…"));
            } else {
                assert_eq!(*input, s);
            }
            // The digits before the first non-digit, where the parser must stop.
            let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let prefix = &s[..digits_end];
            match *reason {
                ParseIdReason::Empty { .. } => assert!(s.is_empty()),
                ParseIdReason::InvalidDigit {
                    found, position, ..
                } => {
                    assert_eq!(position, digits_end, "position in {s:?}");
                    assert_eq!(s[position..].chars().next(), Some(found));
                    assert!(
                        prefix
                            .parse::<u128>()
                            .map_or(true, |v| v <= u128::from(u64::MAX))
                    );
                }
                ParseIdReason::Overflow { .. } => {
                    // Overflow is reported as soon as the value passes u64::MAX, before any
                    // later non-digit, so the digit prefix alone is too large.
                    assert!(!prefix.is_empty());
                    assert!(prefix.parse::<u64>().is_err(), "overflow for {s:?}");
                }
                _ => panic!("unknown ParseIdReason {reason:?} for {s:?}"),
            }
            // The message names the input and never panics to format.
            let _ = parsed.as_ref().unwrap_err().to_string();
        }
        Err(other) => panic!("parse of {s:?} returned a non-ParseId error: {other:?}"),
    }
}

/// The integer conversions round trip.
fn check_id(id: Id) {
    let raw = id.to_u64();
    assert_eq!(Id::from_u64(raw), id);
    assert_eq!(u64::from(id), raw);
    assert_eq!(Id::from(raw), id);
    match id.to_i64() {
        Ok(signed) => {
            assert!(raw <= i64::MAX as u64);
            assert_eq!(signed as u64, raw);
            assert_eq!(Id::from_i64(signed), Ok(id));
            assert_eq!(Id::try_from(signed), Ok(id));
        }
        Err(err) => {
            assert!(raw > i64::MAX as u64);
            assert_eq!(err, Error::IdTooLargeForI64 { id: raw });
            assert_eq!(
                Id::from_i64(raw as i64),
                Err(Error::NegativeId { value: raw as i64 })
            );
        }
    }
}

fn check_layout(layout: &Layout, id: Id, s: &str, parsed: &Result<Id, Error>) {
    let mask = layout.zero_mask();
    let width = layout.width();
    if width < 64 {
        assert_eq!(mask & !((1u64 << width) - 1), !((1u64 << width) - 1));
    }
    match layout.decode(id) {
        Ok(parts) => {
            assert_eq!(id.to_u64() & mask, 0);
            assert_eq!(parts.id(), id);
            assert_eq!(parts.layout(), layout);
            assert!(parts.ticks() <= layout.max_ticks());
            assert!(parts.sequence() <= layout.max_sequence());
            let unix_ms = parts.unix_ms();
            assert!(unix_ms >= layout.epoch_ms() && unix_ms <= layout.max_unix_ms());
            assert_eq!(layout.ticks_at(unix_ms), Ok(parts.ticks()));
            let nodes: Vec<(&str, u64)> = parts.nodes().collect();
            assert_eq!(nodes.len(), layout.node_fields().count());
            for &(name, value) in &nodes {
                assert_eq!(parts.node(name), Some(value));
                assert!(value <= layout.node_field(name).expect("listed node field").max());
            }
            let recomposed = layout.compose(unix_ms, &nodes, parts.sequence());
            assert_eq!(recomposed, Ok(id), "{layout:?} {parts:?}");
            // Formatting (RFC 3339 of any representable time) never panics.
            let _ = parts.time();
            let _ = format!("{parts} {parts:?}");
        }
        Err(err) => {
            assert_eq!(
                err,
                Error::IdOutOfLayout {
                    id: id.to_u64(),
                    layout: layout.name(),
                    mask,
                }
            );
            assert_ne!(id.to_u64() & mask, 0);
            let _ = err.to_string();
        }
    }
    // Layout::parse agrees with parse + decode, error for error.
    let expected = parsed
        .clone()
        .and_then(|id| layout.decode(id).map(|parts| parts.id()));
    assert_eq!(layout.parse(s), expected, "{layout:?} parse {s:?}");
}
