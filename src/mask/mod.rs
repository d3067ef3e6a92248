//! Opaque IDs for the public: a keyed permutation of the ID space, so the sortable ID stays in
//! the database and the API shows a value that says nothing of when, where or how many.
//!
//! A Snowflake ID carries its time, its node and how many IDs that node minted in its
//! millisecond; anyone who sees two of them learns the rate at which rows are made. A
//! [`Masker`] maps each ID to a masked value and back, exactly, under a 128-bit [`MaskKey`]:
//!
//! ```
//! use snowmint::mask::{MaskKey, MaskWidth, Masker};
//! use snowmint::{Generator, Layout};
//!
//! let key = MaskKey::from_hex("000102030405060708090a0b0c0d0e0f")?;
//! let masker = Masker::new(&key, MaskWidth::BIGINT);
//! let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
//!
//! let id = generator.mint()?; // stored in the database, paged by
//! let shown = masker.mask(id)?; // shown at the API
//! assert_eq!(masker.unmask(shown)?, id);
//! assert!(shown <= i64::MAX as u64); // still fits a signed BIGINT
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # What it hides, and what it does not
//!
//! - **Hidden**: the time, the node, the sequence and the order of IDs. Without the key, masked
//!   values are indistinguishable from a random permutation of the width's values (as far as
//!   the cipher below is): two IDs minted a millisecond apart mask to unrelated values, and a
//!   masked value says nothing of how many IDs came before it.
//! - **Not hidden: equality.** The same ID always masks to the same value under one key (the
//!   point: a client can cache it, link to it, send it back). Whoever sees a masked ID twice
//!   knows it is the same row.
//! - **Not authentication.** Every value of the width unmasks to some ID, so a guessed value
//!   cannot be told from a real one by unmasking it: it names an ID that was most likely never
//!   minted, which the database lookup answers (no row). The chance that a uniformly guessed
//!   value names a row is the number of rows divided by the width's size (2^53, 2^63 or
//!   2^64). The checked form, [`Masker::unmask_within`], refuses most guesses before the
//!   lookup when IDs are masked into a wider width than they use; where every guess must be
//!   refused, put a MAC beside the ID.
//! - **Key rotation**: a masked value carries no key ID. Masking under a new key changes every
//!   public ID, so rotate as for any public identifier: serve new IDs under the new key while
//!   accepting both (unmask under the new key, and under the old one when that names no row),
//!   or keep the key for the life of the IDs. Keep the key secret, like a session key: with
//!   it, anyone unmasks every ID.
//!
//! # Where users meet it
//!
//! - [`install`] a masker at startup and mark response fields
//!   `#[serde(with = "snowmint::mask::masked")]` (feature `serde`): the struct keeps the real
//!   ID, the JSON shows the masked one; the guide [`docs::public_ids`](crate::docs) gives the
//!   whole database-plus-API pattern.
//! - The command line: `snowmint mask` and `snowmint unmask`, the key from a file or the
//!   environment, never from an argument.
//! - 128-bit IDs: [`FacadeMasker`] shows a [`Uuid7`](crate::id128::Uuid7) as a version 4
//!   UUID ([`MaskedUuid`]) and a [`Ulid`](crate::id128::Ulid) as noise, hiding the time and
//!   the counter of consecutive IDs, and
//!   turns each back.
//!
//! # Widths
//!
//! [`MaskWidth`] keeps masked values in the range the column or the client needs: the full
//! 64 bits ([`MaskWidth::U64`]), below 2^63 for a signed `BIGINT` ([`MaskWidth::BIGINT`]), or
//! below 2^53 for JavaScript's numbers ([`MaskWidth::JS_SAFE`]). An ID must fit the width to
//! be masked: a layout of 63 bits or fewer for `BIGINT`, of 53 or fewer (or IDs still below
//! 2^53) for JavaScript. Each width is its own permutation, under a key derived from the
//! [`MaskKey`] for that width: the same ID masks to unrelated values at two widths.
//!
//! # Construction
//!
//! The cipher is Speck64/128 (Beaulieu, Shors, Smith, Treatman-Clark, Weeks and Wingers, "The
//! SIMON and SPECK Families of Lightweight Block Ciphers", 2013; ISO/IEC 29167-22), a 64-bit
//! block cipher of 27 rounds with a 128-bit key, from the RustCrypto project's
//! `speck-cipher` crate; published cryptanalysis reaches reduced-round versions only (about
//! 20 of its 27 rounds, at costs near an exhaustive search of the key). A width's key is two
//! blocks of the master key's cipher (the width and a block index, enciphered), so widths
//! never share a permutation.
//!
//! - 64 bits: one Speck64 encryption of the ID.
//! - 63 bits: Speck64 with cycle walking (Black and Rogaway, "Ciphers with Arbitrary Finite
//!   Domains", 2002): encrypt until the value falls below 2^63, about two encryptions on
//!   average, a permutation of `0..2^63` because each cycle of the cipher that leaves the
//!   domain comes back to it. How many encryptions a value takes depends on the value, so its
//!   time says a little about it (one or more steps), as with any cycle walking.
//! - Fewer bits (53 for JavaScript): a 10-round Feistel network in the shape of NIST SP
//!   800-38G's FF1 for radix 2 (the halves alternate between `⌊n/2⌋` and `⌈n/2⌉` bits), whose
//!   round function is Speck64 under the width's key on the round number, the width and the
//!   half (a block cipher is a pseudorandom function up to the birthday bound of its 64-bit
//!   block, 2^32 inputs, beyond the 2^27 inputs of a round at 53 bits). What is proven of such
//!   a network (Luby and Rackoff; Patarin's bounds for more rounds) holds up to about 2^h
//!   values masked per key for halves of h bits: about 2^26 at 53 bits, 2^16 at 32. Past
//!   that, its strength rests, as FF1's does with the same shape and number of rounds, on the
//!   generic attacks known, which need far more.
//!
//! # Cost
//!
//! Masking is one Speck64 encryption at 64 bits (about two on average at 63, ten at 53), and
//! unmasking as many (decryptions at 64 and 63 bits; encryptions in the Feistel network). On the project's 2-core build machine (Zen 4, 2.6 GHz; `cargo
//! bench --bench mint -- mask`), a mask and an unmask of one ID, back to back, take 58 ns at
//! 64 bits, 132 ns at 63 and 680 ns at 53; masking a page of 100 IDs for a response takes
//! 21 ns per ID at 64 bits, the CPU overlapping the independent encryptions. Speck's 27
//! rounds each wait on the one before, so these are near what a 64-bit cipher with a published
//! analysis costs here; a cheaper mixing function would have none.

