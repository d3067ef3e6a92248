//! Checks on what the generators minted: order, uniqueness, and time against the wall clock.

use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

/// Asserts that `ids` strictly increase.
pub fn assert_increasing<T: Ord + Debug>(ids: &[T]) {
    if let Some(pair) = ids.windows(2).find(|pair| pair[0] >= pair[1]) {
        panic!("IDs did not increase: {:?} then {:?}", pair[0], pair[1]);
    }
}

/// Asserts that the IDs of each thread (in minting order) strictly increase and that no ID
/// stands twice across all of them; returns them all.
pub fn assert_unique_and_increasing<T, I>(threads: impl IntoIterator<Item = I>) -> HashSet<T>
where
    I: IntoIterator<Item = T>,
    T: Copy + Ord + Hash + Debug,
{
    let mut seen = HashSet::new();
    for (t, ids) in threads.into_iter().enumerate() {
        let mut last = None;
        for id in ids {
            if let Some(last) = last {
                assert!(
                    last < id,
                    "thread {t}'s IDs did not increase: {last:?} then {id:?}"
                );
            }
            assert!(
                seen.insert(id),
                "{id:?} minted twice (the second on thread {t})"
            );
            last = Some(id);
        }
    }
    seen
}

/// Asserts that `reading` lies in `before..=after`, give or take `slack`: a clock read between
/// two readings of the wall clock.
pub fn assert_near(reading: u64, before: u64, after: u64, slack: u64, what: &str) {
    assert!(
        reading + slack >= before && reading <= after + slack,
        "{what} {reading} is not within {slack} of the wall clock's {before}..={after}"
    );
}
