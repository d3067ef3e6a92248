//! 128-bit time-ordered IDs: UUIDv7 (RFC 9562) and ULID, minted on the 64-bit hot path.
//!
//! [`Uuid7`] and [`Ulid`] are `u128` newtypes with their text forms (a hyphenated UUID,
//! 26 characters of Crockford's base32), time and paging bounds. [`Uuid7Generator`] and
//! [`UlidGenerator`] mint them on a shared [`Generator`](crate::Generator), a per-thread
//! [`LocalGenerator`](crate::LocalGenerator) or a
//! [`ShardedGenerator`](crate::shard::ShardedGenerator), and implement [`Mint`](crate::Mint).
//! In databases they are PostgreSQL's `uuid` and SQLite's 16-byte `BLOB`, in time order
//! ([128-bit IDs](crate::docs::text_and_paging#128-bit-ids)).
//!
//! # How an ID is made
//!
//! The 64-bit generator underneath mints on a fixed layout: 42 bits of Unix milliseconds
//! (from 1970 to 2109-05-15T07:35:11.103Z; past that, minting fails with
//! [`Error::TimeOverflow`](crate::Error::TimeOverflow), while parsing and [`Uuid7::min_at`]
//! cover the full 48 bits) and a 22-bit sequence, with no node bits. Each of its states
//! `(ms, seq)` becomes the ID of millisecond `ms` whose random part is `start(ms) + seq`:
//!
//! - `start(ms)` is a keyed mix of `ms` (two multiply-fold rounds) under the generator's
//!   128-bit key, drawn from the operating system (`getrandom`) when the generator is built,
//!   less one bit, so that a sequence below 2^22 adds to it without a carry out of its field:
//!   the random part's top bit for a ULID (79 random bits), `rand_b`'s top bit for a UUIDv7
//!   (73 random bits; no carry crosses the variant). An ID is its millisecond's first ID plus
//!   the sequence, one addition.
//! - For a ULID, the 80 bits after the time are `start(ms) + seq`: the specification's
//!   monotonic increment within a millisecond, from a fresh random start in each.
//! - For a UUIDv7, the 74 bits `rand_a ‖ rand_b` (around the version 7 and the variant
//!   `0b10`) are `start(ms) + seq`: RFC 9562 §6.2 Method 2, a randomly seeded counter
//!   incremented by one.
//!
//! # Guarantees
//!
//! - IDs of one generator are unique, and each thread's strictly increase: they order as the
//!   64-bit states do (a later millisecond, or the same one with a greater sequence). On a
//!   shared generator every ID is greater than every one returned before it was minted.
//! - Generators built apart (threads, processes, machines) have independent keys: two of them
//!   collide only if, in a millisecond both mint in, their runs of IDs from their starts
//!   overlap; at `n` IDs each, a chance of about `2n / 2^73` for UUIDv7s (`2n / 2^79` for
//!   ULIDs) per such millisecond.
//! - Across `fork()`: a generator built before the fork fails in the child with
//!   [`Error::Forked`](crate::Error::Forked) (the engine's check), naming it `Uuid7Generator`
//!   or `UlidGenerator` whatever its engine, and one built in the child draws a key of its
//!   own from the operating system, so the child repeats neither its parent's IDs nor its
//!   random starts.
//! - The IDs are not secrets: IDs of one millisecond reveal how many were minted between
//!   them, and the mix is fast, not cryptographic. RFC 9562 §8 advises against UUIDs as
//!   access tokens.
//!
//! # When the clock misbehaves
//!
//! The 64-bit generator's policies apply unchanged:
//!
//! - A full millisecond (4,194,304 IDs): [`mint`](crate::family::FamilyGenerator::mint) waits for the next;
//!   [`try_mint`](crate::family::FamilyGenerator::try_mint) fails with
//!   [`Error::SequenceExhausted`](crate::Error::SequenceExhausted); with
//!   [`borrow_ahead(n)`](crate::family::FamilyBuilder::borrow_ahead) the IDs move on to the next millisecond
//!   ahead of the clock, at most `n` ahead (their 48-bit time runs ahead, as RFC 9562 §6.2
//!   allows).
//! - A clock behind the last minted millisecond: [`ClockBehind::Wait`](crate::ClockBehind)
//!   (the default) waits it out, up to its bound, then fails with
//!   [`Error::ClockBehind`](crate::Error::ClockBehind); [`ClockBehind::Error`](crate::ClockBehind)
//!   fails at once. Either way no ID goes back in time. The layout has no tick-tock bit, so
//!   [`ClockBehind::TickTock`](crate::ClockBehind) fails to build.
//!
//! # Orderings
//!
//! None of its own: a 128-bit generator adds no atomic to the engine it wraps. Uniqueness
//! and order rest on the engine's state word (see the generator module's `# Orderings`); a
//! minted ID is a function of the state word and the key, which never changes after build.
//! Each generator computes a millisecond's first ID once per thread that mints in it and
//! remembers it (the local generator in a `Cell` of its own; the shared and the sharded one
//! in a thread-local, keyed by the generator and the millisecond), so an ID costs the
//! engine's mint and an addition.
//!
//! # Examples
//!
//! ```
//! use snowmint::clock::ManualClock;
//! use snowmint::id128::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};
//!
//! let clock = ManualClock::new(1_700_000_000_000);
//! let uuids = Uuid7Generator::builder().clock(&clock).build()?;
//! let a = uuids.mint()?;
//! let b = uuids.mint()?;
//! assert_eq!(b.random(), a.random() + 1); // one millisecond: a counter
//! assert_eq!(a.unix_ms(), 1_700_000_000_000);
//! assert_eq!(a.to_string().parse::<Uuid7>()?, a);
//! assert!(Uuid7::min_at(a.unix_ms())? <= a && b <= Uuid7::max_at(a.unix_ms())?);
//!
//! let ulids = UlidGenerator::builder().clock(&clock).build_local()?;
//! let id = ulids.mint()?;
//! assert_eq!(id.to_string().parse::<Ulid>()?, id);
//! clock.advance(1);
//! assert!(ulids.mint()?.unix_ms() > id.unix_ms());
//! # Ok::<(), snowmint::Error>(())
//! ```

mod generator;
mod now;
mod seed;
mod text;
mod ulid;
mod uuid7;

pub use generator::{Id128Builder, UlidGenerator, Uuid7Generator};
#[cfg(feature = "mask")]
pub(crate) use text::{HYPHENATED_LEN, ascii, hyphenated, parse_error, parse_uuid};
pub use ulid::Ulid;
pub use uuid7::Uuid7;

use crate::layout::UnixTime;
use std::ops::RangeBounds;

/// The first and last Unix milliseconds of `times` that a 128-bit ID's 48-bit time can carry,
/// `None` when it carries none of them.
fn ms_span<T: UnixTime>(times: &impl RangeBounds<T>) -> Option<(u64, u64)> {
    const MAX_UNIX_MS: i128 = (1 << 48) - 1;
    let (first, last) = crate::layout::ms_window(times)?;
    if last < 0 || first > MAX_UNIX_MS {
        return None;
    }
    // Both clamped into 0..=2^48 - 1.
    Some((first.max(0) as u64, last.min(MAX_UNIX_MS) as u64))
}
