//! Text forms of 64-bit IDs: decimal, base36, Crockford base32, base62 and hex.
//!
//! Each form's rules are in [`Encoding`]'s table.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::error::{Error, ParseIdReason, Result, bounded};
use crate::id::Id;

/// A text form of 64-bit IDs.
///
/// | form | [`Encoding`] | width | alphabet (digit values ascending) | decodes | text order = numeric order |
/// |---|---|---|---|---|---|
/// | `decimal` (the [`Id`] `Display`) | `Decimal` | 1 to 20, unpadded | `0-9` | leading zeros accepted | no: `"9" > "10"` |
/// | `base36` (Nanoflake) | `Base36` | 1 to 13, unpadded | `0-9a-z` | either case; leading zeros accepted up to 13 characters | no: `"z" > "10"` |
/// | `base32` (Crockford) | `Base32` | 13, zero-padded | `0-9A-Z` without `I L O U` | either case; `I`/`L` read as 1, `O` as 0; no `U`, no hyphens | yes |
/// | `base62` | `Base62` | 11, zero-padded | `0-9A-Za-z` | case-sensitive, as the alphabet is | yes, in byte order (not under a case-insensitive collation) |
/// | `hex` | `Hex` | 16, zero-padded | `0-9a-f` | either case | yes |
///
/// Encoding always writes the alphabet column's characters: lowercase for base36 and hex,
/// Crockford's uppercase, base62's mixed case. "Text order" is the
/// order of the encoded strings compared byte by byte (`str`'s `Ord`, SQL's binary collation,
/// `memcmp`): for the fixed-width forms it is the order of the IDs, so text columns sort and
/// range-scan like the numbers. The unpadded forms keep it only between strings of one length.
/// A column holding base62 under a case-insensitive collation (MySQL's default) loses both the
/// order and uniqueness: use a binary collation, or hex or base32.
///
/// Decoding takes exactly one form: no sign, no prefix (`0x`), no whitespace. A fixed-width
/// form must have exactly its width; an unpadded form at least one and at most its width
/// (decimal: any number of leading zeros). Errors say which: the bad character and its byte
/// position, the length found and the length expected, or an overflow with the largest ID in
/// that form. Crockford's hyphens are rejected rather than skipped, so a decoded string always
/// has the width that keeps text order; strip them first when reading IDs typed by people.
///
/// Encoding never allocates: [`Id::encode`] returns an [`EncodedId`], a 21-byte stack value
/// read with [`EncodedId::as_str`] or `Display`; [`Encoding::encode_into`] writes into a
/// caller's buffer.
///
/// [`FromStr`] takes the names [`name`](Self::name) gives: `decimal`, `base36`, `base32`,
/// `base62`, `hex`.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, encoding::Encoding};
///
/// let id = Id::from_u64(1_541_815_603_606_036_480); // the encyclopedia's example tweet
/// assert_eq!(id.encode(Encoding::Base36).as_str(), "bppc0m3ju134");
/// assert_eq!(id.encode(Encoding::Base32).as_str(), "1ASD13XH1F800");
/// assert_eq!(id.encode(Encoding::Base62).as_str(), "1ptWyK4WgZU");
/// assert_eq!(id.encode(Encoding::Hex).as_str(), "1565a11f6217a000");
///
/// let encoding: Encoding = "base62".parse()?;
/// assert_eq!(encoding.decode("1ptWyK4WgZU")?, id);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Decimal digits, unpadded: the [`Id`] `Display` and `FromStr` form.
    #[default]
    Decimal,
    /// Base 36 (`0-9a-z`), lowercase, unpadded, at most 13 characters (the Nanoflake form).
    Base36,
    /// Crockford's base 32 (`0-9A-Z` without `I L O U`), uppercase, 13 characters zero-padded.
    Base32,
    /// Base 62 (`0-9A-Za-z`), 11 characters zero-padded.
    Base62,
    /// Hexadecimal (`0-9a-f`), lowercase, 16 characters zero-padded.
    Hex,
}

/// The names [`Encoding`]'s `FromStr` accepts, comma separated.
const NAMES: &str = "decimal, base36, base32, base62, hex";

