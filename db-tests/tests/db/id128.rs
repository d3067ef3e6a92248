//! The 128-bit tests' shared workload: IDs minted from one shared generator on a manual clock,
//! [`PER_MS`] in each of [`MS`] milliseconds, and what a database must return for them in ID
//! order and for a time window.

use std::fmt::Debug;

use snowmint::family::{Family, FamilyGenerator};
use snowmint::id128::{Ulid, Uuid7};

use crate::common::clocks::{T0, built_on_manual_clock};

/// Milliseconds minted in, from [`T0`] on.
pub const MS: u64 = 10;
/// IDs minted in each millisecond.
pub const PER_MS: usize = 50;
/// The window of [`in_window`]: the milliseconds `T0 + 3 ..= T0 + 6`.
pub const WINDOW: (u64, u64) = (T0 + 3, T0 + 6);

/// What the tests need of both kinds of 128-bit ID.
pub trait Id128: Family + Copy + Ord + Debug {
    /// The least ID of millisecond `unix_ms`.
    fn min_at(unix_ms: u64) -> Self;
    /// The greatest ID of millisecond `unix_ms`.
    fn max_at(unix_ms: u64) -> Self;
    /// The ID's millisecond.
    fn unix_ms(self) -> u64;
    /// The 128 bits.
    fn to_u128(self) -> u128;
}

impl Id128 for Uuid7 {
    fn min_at(unix_ms: u64) -> Self {
        Uuid7::min_at(unix_ms).unwrap()
    }
    fn max_at(unix_ms: u64) -> Self {
        Uuid7::max_at(unix_ms).unwrap()
    }
    fn unix_ms(self) -> u64 {
        Uuid7::unix_ms(self)
    }
    fn to_u128(self) -> u128 {
        Uuid7::to_u128(self)
    }
}

impl Id128 for Ulid {
    fn min_at(unix_ms: u64) -> Self {
        Ulid::min_at(unix_ms).unwrap()
    }
    fn max_at(unix_ms: u64) -> Self {
        Ulid::max_at(unix_ms).unwrap()
    }
    fn unix_ms(self) -> u64 {
        Ulid::unix_ms(self)
    }
    fn to_u128(self) -> u128 {
        Ulid::to_u128(self)
    }
}

/// IDs minted from one shared generator on a manual clock, [`PER_MS`] in each millisecond of
/// `T0 .. T0 + MS`, in minting order.
pub fn minted<K: Id128>() -> Vec<K> {
    let (generator, clock) = built_on_manual_clock(T0, |clock| {
        FamilyGenerator::<K>::builder()
            .clock(clock)
            .build()
            .unwrap()
    });
    let mut ids = Vec::with_capacity(MS as usize * PER_MS);
    for ms in T0..T0 + MS {
        clock.set(ms);
        for _ in 0..PER_MS {
            ids.push(
                generator
                    .try_mint()
                    .expect("a millisecond's IDs fit its sequence"),
            );
        }
    }
    assert!(ids.is_sorted(), "minting order is ID order");
    ids
}

/// The order the tests insert `minted` in: reversed, so that only `ORDER BY id` restores the
/// minting order.
pub fn insertion_order<K: Id128>(minted: &[K]) -> Vec<K> {
    minted.iter().rev().copied().collect()
}

/// The window's bounds: `min_at` its first millisecond and `max_at` its last.
pub fn window_bounds<K: Id128>() -> (K, K) {
    (K::min_at(WINDOW.0), K::max_at(WINDOW.1))
}

/// The IDs of `minted` (in minting order) minted in [`WINDOW`]: 4 milliseconds' worth.
pub fn in_window<K: Id128>(minted: &[K]) -> Vec<K> {
    let ids: Vec<K> = minted
        .iter()
        .copied()
        .filter(|id| (WINDOW.0..=WINDOW.1).contains(&id.unix_ms()))
        .collect();
    assert_eq!(ids.len(), 4 * PER_MS);
    ids
}

/// The 128 bits written as a UUID: 8-4-4-4-12 lowercase hex digits, as PostgreSQL writes a
/// `uuid`.
#[allow(dead_code)] // db_postgres.rs only
pub fn uuid_text(bits: u128) -> String {
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Asserts that `err` holds the refusal to read `value` (a version 4 UUID's bits) as a
/// `Uuid7`, naming its version.
pub fn assert_not_uuid7(err: &(dyn std::error::Error + 'static), value: u128) {
    let found = crate::db::snowmint_error(err);
    assert_eq!(Some(found), Uuid7::from_u128(value).err().as_ref());
    assert!(
        found.to_string().contains("version 4 and variant 0b10"),
        "{found}"
    );
}
