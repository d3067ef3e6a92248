//! [`Uuid7Generator`] and [`UlidGenerator`]: UUIDv7s and ULIDs from a 64-bit generator's
//! `(millisecond, sequence)`, as two families of [`FamilyGenerator`].

use std::fmt;

use super::seed::Key;
use super::ulid::Ulid;
use super::uuid7::Uuid7;
use crate::clock::DefaultClock;
use crate::error::Result;
use crate::family::{FamilyBuilder, FamilyGenerator, Starts, sealed};
use crate::generator::{ClockBehind, Generator};
use crate::layout::Layout;

/// The 64-bit layout every 128-bit generator mints on: 42 bits of Unix milliseconds from
/// 1970 (to 2109-05-15T07:35:11.103Z) and a 22-bit sequence, no node bits.
const LAYOUT: Layout = Layout::builder("id128", 64)
    .time(42)
    .sequence(SEQUENCE_BITS as u8)
    .build_const();

/// The width of the engine's sequence: what a millisecond's random start is counted up by.
const SEQUENCE_BITS: u32 = 22;
const SEQUENCE_MASK: u64 = (1 << SEQUENCE_BITS) - 1;

/// Mints [`Uuid7`]s on the 64-bit generator `G`: the [`FamilyGenerator`] of UUIDv7s.
///
/// # Examples
///
/// ```
/// use snowmint::id128::Uuid7Generator;
///
/// let generator = Uuid7Generator::builder().build()?;
/// assert_eq!(generator.mint()?.to_bytes()[6] >> 4, 7); // the version
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type Uuid7Generator<G = Generator> = FamilyGenerator<Uuid7, G>;

/// Mints [`Ulid`]s on the 64-bit generator `G`: the [`FamilyGenerator`] of ULIDs.
///
/// # Examples
///
/// ```
/// use snowmint::id128::UlidGenerator;
///
/// let generator = UlidGenerator::builder().build()?;
/// assert_eq!(generator.mint()?.to_string().len(), 26);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type UlidGenerator<G = Generator> = FamilyGenerator<Ulid, G>;

/// Configures a [`Uuid7Generator`] (`Id128Builder<Uuid7>`) or a [`UlidGenerator`]
/// (`Id128Builder<Ulid>`): the [`FamilyBuilder`] of the 128-bit families.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, clock::ManualClock, id128::{Id128Builder, Uuid7}};
///
/// let builder: Id128Builder<Uuid7, _> = snowmint::id128::Uuid7Generator::builder()
///     .clock(ManualClock::new(1_700_000_000_000))
///     .on_clock_behind(ClockBehind::Error);
/// assert_eq!(builder.build()?.mint()?.unix_ms(), 1_700_000_000_000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type Id128Builder<K, C = DefaultClock> = FamilyBuilder<K, C>;

/// The bits of the ID of state word `word` in family `K` under `key`: its millisecond's first
/// ID (remembered in `starts` where the engine allows) plus its sequence, which no carry
/// takes out of the random part (see [`Random::base`]).
#[inline(always)]
fn bits<K: Random>(key: &Key, starts: &impl Starts, word: u64) -> u128 {
    starts.id(word, SEQUENCE_MASK, |tick| {
        let ms = tick >> SEQUENCE_BITS;
        K::base(ms, key.seed(ms))
    })
}

/// What a 128-bit family adds to [`sealed::Family`]: a millisecond's first ID from a seed,
/// and the ID of some bits.
trait Random: Copy {
    /// The bits of the ID of millisecond `unix_ms` (at most 48 bits) whose random part
    /// starts at `seed`: the seed less the bit that would let a 22-bit sequence added to the
    /// ID carry out of the random part's lowest field.
    fn base(unix_ms: u64, seed: u128) -> u128;
    /// The ID with these bits, which [`base`](Self::base) plus a sequence made.
    fn from_bits(bits: u128) -> Self;
}

impl Random for Uuid7 {
    #[inline(always)]
    fn base(unix_ms: u64, seed: u128) -> u128 {
        Uuid7::start(unix_ms, seed).to_u128()
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Uuid7 {
        Uuid7::from_bits(bits)
    }
}

impl Random for Ulid {
    #[inline(always)]
    fn base(unix_ms: u64, seed: u128) -> u128 {
        Ulid::start(unix_ms, seed).to_u128()
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Ulid {
        Ulid::from_u128(bits)
    }
}

/// The family of a 128-bit ID: the layout, the key drawn at build, and each millisecond's
/// random start counted up by the sequence.
macro_rules! family {
    ($id:ty, $generator:literal) => {
        impl sealed::Family for $id {
            const GENERATOR: &'static str = $generator;
            const LAYOUT: Layout = LAYOUT;
            type Options = ();
            /// The generator's key.
            type Map = Key;

            fn on_clock_behind() -> ClockBehind {
                ClockBehind::default()
            }

            fn options() {}

            /// A key of its own, from the operating system.
            fn map(_: ()) -> Result<Key> {
                Key::from_os()
            }

            #[inline(always)]
            fn id(key: &Key, starts: &impl Starts, word: u64) -> $id {
                <$id>::from_bits(bits::<$id>(key, starts, word))
            }

            /// The run's first ID, counted up by one: one millisecond's.
            #[inline(always)]
            fn fill(key: &Key, starts: &impl Starts, out: &mut [$id], first: u64) {
                let first = bits::<$id>(key, starts, first);
                for (slot, bits) in out.iter_mut().zip(first..) {
                    *slot = <$id>::from_bits(bits);
                }
            }

            /// Never the key.
            fn fmt_map(_: &Key, _: &mut fmt::DebugStruct<'_, '_>) {}
        }
    };
}

family!(Uuid7, "Uuid7Generator");
family!(Ulid, "UlidGenerator");

#[cfg(test)]
mod tests;