impl Encoding {
    /// Every form, in the order of the table above.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let id = Id::from_u64(1_541_815_603_606_036_480);
    /// for encoding in Encoding::ALL {
    ///     assert_eq!(encoding.decode(id.encode(encoding).as_str())?, id);
    /// }
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const ALL: [Encoding; 5] = [
        Encoding::Decimal,
        Encoding::Base36,
        Encoding::Base32,
        Encoding::Base62,
        Encoding::Hex,
    ];

    /// The longest encoded ID of any form, in bytes (20 decimal digits of `u64::MAX`).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let longest = Encoding::ALL.iter().map(|&e| Id::from_u64(u64::MAX).encode(e).len()).max();
    /// assert_eq!(longest, Some(Encoding::MAX_LEN));
    /// ```
    pub const MAX_LEN: usize = 20;

    /// The form's name, as `FromStr` takes it and as [`Error::ParseId`] names it.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::encoding::Encoding;
    ///
    /// let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
    /// assert_eq!(names, ["decimal", "base36", "base32", "base62", "hex"]);
    /// ```
    pub const fn name(self) -> &'static str {
        self.form().name
    }

    /// The number of characters every ID takes in a fixed-width form, `None` for the unpadded
    /// forms (decimal and base36).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::encoding::Encoding;
    ///
    /// assert_eq!(Encoding::Base32.fixed_width(), Some(13));
    /// assert_eq!(Encoding::Base62.fixed_width(), Some(11));
    /// assert_eq!(Encoding::Hex.fixed_width(), Some(16));
    /// assert_eq!(Encoding::Base36.fixed_width(), None);
    /// ```
    pub const fn fixed_width(self) -> Option<usize> {
        match self.form().width {
            Width::Fixed(n) => Some(n),
            Width::UpTo(_) => None,
        }
    }

    /// The most characters an encoded ID takes: 20, 13, 13, 11 and 16.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// for encoding in Encoding::ALL {
    ///     assert_eq!(Id::from_u64(u64::MAX).encode(encoding).len(), encoding.max_len());
    /// }
    /// ```
    pub const fn max_len(self) -> usize {
        match self.form().width {
            Width::Fixed(n) | Width::UpTo(n) => n,
        }
    }

    /// Whether encoded IDs compared as bytes (`str`'s `Ord`) are in the order of the IDs: true
    /// for the fixed-width forms.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let (a, b) = (Id::from_u64(9), Id::from_u64(10));
    /// assert!(Encoding::Hex.keeps_order());
    /// assert!(a.encode(Encoding::Hex) < b.encode(Encoding::Hex));
    /// assert!(!Encoding::Decimal.keeps_order());
    /// assert!(a.encode(Encoding::Decimal) > b.encode(Encoding::Decimal)); // "9" > "10"
    /// ```
    pub const fn keeps_order(self) -> bool {
        self.fixed_width().is_some()
    }

    /// `id` in this form, as a stack value that displays as the text (no allocation).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let text = Encoding::Base62.encode(Id::from_u64(61));
    /// assert_eq!(text, "0000000000z");
    /// assert_eq!(format!("/ids/{text}"), "/ids/0000000000z");
    /// ```
    pub fn encode(self, id: Id) -> EncodedId {
        let mut buf = [0; Encoding::MAX_LEN];
        let len = self.write(id, &mut buf);
        EncodedId {
            buf,
            len: len as u8,
        }
    }

    /// Writes `id` in this form at the start of `buf` and returns the text written.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let mut buf = [0; Encoding::MAX_LEN];
    /// let text = Encoding::Hex.encode_into(Id::from_u64(255), &mut buf);
    /// assert_eq!(text, "00000000000000ff");
    /// ```
    pub fn encode_into(self, id: Id, buf: &mut [u8; Encoding::MAX_LEN]) -> &str {
        let len = self.write(id, buf);
        ascii(&buf[..len])
    }

    /// Reads an ID written in this form.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with this form's name and the reason: [`ParseIdReason::Empty`],
    /// [`ParseIdReason::WrongLength`] (checked before the characters, so an ID in another form
    /// is usually reported by its length), then, reading left to right, the first of
    /// [`ParseIdReason::InvalidDigit`] for a character that is not a digit of the form and
    /// [`ParseIdReason::Overflow`] at the digit that takes the value past `u64::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// assert_eq!(Encoding::Base32.decode("0000000000o1l")?, Id::from_u64(33)); // O = 0, L = 1
    /// assert_eq!(Encoding::Hex.decode("00000000000000FF")?, Id::from_u64(255));
    ///
    /// let err = Encoding::Base32.decode("000000000000U").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid base32 id \"000000000000U\": 'U' at position 12 is not a Crockford base32 \
    ///      digit (U is a check symbol, not a digit)"
    /// );
    /// let err = Encoding::Base62.decode("1541815603606036480").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid base62 id \"1541815603606036480\": 19 characters, expected exactly 11"
    /// );
    /// let err = Encoding::Base36.decode("3w5e11264sgsg").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid base36 id \"3w5e11264sgsg\": larger than the largest id, 3w5e11264sgsf"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn decode(self, s: &str) -> Result<Id> {
        match self {
            // One decimal grammar for the crate: `Id`'s own.
            Encoding::Decimal => s.parse(),
            _ => self.form().decode(s),
        }
    }

    /// Writes `id` at the start of `buf`, returning the number of bytes written.
    fn write(self, id: Id, buf: &mut [u8; Encoding::MAX_LEN]) -> usize {
        let form = self.form();
        let min_width = match form.width {
            Width::Fixed(n) => n,
            Width::UpTo(_) => 1,
        };
        // Digits from the least significant, right-aligned in `digits`, then moved to the front.
        // At most 20 digits (radix 10), and no width exceeds 16, so `start` stays in bounds.
        let (mut value, radix) = (id.to_u64(), form.radix);
        let mut digits = [0; Encoding::MAX_LEN];
        let mut start = Encoding::MAX_LEN;
        while value != 0 || Encoding::MAX_LEN - start < min_width {
            start -= 1;
            digits[start] = form.alphabet[(value % radix) as usize];
            value /= radix;
        }
        let len = Encoding::MAX_LEN - start;
        buf[..len].copy_from_slice(&digits[start..]);
        len
    }

    const fn form(self) -> &'static Form {
        match self {
            Encoding::Decimal => &DECIMAL,
            Encoding::Base36 => &BASE36,
            Encoding::Base32 => &BASE32,
            Encoding::Base62 => &BASE62,
            Encoding::Hex => &HEX,
        }
    }
}