mod cipher;
mod facade;
mod installed;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod masked;

pub use facade::{FacadeMasker, MaskedUuid};
pub use installed::{install, installed};

use std::fmt;

use crate::error::{Error, Result};
use crate::id::Id;
use cipher::Keyed;

/// A 128-bit masking key: the secret that maps IDs to masked values and back.
///
/// Draw it once from a cryptographic source (`openssl rand -hex 16`,
/// [`MaskKey::generate`]), keep it with the service's other secrets, and load it from a file or
/// the environment: anyone with the key unmasks every ID. Its `Debug` output hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct MaskKey([u8; 16]);

impl MaskKey {
    /// The key of these 16 bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> MaskKey {
        MaskKey(bytes)
    }

    /// The key written as 32 hexadecimal digits (either case; surrounding whitespace, such as
    /// a key file's final newline, is ignored).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMaskKey`] when the text is not 32 hexadecimal digits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mask::MaskKey;
    ///
    /// let key = MaskKey::from_hex("000102030405060708090A0B0C0D0E0F\n")?;
    /// assert_eq!(key.to_bytes()[15], 0x0f);
    /// assert!(MaskKey::from_hex("not a key").is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_hex(text: &str) -> Result<MaskKey> {
        let digits = text.trim().as_bytes();
        let invalid = |problem: String| Error::InvalidMaskKey { problem };
        if digits.len() != 32 {
            return Err(invalid(format!(
                "{} characters, expected 32 hexadecimal digits",
                digits.len()
            )));
        }
        let mut bytes = [0u8; 16];
        for (i, pair) in digits.chunks_exact(2).enumerate() {
            let nibble = |at: usize| {
                let c = pair[at - 2 * i];
                (c as char)
                    .to_digit(16)
                    .ok_or_else(|| {
                        invalid(format!(
                            "{:?} at position {at} is not a hexadecimal digit, expected 32 of them",
                            c as char
                        ))
                    })
                    .map(|d| d as u8)
            };
            bytes[i] = nibble(2 * i)? << 4 | nibble(2 * i + 1)?;
        }
        Ok(MaskKey(bytes))
    }

    /// A fresh key from the operating system's random source.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMaskKey`] when the operating system gives no random bytes.
    pub fn generate() -> Result<MaskKey> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|error| Error::InvalidMaskKey {
            problem: format!("the operating system gave no random bytes: {error}"),
        })?;
        Ok(MaskKey(bytes))
    }

    /// The key's 16 bytes.
    pub const fn to_bytes(&self) -> [u8; 16] {
        self.0
    }
}

impl fmt::Debug for MaskKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MaskKey(..)")
    }
}

/// How many bits a masked value may use: it is always below `2^bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaskWidth(u32);

