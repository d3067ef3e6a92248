//! The permutations behind [`Masker`](super::Masker): Speck64/128 for 64 bits, with cycle
//! walking for 63, and a 10-round Feistel network over it for fewer (the module docs give the
//! construction and its sources).

use speck_cipher::Speck64_128;
use speck_cipher::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};

/// The rounds of the Feistel network, as NIST SP 800-38G's FF1 has.
const FEISTEL_ROUNDS: u64 = 10;

/// What a width's key is derived from: "mask" in ASCII, then the width and the block index.
const DERIVE: u64 = 0x6d61_736b << 32;

/// The cipher under the key derived from the master key `key` for `tag`: a width's bits
/// (32 to 64), or a tag above 64 for another use (the 128-bit facades).
pub(super) fn derived(key: &[u8; 16], tag: u32) -> Speck64_128 {
    let master = Speck64_128::new(&Array(*key));
    let block = |index: u64| encrypt_block(&master, DERIVE | u64::from(tag) << 8 | index);
    let mut derived = [0u8; 16];
    derived[..8].copy_from_slice(&block(0).to_be_bytes());
    derived[8..].copy_from_slice(&block(1).to_be_bytes());
    Speck64_128::new(&Array(derived))
}

/// A pseudorandom function of two 64-bit blocks: their CBC-MAC under `cipher`,
/// `E(E(first) ^ second)`, which for messages of one fixed length is a PRF as the cipher is a
/// PRP (Bellare, Kilian and Rogaway, "The Security of the Cipher Block Chaining Message
/// Authentication Code", 1994).
pub(super) fn prf2(cipher: &Speck64_128, first: u64, second: u64) -> u64 {
    encrypt_block(cipher, encrypt_block(cipher, first) ^ second)
}

/// A width's permutation under its derived key.
#[derive(Clone)]
pub(super) struct Keyed {
    cipher: Speck64_128,
    bits: u32,
}

impl Keyed {
    /// The permutation of `bits`-bit values (32 to 64) under the master key `key`.
    pub(super) fn new(key: &[u8; 16], bits: u32) -> Keyed {
        Keyed {
            cipher: derived(key, bits),
            bits,
        }
    }

    /// The image of `value`, which is below `2^bits`.
    #[inline]
    pub(super) fn encrypt(&self, value: u64) -> u64 {
        match self.bits {
            64 => encrypt_block(&self.cipher, value),
            63 => self.walk(value, encrypt_block),
            _ => self.feistel(value, true),
        }
    }

    /// The preimage of `value`, which is below `2^bits`.
    #[inline]
    pub(super) fn decrypt(&self, value: u64) -> u64 {
        match self.bits {
            64 => decrypt_block(&self.cipher, value),
            63 => self.walk(value, decrypt_block),
            _ => self.feistel(value, false),
        }
    }

    /// Cycle walking below 2^63: `step` (the cipher or its inverse) until the value is back in
    /// the domain, which the cycle through `value` reaches.
    fn walk(&self, value: u64, step: fn(&Speck64_128, u64) -> u64) -> u64 {
        let mut x = step(&self.cipher, value);
        while x >> 63 != 0 {
            x = step(&self.cipher, x);
        }
        x
    }

    /// The Feistel network of FF1's shape on `bits` bits (at most 62): the left part `a` has
    /// `u = ⌊bits/2⌋` bits, the right part `b` has `v = bits - u`; round `i` replaces
    /// `(a, b)` by `(b, a ^ F(i, b))`, where `F(i, b)` is the cipher on the round, the width
    /// and `b`, cut to the left part's width of that round (`u` in even rounds, `v` in odd).
    fn feistel(&self, value: u64, forward: bool) -> u64 {
        let n = u64::from(self.bits);
        let (u, v) = (n / 2, n - n / 2);
        let round = |i: u64, half: u64| -> u64 {
            let m = if i & 1 == 0 { u } else { v };
            let f = encrypt_block(&self.cipher, i << 56 | n << 48 | half);
            f & ((1 << m) - 1)
        };
        let (mut a, mut b) = (value >> v, value & ((1 << v) - 1));
        if forward {
            for i in 0..FEISTEL_ROUNDS {
                (a, b) = (b, a ^ round(i, b));
            }
        } else {
            for i in (0..FEISTEL_ROUNDS).rev() {
                (a, b) = (b ^ round(i, a), a);
            }
        }
        a << v | b
    }
}

/// Speck64 on a block read as a big-endian `u64` (the byte order of the cipher's paper and
/// its test vectors).
#[inline]
pub(super) fn encrypt_block(cipher: &Speck64_128, value: u64) -> u64 {
    let mut block = Array(value.to_be_bytes());
    cipher.encrypt_block(&mut block);
    u64::from_be_bytes(block.0)
}

#[inline]
fn decrypt_block(cipher: &Speck64_128, value: u64) -> u64 {
    let mut block = Array(value.to_be_bytes());
    cipher.decrypt_block(&mut block);
    u64::from_be_bytes(block.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speck64_128_gives_the_papers_test_vector() {
        // "The SIMON and SPECK Families of Lightweight Block Ciphers", appendix C: key
        // 1b1a1918 13121110 0b0a0908 03020100, plaintext 3b726574 7475432d, ciphertext
        // 8c6fa548 454e028b.
        let key = [
            0x1b, 0x1a, 0x19, 0x18, 0x13, 0x12, 0x11, 0x10, 0x0b, 0x0a, 0x09, 0x08, 0x03, 0x02,
            0x01, 0x00,
        ];
        let cipher = Speck64_128::new(&Array(key));
        assert_eq!(
            encrypt_block(&cipher, 0x3b72_6574_7475_432d),
            0x8c6f_a548_454e_028b
        );
        assert_eq!(
            decrypt_block(&cipher, 0x8c6f_a548_454e_028b),
            0x3b72_6574_7475_432d
        );
    }

    #[test]
    fn the_first_million_values_of_the_narrowest_width_come_back_and_none_collide() {
        // The first 2^20 values of the narrowest width: each image is in range and comes back,
        // and no two collide.
        let keyed = Keyed::new(&[7; 16], 32);
        let mut seen = std::collections::HashSet::new();
        for value in 0..1 << 20 {
            let image = keyed.encrypt(value);
            assert!(image < 1 << 32, "{value} -> {image}");
            assert_eq!(keyed.decrypt(image), value);
            assert!(seen.insert(image), "{value} collides");
        }
    }
}
