//! What users send back from the public side: RFC 3339 times (`Rfc3339`'s parser) and masked
//! IDs (`Masker::unmask`). A time that parses displays as the millisecond it parsed to and
//! reads back the same (up to year 9999); one that does not gives `Error::ParseTime` as one
//! bounded line. Any value unmasks under any key and width, or is outside the width and says
//! so; what unmasks masks back to the same value. A masked UUID's text reads back as written,
//! and any facade unmasks to a UUIDv7 that masks back to it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snowmint::Error;
use snowmint::clock::Rfc3339;
use snowmint::mask::{FacadeMasker, MaskKey, MaskWidth, MaskedUuid, Masker};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check_time(&text);
    // A masked UUID's text: a version 4 UUID reads, anything else is an error.
    if let Ok(masked) = text.parse::<MaskedUuid>() {
        assert_eq!(masked.to_string().parse::<MaskedUuid>().unwrap(), masked);
    }
    if data.len() >= 25 {
        let key = MaskKey::from_bytes(data[..16].try_into().unwrap());
        let width = MaskWidth::bits(32 + u32::from(data[16]) % 33).unwrap();
        let raw = u64::from_le_bytes(data[17..25].try_into().unwrap());
        // Half the inputs inside the width, where the round trip runs; the rest as they come
        // (almost always outside a narrow width).
        let value = if data[16] & 0x80 != 0 {
            raw >> (64 - width.get())
        } else {
            raw
        };
        check_unmask(&Masker::new(&key, width), value);
        // Any facade unmasks to a UUIDv7 that masks back to it.
        let bits = u128::from(value) << 64 | u128::from(value.rotate_left(17));
        let facade =
            MaskedUuid::from_u128(bits & !(0xf << 76 | 0b11 << 62) | 0x4 << 76 | 0b10 << 62)
                .unwrap();
        let masker = FacadeMasker::new(&key);
        assert_eq!(masker.mask_uuid7(masker.unmask_uuid7(facade)), facade);
    }
});

fn check_time(text: &str) {
    match text.parse::<Rfc3339>() {
        Ok(time) => {
            let shown = time.to_string();
            if time.0 < 253_402_300_800_000 {
                assert_eq!(
                    shown.parse::<Rfc3339>().unwrap(),
                    time,
                    "{text:?} -> {shown}"
                );
            }
        }
        Err(Error::ParseTime { input, problem }) => {
            let line = Error::ParseTime { input, problem }.to_string();
            // One line (the input is echoed escaped), bounded: 64 characters of input, each
            // at most ten when escaped (`\u{10ffff}`), and the problem.
            assert!(!line.contains('\n'), "{line}");
            assert!(line.chars().count() < 1000, "{line}");
        }
        Err(other) => panic!("{text:?}: not a ParseTime error: {other}"),
    }
}

fn check_unmask(masker: &Masker, value: u64) {
    let bits = masker.width().get();
    match masker.unmask(value) {
        Ok(id) => {
            assert!(bits == 64 || value >> bits == 0);
            assert_eq!(masker.mask(id).unwrap(), value);
        }
        Err(Error::OutsideMaskWidth {
            value: got,
            bits: b,
            ..
        }) => {
            assert_eq!((got, b), (value, bits));
            assert!(value >> bits != 0);
        }
        Err(other) => panic!("unmask {value}: {other}"),
    }
}