impl MaskWidth {
    /// Every `u64`: for unsigned columns and text.
    pub const U64: MaskWidth = MaskWidth(64);
    /// Below 2^63: a signed 64-bit `BIGINT` (PostgreSQL, MySQL, SQLite) never sees a negative
    /// value.
    pub const BIGINT: MaskWidth = MaskWidth(63);
    /// Below 2^53: a JavaScript number holds it exactly (`Number.MAX_SAFE_INTEGER` is
    /// 2^53 - 1).
    pub const JS_SAFE: MaskWidth = MaskWidth(53);

    /// A width of `bits` bits, from 32 to 64.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMaskWidth`] outside `32..=64`: a narrower permutation would be small
    /// enough to tabulate.
    pub const fn bits(bits: u32) -> Result<MaskWidth> {
        if bits >= 32 && bits <= 64 {
            Ok(MaskWidth(bits))
        } else {
            Err(Error::InvalidMaskWidth { bits })
        }
    }

    /// The number of bits.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The greatest value of the width.
    const fn max(self) -> u64 {
        u64::MAX >> (64 - self.0)
    }
}

/// Masks IDs to opaque values of one width and unmasks them, under one key: exact inverses,
/// distinct IDs never collide. See the [module docs](self) for what it hides and how.
///
/// Cheap to share: `Send + Sync`, no interior mutability, the 108 bytes of the width's round
/// keys.
#[derive(Clone)]
pub struct Masker {
    keyed: Keyed,
    width: MaskWidth,
}

impl Masker {
    /// A masker of `width` under `key`.
    pub fn new(key: &MaskKey, width: MaskWidth) -> Masker {
        Masker {
            keyed: Keyed::new(&key.0, width.0),
            width,
        }
    }

    /// The masker's width.
    pub fn width(&self) -> MaskWidth {
        self.width
    }

    /// The masked value of `id`: below `2^width`, the same for the same ID, distinct for
    /// distinct IDs.
    ///
    /// # Errors
    ///
    /// [`Error::OutsideMaskWidth`] when `id` does not fit the width (it would not come back).
    pub fn mask(&self, id: Id) -> Result<u64> {
        let value = id.to_u64();
        self.check(value, "id")?;
        Ok(self.keyed.encrypt(value))
    }

    /// The ID whose masked value is `masked`.
    ///
    /// Every value of the width unmasks to some ID; one that was never the mask of a minted ID
    /// gives an ID that was never minted (see the
    /// [module docs](self#what-it-hides-and-what-it-does-not)).
    ///
    /// # Errors
    ///
    /// [`Error::OutsideMaskWidth`] when `masked` is not below `2^width`: no ID masks to it.
    pub fn unmask(&self, masked: u64) -> Result<Id> {
        self.check(masked, "masked value")?;
        Ok(Id::from_u64(self.keyed.decrypt(masked)))
    }

    /// [`unmask`](Self::unmask), refusing a value whose ID is above `max_id`: the checked form.
    ///
    /// Mask IDs into a width wider than they use (a layout's IDs below 2^53, say, into 64
    /// bits) and unmask with the layout's [`max_id`](crate::Layout::max_id): a value that was
    /// never shown unmasks to a uniformly spread ID, above `max_id` with probability
    /// `1 - (max_id + 1) / 2^width` (here 1 - 2^-11), and is refused before any lookup. A real
    /// masked value always passes.
    ///
    /// # Errors
    ///
    /// [`Error::NotMaskedId`] when the ID is above `max_id`, and as for
    /// [`unmask`](Self::unmask).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mask::{MaskKey, MaskWidth, Masker};
    /// use snowmint::{Id, Layout};
    ///
    /// let masker = Masker::new(&MaskKey::from_bytes([7; 16]), MaskWidth::U64);
    /// let max = Layout::SONYFLAKE.max_id().to_u64(); // 63-bit IDs, masked into 64 bits
    /// let shown = masker.mask(Id::from_u64(12_345))?;
    /// assert_eq!(masker.unmask_within(shown, max)?, Id::from_u64(12_345));
    /// let refused = (0..100u64)
    ///     .filter(|&guess| masker.unmask_within(guess, max).is_err())
    ///     .count();
    /// assert!(refused > 20); // about half of all guesses
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn unmask_within(&self, masked: u64, max_id: u64) -> Result<Id> {
        let id = self.unmask(masked)?;
        if id.to_u64() <= max_id {
            Ok(id)
        } else {
            Err(Error::NotMaskedId { masked, max_id })
        }
    }

    fn check(&self, value: u64, what: &'static str) -> Result<()> {
        if value <= self.width.max() {
            Ok(())
        } else {
            Err(Error::OutsideMaskWidth {
                what,
                value,
                bits: self.width.0,
            })
        }
    }
}

impl fmt::Debug for Masker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Masker")
            .field("width", &self.width.0)
            .finish_non_exhaustive()
    }
}
