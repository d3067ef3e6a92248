//! 128-bit IDs behind a facade: a UUIDv7 shown as a version 4 UUID, a ULID shown with a
//! time that says nothing, each turned back under the key (see [`FacadeMasker`]).

use std::fmt;
use std::str::FromStr;

use speck_cipher::Speck64_128;

use super::MaskKey;
use super::cipher::{derived, prf2};
use crate::error::{Error, ParseIdReason, Result};
use crate::id128::{HYPHENATED_LEN, Ulid, Uuid7, ascii, hyphenated, parse_error, parse_uuid};

/// The derivation tags of the facades' keys: above every width's (32 to 64).
const UUID_TAG: u32 = 128;
const ULID_TAG: u32 = 129;

/// The 48-bit time of a 128-bit ID: its top 48 bits.
const TIME_SHIFT: u32 = 80;
/// A UUID's version bits, and a version 4's and a version 7's.
const VERSION_MASK: u128 = 0xf << 76;
const VERSION_4: u128 = 0x4 << 76;
const VERSION_7: u128 = 0x7 << 76;
/// A UUID's variant bits, and RFC 9562's `0b10`.
const VARIANT_MASK: u128 = 0b11 << 62;
const VARIANT_RFC: u128 = 0b10 << 62;

/// The text form's name in errors.
const ENCODING: &str = "masked uuid";

/// A UUIDv7 behind its facade: a version 4 UUID (RFC 9562's variant), its 48-bit time
/// replaced by the time masked under a key. Shown hyphenated, parsed hyphenated or as 32 hex
/// digits in either case; [`FacadeMasker::unmask_uuid7`] gives the UUIDv7 back.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaskedUuid(u128);

impl MaskedUuid {
    /// The masked UUID with these 128 bits.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::NotUuid4`] when the version is not 4 or the
    /// variant not `0b10`: no UUIDv7 masks to it.
    pub fn from_u128(value: u128) -> Result<MaskedUuid> {
        if value & (VERSION_MASK | VARIANT_MASK) == VERSION_4 | VARIANT_RFC {
            return Ok(MaskedUuid(value));
        }
        Err(parse_error(
            ENCODING,
            ascii(&hyphenated(value)),
            ParseIdReason::NotUuid4 {
                version: (value >> 76 & 0xf) as u8,
                variant: (value >> 62 & 0b11) as u8,
            },
        ))
    }

    /// The 128 bits.
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// The 16 bytes, big-endian: a database's `uuid`.
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for MaskedUuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let buf: [u8; HYPHENATED_LEN] = hyphenated(self.0);
        f.write_str(ascii(&buf))
    }
}

impl fmt::Debug for MaskedUuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MaskedUuid({self})")
    }
}

impl FromStr for MaskedUuid {
    type Err = Error;

    /// Reads a masked UUID, hyphenated or as 32 hex digits.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`]: not a UUID, or not a version 4 one.
    fn from_str(s: &str) -> Result<MaskedUuid> {
        let value = parse_uuid(s).map_err(|reason| parse_error(ENCODING, s, reason))?;
        MaskedUuid::from_u128(value)
    }
}