impl fmt::Display for Encoding {
    /// The form's [`name`](Encoding::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Encoding {
    type Err = Error;

    /// A form by its name: `decimal`, `base36`, `base32`, `base62` or `hex` (exactly, in
    /// lowercase).
    fn from_str(name: &str) -> Result<Encoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| Error::UnknownEncoding {
                name: bounded(name),
                expected: NAMES,
            })
    }
}

/// An ID in one text form, held on the stack: read it with [`as_str`](Self::as_str),
/// `AsRef<str>` or `Display`.
///
/// Compares, orders and hashes as its text.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, encoding::Encoding};
///
/// let text = Id::from_u64(u64::MAX).encode(Encoding::Base32);
/// assert_eq!(text.as_str(), "FZZZZZZZZZZZZ");
/// assert_eq!(text.len(), 13);
/// assert_eq!(text.to_string(), "FZZZZZZZZZZZZ");
/// assert_eq!(format!("[{text:>15}]"), "[  FZZZZZZZZZZZZ]"); // honours width and alignment
/// ```
#[derive(Clone, Copy)]
pub struct EncodedId {
    buf: [u8; Encoding::MAX_LEN],
    len: u8,
}

impl EncodedId {
    /// The text.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// assert_eq!(Id::from_u64(255).encode(Encoding::Hex).as_str(), "00000000000000ff");
    /// ```
    pub fn as_str(&self) -> &str {
        ascii(self.as_bytes())
    }

    /// The text as ASCII bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// assert_eq!(Id::from_u64(35).encode(Encoding::Base36).as_bytes(), b"z");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }

    /// The length of the text in bytes (and characters: it is ASCII).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// assert_eq!(Id::from_u64(42).encode(Encoding::Decimal).len(), 2);
    /// assert_eq!(Id::from_u64(42).encode(Encoding::Base62).len(), 11); // zero-padded
    /// ```
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
}

