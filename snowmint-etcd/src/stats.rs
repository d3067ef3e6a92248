//! What a lease counts, so an operator sees why a node ID is idle: refused mints, renewals and
//! their round trips, endpoint switches, lapses, re-takes and hand-backs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A lease's counters since its claim, from [`EtcdLease::stats`](crate::EtcdLease::stats).
///
/// # Examples
///
/// ```no_run
/// use snowmint::Layout;
/// use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
///
/// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
/// let generator = LeasedGenerator::new(lease.resume(Layout::TWITTER, "machine").build()?, lease)?;
/// generator.mint()?;
/// let stats = generator.store().stats();
/// assert!(stats.renewals >= 1); // the first mark was raised by a renewal
/// assert_eq!(stats.refused_mints, 0);
/// println!("last renewal took {:?}", stats.last_round_trip);
/// # Ok::<(), snowmint_etcd::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseStats {
    /// IDs the lease refused: past the deadline, at the mark, or after the node ID was lost.
    pub refused_mints: u64,
    /// Renewals confirmed (the keep-alive answered and the mark written).
    pub renewals: u64,
    /// Renewal attempts that failed, timed out, or lost to another attempt of theirs.
    pub failed_attempts: u64,
    /// The last confirmed renewal's round trip: from its send to its confirmation.
    pub last_round_trip: Duration,
    /// The longest confirmed renewal's round trip.
    pub max_round_trip: Duration,
    /// Times a renewal was confirmed by another endpoint than the one asked first before.
    pub endpoint_switches: u64,
    /// Times the deadline passed with no renewal confirmed: minting stopped until the next.
    pub lapses: u64,
    /// Times the node ID was taken again with a fresh lease after etcd expired the old one.
    pub reclaims: u64,
    /// Times the node ID was handed back because the generator could not mint on it (its clock
    /// behind the mark by more than its `ClockBehind` policy waits).
    pub hand_backs: u64,
}

/// The counters behind [`LeaseStats`], shared by the mint path and the lease thread.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) refused_mints: AtomicU64,
    pub(crate) renewals: AtomicU64,
    pub(crate) failed_attempts: AtomicU64,
    last_round_trip_ns: AtomicU64,
    max_round_trip_ns: AtomicU64,
    pub(crate) endpoint_switches: AtomicU64,
    pub(crate) lapses: AtomicU64,
    pub(crate) reclaims: AtomicU64,
    pub(crate) hand_backs: AtomicU64,
}

impl Counters {
    /// Adds one to `counter`.
    pub(crate) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// A renewal was confirmed `round_trip` after it was sent.
    pub(crate) fn renewed(&self, round_trip: Duration) {
        let ns = u64::try_from(round_trip.as_nanos()).unwrap_or(u64::MAX);
        Self::count(&self.renewals);
        self.last_round_trip_ns.store(ns, Ordering::Relaxed);
        self.max_round_trip_ns.fetch_max(ns, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> LeaseStats {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        LeaseStats {
            refused_mints: load(&self.refused_mints),
            renewals: load(&self.renewals),
            failed_attempts: load(&self.failed_attempts),
            last_round_trip: Duration::from_nanos(load(&self.last_round_trip_ns)),
            max_round_trip: Duration::from_nanos(load(&self.max_round_trip_ns)),
            endpoint_switches: load(&self.endpoint_switches),
            lapses: load(&self.lapses),
            reclaims: load(&self.reclaims),
            hand_backs: load(&self.hand_backs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_snapshot_what_was_counted() {
        let counters = Counters::default();
        Counters::count(&counters.refused_mints);
        Counters::count(&counters.refused_mints);
        counters.renewed(Duration::from_millis(30));
        counters.renewed(Duration::from_millis(10));
        let stats = counters.snapshot();
        assert_eq!(stats.refused_mints, 2);
        assert_eq!(stats.renewals, 2);
        assert_eq!(stats.last_round_trip, Duration::from_millis(10));
        assert_eq!(stats.max_round_trip, Duration::from_millis(30));
        assert_eq!(stats.hand_backs, 0);
    }
}