/// Masks 128-bit IDs behind a facade and unmasks them, under one [`MaskKey`]: the time of a
/// [`Uuid7`] or a [`Ulid`] is replaced by itself XORed with a keyed pseudorandom function of
/// the ID's random bits, which stay as they are; unmasking computes the same function of the
/// same bits and XORs it away. A UUIDv7's version becomes 4, so the facade is a well-formed
/// random UUID (a [`MaskedUuid`]); a ULID's facade is a ULID whose time is noise.
///
/// What it hides: the time. What it keeps visible: the ID's random bits (74 of a UUIDv7, 80 of
/// a ULID) and equality. For IDs of a generator whose random bits are random, that is all
/// they say. For IDs of snowmint's generators (and of any monotonic generator), the random
/// bits are a start per millisecond plus a counter: facades of IDs one generator minted in the
/// same millisecond show random parts a few apart, which tells that they share a millisecond
/// (not which), their order within it and about how many came between. Where that matters,
/// mask 64-bit IDs with [`Masker`](super::Masker), which hides everything but equality.
///
/// It relies on no two IDs sharing their random bits (two such IDs would show the XOR of their
/// times), which holds for snowmint's generators and for random bits. The function is a
/// two-block CBC-MAC of Speck64/128 under a key derived from the [`MaskKey`] for each facade
/// (see the [module docs](super#construction)): a pseudorandom function up to the birthday
/// bound of the 64-bit block, about 2^32 IDs per key. Mask and unmask cost two Speck64
/// encryptions each.
///
/// # Examples
///
/// ```
/// use snowmint::id128::{Ulid, Uuid7};
/// use snowmint::mask::{FacadeMasker, MaskKey};
///
/// let masker = FacadeMasker::new(&MaskKey::from_hex("000102030405060708090a0b0c0d0e0f")?);
/// let id = Uuid7::now()?;
/// let shown = masker.mask_uuid7(id);
/// assert_eq!(shown.to_string().as_bytes()[14], b'4'); // a version 4 UUID
/// assert_eq!(masker.unmask_uuid7(shown), id);
/// assert_eq!(masker.unmask_uuid7(shown.to_string().parse()?), id);
///
/// let ulid = Ulid::now()?;
/// assert_eq!(masker.unmask_ulid(masker.mask_ulid(ulid)), ulid);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone)]
pub struct FacadeMasker {
    uuid: Speck64_128,
    ulid: Speck64_128,
}

impl FacadeMasker {
    /// The facades under `key`.
    pub fn new(key: &MaskKey) -> FacadeMasker {
        FacadeMasker {
            uuid: derived(&key.to_bytes(), UUID_TAG),
            ulid: derived(&key.to_bytes(), ULID_TAG),
        }
    }

    /// `id` behind its version 4 facade.
    pub fn mask_uuid7(&self, id: Uuid7) -> MaskedUuid {
        let bits = id.to_u128();
        let masked = bits ^ self.uuid_pad(bits);
        MaskedUuid(masked & !VERSION_MASK | VERSION_4)
    }

    /// The UUIDv7 behind `masked`. Every [`MaskedUuid`] unmasks to a UUIDv7; one that was
    /// never shown gives a UUIDv7 that was never minted.
    pub fn unmask_uuid7(&self, masked: MaskedUuid) -> Uuid7 {
        let bits = masked.0;
        let id = bits ^ self.uuid_pad(bits);
        Uuid7::from_bits(id & !VERSION_MASK | VERSION_7)
    }

    /// `id` behind its facade: the same random bits, a time that is noise.
    pub fn mask_ulid(&self, id: Ulid) -> Ulid {
        let bits = id.to_u128();
        Ulid::from_u128(bits ^ self.ulid_pad(bits))
    }

    /// The ULID behind `masked` (any ULID unmasks to one).
    pub fn unmask_ulid(&self, masked: Ulid) -> Ulid {
        self.mask_ulid(masked)
    }

    /// What a UUID's time is XORed with: the PRF of its 74 random bits (`rand_b`, then
    /// `rand_a` with the facade's tag above it), in the time's place.
    fn uuid_pad(&self, bits: u128) -> u128 {
        let rand_b = (bits & ((1 << 62) - 1)) as u64;
        let rand_a = (bits >> 64 & 0xfff) as u64;
        let f = prf2(&self.uuid, rand_b, rand_a | u64::from(UUID_TAG) << 56);
        u128::from(f >> 16) << TIME_SHIFT
    }

    /// What a ULID's time is XORed with: the PRF of its 80 random bits.
    fn ulid_pad(&self, bits: u128) -> u128 {
        let low = bits as u64;
        let high = (bits >> 64 & 0xffff) as u64;
        let f = prf2(&self.ulid, low, high | u64::from(ULID_TAG) << 56);
        u128::from(f >> 16) << TIME_SHIFT
    }
}

impl fmt::Debug for FacadeMasker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FacadeMasker").finish_non_exhaustive()
    }
}
