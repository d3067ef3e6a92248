//! 128-bit IDs behind a facade: a UUIDv7 shown as a version 4 UUID, a ULID shown as noise,
//! each turned back under the key (see [`FacadeMasker`]).

use std::fmt;
use std::str::FromStr;

use speck_cipher::Speck64_128;

use super::MaskKey;
use super::cipher::{derived, encrypt_block, prf2};
use crate::error::{Error, ParseIdReason, Result};
use crate::id128::{HYPHENATED_LEN, Ulid, Uuid7, ascii, hyphenated, parse_error, parse_uuid};

/// The derivation tags of the facades' keys: above every width's (32 to 64).
const UUID_TAG: u32 = 128;
const ULID_TAG: u32 = 129;

/// A UUID's version bits, and a version 4's and a version 7's.
const VERSION_MASK: u128 = 0xf << 76;
const VERSION_4: u128 = 0x4 << 76;
const VERSION_7: u128 = 0x7 << 76;
/// A UUID's variant bits, and RFC 9562's `0b10`.
const VARIANT_MASK: u128 = 0b11 << 62;
const VARIANT_RFC: u128 = 0b10 << 62;

/// The text form's name in errors.
const ENCODING: &str = "masked uuid";

/// A UUIDv7 behind its facade: a version 4 UUID (RFC 9562's variant) whose other bits are the
/// UUIDv7's time and random bits permuted under a key. Shown hyphenated, parsed hyphenated or
/// as 32 hex digits in either case; [`FacadeMasker::unmask_uuid7`] gives the UUIDv7 back.
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

/// Masks 128-bit IDs behind a facade and unmasks them, under one [`MaskKey`]: the 48-bit time
/// and the random bits of a [`Uuid7`] (74) or a [`Ulid`] (80) go through a keyed permutation
/// of all their bits together, so the facade's every bit depends on every bit of the ID. A
/// UUIDv7's version becomes 4, so its facade is a well-formed random UUID (a
/// [`MaskedUuid`]); a ULID's facade is a ULID whose time and random part are noise.
///
/// What it hides: the time, the order, and the counter in a monotonic generator's random bits
/// (consecutive IDs of one millisecond show unrelated facades). What it keeps: equality.
///
/// The permutation is a four-round unbalanced Feistel network on the time `t` and the random
/// bits `r`: `t ^= F(1, r)`, `r ^= G(2, t)`, `t ^= F(3, r)`, `r ^= G(4, t)`, unmasked in the
/// reverse order. `F` is a two-block CBC-MAC of Speck64/128 (a pseudorandom function for a
/// fixed message length), `G` two Speck64 blocks of the time and a counter; both under a key
/// derived from the [`MaskKey`] for each facade, the round number in every input (see the
/// [module docs](super#construction)). Four rounds make a strong pseudorandom permutation
/// (Luby and Rackoff; Naor and Reingold for unbalanced networks), with a proven bound set by
/// the narrower 48-bit side and the 64-bit block: about 2^24 IDs per key, past which its
/// strength rests on the generic attacks known, which need far more. Mask and unmask cost eight
/// Speck64 encryptions each.
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

/// The random bits of a UUID: `rand_a` (12 bits above the variant) over `rand_b` (62).
const UUID_RANDOM_BITS: u32 = 74;
/// The random bits of a ULID.
const ULID_RANDOM_BITS: u32 = 80;

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
        let (time, random) = permute(
            &self.uuid,
            UUID_RANDOM_BITS,
            id.unix_ms(),
            id.random(),
            true,
        );
        MaskedUuid(Uuid7::from_parts(time, random).to_u128() & !VERSION_MASK | VERSION_4)
    }

    /// The UUIDv7 behind `masked`. Every [`MaskedUuid`] unmasks to a UUIDv7; one that was
    /// never shown gives a UUIDv7 that was never minted.
    pub fn unmask_uuid7(&self, masked: MaskedUuid) -> Uuid7 {
        // The facade's bits as a UUIDv7's, to read its time and random bits.
        let shown = Uuid7::from_bits(masked.0 & !VERSION_MASK | VERSION_7);
        let (time, random) = permute(
            &self.uuid,
            UUID_RANDOM_BITS,
            shown.unix_ms(),
            shown.random(),
            false,
        );
        Uuid7::from_parts(time, random)
    }

    /// `id` behind its facade: a ULID whose time and random part are noise.
    pub fn mask_ulid(&self, id: Ulid) -> Ulid {
        self.permute_ulid(id, true)
    }

    /// The ULID behind `masked` (any ULID unmasks to one).
    pub fn unmask_ulid(&self, masked: Ulid) -> Ulid {
        self.permute_ulid(masked, false)
    }

    /// A ULID's time and random bits through the facade's network, forward or back.
    fn permute_ulid(&self, id: Ulid, forward: bool) -> Ulid {
        let (time, random) = permute(
            &self.ulid,
            ULID_RANDOM_BITS,
            id.unix_ms(),
            id.random(),
            forward,
        );
        Ulid::from_parts(time, random)
    }
}

/// The four-round Feistel network of [`FacadeMasker`] on a 48-bit `time` and `bits` random
/// bits (at most 80), forward or back.
fn permute(cipher: &Speck64_128, bits: u32, time: u64, random: u128, forward: bool) -> (u64, u128) {
    // F: the random bits (two blocks, the round in the second's top byte) to 48 bits.
    let f = |round: u64, random: u128| -> u64 {
        let high = (random >> 64) as u64 | round << 56;
        prf2(cipher, random as u64, high) >> 16
    };
    // G: the time (the round and a counter above it) to `bits` bits.
    let g = |round: u64, time: u64| -> u128 {
        let block = |index: u64| encrypt_block(cipher, time | round << 56 | index << 48);
        (u128::from(block(0)) << 64 | u128::from(block(1))) & ((1 << bits) - 1)
    };
    let (mut time, mut random) = (time, random);
    if forward {
        time ^= f(1, random);
        random ^= g(2, time);
        time ^= f(3, random);
        random ^= g(4, time);
    } else {
        random ^= g(4, time);
        time ^= f(3, random);
        random ^= g(2, time);
        time ^= f(1, random);
    }
    (time, random)
}

impl fmt::Debug for FacadeMasker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FacadeMasker").finish_non_exhaustive()
    }
}