/// `bytes` as a `str`: every text form of the crate's IDs (these encodings, the 128-bit IDs')
/// writes ASCII only, so the fallback, an empty string, is never taken.
pub(crate) fn ascii(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

/// A byte that is no digit, in a [`digit_table`].
pub(crate) const NOT_A_DIGIT: u8 = 0xff;

/// The value of each byte as a digit of `alphabet` (its index), or [`NOT_A_DIGIT`]; with
/// `either_case`, a letter reads the same in both ASCII cases. The decoding table of the
/// 128-bit IDs' hex and Crockford base32, and of sno's base32.
pub(crate) const fn digit_table(alphabet: &[u8], either_case: bool) -> [u8; 256] {
    let mut table = [NOT_A_DIGIT; 256];
    let mut i = 0;
    while i < alphabet.len() {
        let c = alphabet[i];
        table[c as usize] = i as u8;
        if either_case {
            table[c.to_ascii_lowercase() as usize] = i as u8;
            table[c.to_ascii_uppercase() as usize] = i as u8;
        }
        i += 1;
    }
    table
}

impl AsRef<str> for EncodedId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for EncodedId {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Display for EncodedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for EncodedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for EncodedId {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for EncodedId {}

impl PartialEq<str> for EncodedId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EncodedId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for EncodedId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EncodedId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for EncodedId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// How many characters a form takes.
#[derive(Clone, Copy)]
enum Width {
    /// Exactly this many, zero-padded.
    Fixed(usize),
    /// 1 to this many, unpadded when encoding.
    UpTo(usize),
}

/// A form's rules, as data: one encoder and one decoder serve every form.
struct Form {
    name: &'static str,
    radix: u64,
    /// The digits in value order (only the first `radix` are used).
    alphabet: &'static [u8],
    width: Width,
    /// A character's digit value, if it is a digit of the form (case and substitutions
    /// included).
    digit: fn(char) -> Option<u64>,
    /// What the form expected instead of a character that is not a digit.
    not_a_digit: fn(char) -> &'static str,
    /// What the form expects, for an empty string.
    empty: &'static str,
    /// The lengths the form allows, for a string of another length.
    lengths: &'static str,
    /// `u64::MAX` in the form.
    max: &'static str,
}

impl Form {
    fn decode(&self, s: &str) -> Result<Id> {
        let fail = |reason| Error::ParseId {
            input: bounded(s),
            encoding: self.name,
            reason,
        };
        if s.is_empty() {
            return Err(fail(ParseIdReason::Empty {
                expected: self.empty,
            }));
        }
        let length = s.chars().count();
        let fits = match self.width {
            Width::Fixed(n) => length == n,
            Width::UpTo(n) => length <= n,
        };
        if !fits {
            return Err(fail(ParseIdReason::WrongLength {
                length,
                expected: self.lengths,
            }));
        }
        let mut value: u64 = 0;
        for (position, found) in s.char_indices() {
            let digit = (self.digit)(found).ok_or_else(|| {
                fail(ParseIdReason::InvalidDigit {
                    found,
                    position,
                    expected: (self.not_a_digit)(found),
                })
            })?;
            value = value
                .checked_mul(self.radix)
                .and_then(|v| v.checked_add(digit))
                .ok_or_else(|| fail(ParseIdReason::Overflow { max: self.max }))?;
        }
        Ok(Id::from_u64(value))
    }
}

/// `0-9a-z`, then `A-Z` read as `a-z`: the digits of bases up to 36.
fn alphanumeric_digit(c: char, radix: u32) -> Option<u64> {
    c.to_digit(radix).map(u64::from)
}

const DECIMAL: Form = Form {
    name: "decimal",
    radix: 10,
    alphabet: b"0123456789",
    width: Width::UpTo(20),
    digit: |c| alphanumeric_digit(c, 10),
    not_a_digit: |_| "a decimal digit",
    empty: "1 to 20 decimal digits",
    lengths: "1 to 20",
    max: "18446744073709551615",
};

const BASE36: Form = Form {
    name: "base36",
    radix: 36,
    alphabet: b"0123456789abcdefghijklmnopqrstuvwxyz",
    width: Width::UpTo(13),
    digit: |c| alphanumeric_digit(c, 36),
    not_a_digit: |_| "a base36 digit (0-9, a-z, either case)",
    empty: "1 to 13 base36 digits",
    lengths: "1 to 13",
    max: "3w5e11264sgsf",
};

const BASE32: Form = Form {
    name: "base32",
    radix: 32,
    alphabet: b"0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    width: Width::Fixed(13),
    digit: crockford_digit,
    not_a_digit: |c| match c {
        '-' => "a Crockford base32 digit (hyphens are not accepted: remove them)",
        'U' | 'u' => "a Crockford base32 digit (U is a check symbol, not a digit)",
        _ => "a Crockford base32 digit (0-9, A-Z except U, either case)",
    },
    empty: "exactly 13 Crockford base32 digits",
    lengths: "exactly 13",
    max: "FZZZZZZZZZZZZ",
};

/// Crockford's decoding: either case, `I` and `L` as 1, `O` as 0; `U` is not a digit.
fn crockford_digit(c: char) -> Option<u64> {
    let value = match c.to_ascii_uppercase() {
        c @ '0'..='9' => c as u64 - '0' as u64,
        'O' => 0,
        'I' | 'L' => 1,
        c @ 'A'..='H' => c as u64 - 'A' as u64 + 10, // A-H: 10-17
        'J' => 18,
        'K' => 19,
        'M' => 20,
        'N' => 21,
        c @ 'P'..='T' => c as u64 - 'P' as u64 + 22, // P-T: 22-26
        c @ 'V'..='Z' => c as u64 - 'V' as u64 + 27, // V-Z: 27-31
        _ => return None,
    };
    Some(value)
}

const BASE62: Form = Form {
    name: "base62",
    radix: 62,
    alphabet: b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    width: Width::Fixed(11),
    digit: |c| match c {
        '0'..='9' => Some(c as u64 - '0' as u64),
        'A'..='Z' => Some(c as u64 - 'A' as u64 + 10),
        'a'..='z' => Some(c as u64 - 'a' as u64 + 36),
        _ => None,
    },
    not_a_digit: |_| "a base62 digit (0-9, A-Z, a-z)",
    empty: "exactly 11 base62 digits",
    lengths: "exactly 11",
    max: "LygHa16AHYF",
};

const HEX: Form = Form {
    name: "hex",
    radix: 16,
    alphabet: b"0123456789abcdef",
    width: Width::Fixed(16),
    digit: |c| alphanumeric_digit(c, 16),
    not_a_digit: |_| "a hex digit (0-9, a-f, either case)",
    empty: "exactly 16 hex digits",
    lengths: "exactly 16",
    max: "ffffffffffffffff",
};

impl Id {
    /// The ID in a text form, as a stack value that displays as the text; the same as
    /// [`Encoding::encode`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let id = Id::from_u64(1_541_815_603_606_036_480);
    /// assert_eq!(id.encode(Encoding::Base62).as_str(), "1ptWyK4WgZU");
    /// assert_eq!(format!("{}", id.encode(Encoding::Decimal)), id.to_string());
    /// ```
    pub fn encode(self, encoding: Encoding) -> EncodedId {
        encoding.encode(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_alphabet_is_ascending_in_bytes_and_decodes_to_its_positions() {
        for encoding in Encoding::ALL {
            let form = encoding.form();
            assert_eq!(form.alphabet.len() as u64, form.radix, "{}", form.name);
            assert!(
                form.alphabet.windows(2).all(|w| w[0] < w[1]),
                "{}",
                form.name
            );
            for (value, &byte) in form.alphabet.iter().enumerate() {
                assert_eq!((form.digit)(char::from(byte)), Some(value as u64));
            }
        }
    }

    #[test]
    fn crockford_reads_every_letter_but_u_in_either_case() {
        let mut read = 0;
        for c in ('A'..='Z').chain('a'..='z') {
            let digit = crockford_digit(c);
            assert_eq!(digit.is_none(), c.eq_ignore_ascii_case(&'U'), "{c}");
            read += usize::from(digit.is_some());
        }
        assert_eq!(read, 50);
        assert_eq!(crockford_digit('o'), Some(0));
        assert_eq!(crockford_digit('i'), Some(1));
        assert_eq!(crockford_digit('L'), Some(1));
    }

    #[test]
    fn the_max_strings_are_u64_max_in_each_form() {
        for encoding in Encoding::ALL {
            let max = Id::from_u64(u64::MAX).encode(encoding);
            assert_eq!(max.as_str(), encoding.form().max);
            assert_eq!(max.len(), encoding.max_len());
        }
    }
}
