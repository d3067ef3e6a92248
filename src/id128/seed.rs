//! The keyed mix: each millisecond's random start, from a generator's 128-bit key.

use std::io;

use crate::error::{Error, IoError, Result};

/// A generator's secret: 128 bits from the operating system, drawn when it is built.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key([u64; 2]);

/// Odd constants (wyhash's), so no multiplier a key can make is zero.
const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;
const P2: u64 = 0x8ebc_6af0_9c88_c6e3;
const P3: u64 = 0x5899_65cc_7537_4cc3;

impl Key {
    /// A fresh key from the operating system's random source (`getrandom`): never a
    /// user-space generator's state, so a key drawn in a forked child is not its parent's.
    pub(crate) fn from_os() -> Result<Key> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|error| Error::RandomSource {
            source: IoError::from(io::Error::other(error)),
        })?;
        let [a, b] = [&bytes[..8], &bytes[8..]]
            .map(|half| u64::from_le_bytes(half.try_into().unwrap_or_default()));
        Ok(Key([a, b]))
    }

    /// A key given, for tests of the mix.
    #[cfg(test)]
    pub(crate) const fn new(a: u64, b: u64) -> Key {
        Key([a, b])
    }

    /// The 128-bit random start of millisecond `ms`: two multiply-fold rounds (wyhash's
    /// `mum`), the first mixing the time with the key, the second spreading the result into
    /// two independent halves. Not a cryptographic function: it makes starts that differ
    /// between generators and milliseconds, not secrets.
    #[inline(always)]
    pub(crate) const fn seed(&self, ms: u64) -> u128 {
        let [a, b] = self.0;
        let mixed = mum(ms ^ a, b ^ P0);
        let high = mum(mixed ^ P1, a ^ P2);
        let low = mum(mixed ^ P3, b ^ P1);
        (high as u128) << 64 | low as u128
    }
}

/// The 128-bit product of `a` and `b`, its halves folded with XOR.
#[inline(always)]
const fn mum(a: u64, b: u64) -> u64 {
    let product = a as u128 * b as u128;
    product as u64 ^ (product >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_differ_between_milliseconds_and_keys() {
        let key = Key::new(1, 2);
        let other = Key::new(1, 3);
        let mut seen = std::collections::HashSet::new();
        for ms in 1_700_000_000_000..1_700_000_010_000 {
            assert!(seen.insert(key.seed(ms)));
            assert!(seen.insert(other.seed(ms)));
        }
    }

    #[test]
    fn each_bit_of_the_start_flips_about_half_the_time() {
        let key = Key::new(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        let mut ones = [0u32; 128];
        let n = 4096;
        for ms in 0..n {
            let seed = key.seed(1_700_000_000_000 + ms);
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += (seed >> bit) as u32 & 1;
            }
        }
        // Binomial(4096, 1/2): a standard deviation of 32; 6 of them is never reached by chance.
        for (bit, &count) in ones.iter().enumerate() {
            assert!(
                count.abs_diff(2048) < 192,
                "bit {bit} was set {count} times of {n}"
            );
        }
    }

    #[test]
    fn keys_from_the_os_differ() {
        assert!(Key::from_os().unwrap() != Key::from_os().unwrap());
    }
}
