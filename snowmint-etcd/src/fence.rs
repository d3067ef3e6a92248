//! The fence: the check every leased ID passes before it is returned.
//!
//! A [`Fence`] holds two limits, both only ever raised by confirmed etcd answers: the
//! `CLOCK_BOOTTIME` instant until which the lease is known live, and the mark
//! recorded in etcd. The mint path reads the boot clock and both limits, and returns an ID only
//! while the clock is before the first and the ID's time is below the second.

use std::sync::{Mutex, PoisonError};

use tokio::sync::Notify;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::stats::Counters;

/// `valid_until_ns` once minting has stopped for good: no boot-clock reading is below it.
const STOPPED: u64 = 0;

/// What the mint path of a leased generator checks, shared with the task that renews the
/// lease.
#[derive(Debug)]
pub(crate) struct Fence {
    /// The boot-clock instant, in nanoseconds, until which the lease is known live: the send
    /// time of the last confirmed claim or renewal, plus the TTL, less the margin. `STOPPED`
    /// once the key is lost or released.
    valid_until_ns: AtomicU64,
    /// The mark confirmed in etcd, in Unix milliseconds: no ID at or above it may
    /// be returned.
    mark_ms: AtomicU64,
    /// Why minting stopped for good, once it has. Fork: a child forked while a thread holds it
    /// finds it taken for good, but reaches it only through the leased generator, which was
    /// built in the parent and refuses to mint in the child (`Error::Forked`).
    stopped: Mutex<Option<String>>,
    /// Asks the renewal task to renew now, instead of at its next interval.
    pub(crate) nudge: Notify,
    pub(crate) key: String,
    pub(crate) mark_key: String,
    /// What the lease counts, for [`LeaseStats`](crate::LeaseStats).
    pub(crate) counters: Counters,
    ttl_ns: u64,
    margin_ns: u64,
}

impl Fence {
    /// A fence for a lease whose claim was sent at `sent_ns` and confirmed, with the mark
    /// found at claim time.
    pub(crate) fn new(
        key: String,
        mark_key: String,
        ttl_ns: u64,
        margin_ns: u64,
        sent_ns: u64,
        mark_ms: u64,
    ) -> Self {
        Fence {
            valid_until_ns: AtomicU64::new(
                sent_ns.saturating_add(ttl_ns).saturating_sub(margin_ns),
            ),
            mark_ms: AtomicU64::new(mark_ms),
            stopped: Mutex::new(None),
            nudge: Notify::new(),
            key,
            mark_key,
            counters: Counters::default(),
            ttl_ns,
            margin_ns,
        }
    }

    /// Admits an ID whose time is `time_ms`: the lease is known live and the time is below the
    /// mark. One boot-clock read and two relaxed loads.
    #[inline(always)]
    pub(crate) fn admit(&self, time_ms: u64) -> Result<()> {
        let now_ns = boottime_ns();
        // Relaxed: both limits publish no memory. Every value they hold was stored after etcd
        // confirmed it, so any value read is a limit that holds.
        if now_ns < self.valid_until_ns.load(Ordering::Relaxed)
            && time_ms < self.mark_ms.load(Ordering::Relaxed)
        {
            return Ok(());
        }
        self.refuse(now_ns, time_ms)
    }

    /// Why an ID is refused.
    #[cold]
    #[inline(never)]
    fn refuse(&self, now_ns: u64, time_ms: u64) -> Result<()> {
        let refused = self.refusal(now_ns, time_ms);
        if refused.is_err() {
            Counters::count(&self.counters.refused_mints);
        }
        refused
    }

    fn refusal(&self, now_ns: u64, time_ms: u64) -> Result<()> {
        if let Some(reason) = self.stop_reason() {
            return Err(Error::LeaseLost {
                key: snowmint::error::bounded(&self.key),
                reason,
            });
        }
        let valid_until_ns = self.valid_until_ns.load(Ordering::Relaxed);
        if now_ns >= valid_until_ns {
            return Err(Error::LeaseExpired {
                key: snowmint::error::bounded(&self.key),
                ttl_ms: self.ttl_ns / 1_000_000,
                margin_ms: self.margin_ns / 1_000_000,
                overdue_ms: (now_ns - valid_until_ns) / 1_000_000,
            });
        }
        let mark_ms = self.mark_ms.load(Ordering::Relaxed);
        if time_ms < mark_ms {
            // A renewal raised the mark since the first read.
            return Ok(());
        }
        // The clock ran past the mark between renewals (a step forward): renew now.
        self.nudge.notify_one();
        Err(Error::MarkReached {
            key: snowmint::error::bounded(&self.mark_key),
            time_ms,
            mark_ms,
        })
    }

    /// A claim or renewal sent at `sent_ns` was confirmed: the lease lives at least until
    /// `sent_ns + ttl` on the server, so until `sent_ns + ttl - margin` here.
    pub(crate) fn renewed(&self, sent_ns: u64) {
        let until = sent_ns
            .saturating_add(self.ttl_ns)
            .saturating_sub(self.margin_ns);
        // Raise only, and never after a stop: answers may arrive out of order.
        let _ = self
            .valid_until_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                (now != STOPPED && until > now).then_some(until)
            });
    }

    /// The key was found gone: no ID may be returned until a re-take confirms a new lease,
    /// which raises the deadline again (unlike [`stop`](Self::stop)).
    pub(crate) fn suspend(&self) {
        let now_ns = boottime_ns().max(STOPPED + 1);
        let _ = self
            .valid_until_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |until| {
                (until != STOPPED && until > now_ns).then_some(now_ns)
            });
    }

    /// The lease's time to live the deadline is computed with, in milliseconds.
    pub(crate) fn ttl_ms(&self) -> u64 {
        self.ttl_ns / 1_000_000
    }

    /// Whether the deadline has passed (or minting stopped for good).
    pub(crate) fn lapsed(&self) -> bool {
        self.live_for_ns() == 0
    }

    /// etcd confirmed `mark_ms` as the mark.
    pub(crate) fn raise(&self, mark_ms: u64) {
        self.mark_ms.fetch_max(mark_ms, Ordering::Relaxed);
    }

    /// The confirmed mark, in Unix milliseconds.
    pub(crate) fn mark(&self) -> u64 {
        self.mark_ms.load(Ordering::Relaxed)
    }

    /// Stops minting for good, for `reason` (the first reason given is kept).
    pub(crate) fn stop(&self, reason: String) {
        let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
        stopped.get_or_insert(reason);
        self.valid_until_ns.store(STOPPED, Ordering::Relaxed);
    }

    /// Why minting stopped for good, if it has.
    pub(crate) fn stop_reason(&self) -> Option<String> {
        self.stopped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The limit's time left, for reports: how long the lease is known live from now.
    pub(crate) fn live_for_ns(&self) -> u64 {
        self.valid_until_ns
            .load(Ordering::Relaxed)
            .saturating_sub(boottime_ns())
    }
}

/// The boot clock, in nanoseconds: monotonic, and counting through suspend.
///
/// `CLOCK_BOOTTIME` on Linux and Android, read through rustix's safe wrapper (a vDSO call, no
/// system call); `CLOCK_MONOTONIC` elsewhere (on macOS it also counts through sleep).
#[inline(always)]
pub(crate) fn boottime_ns() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let id = rustix::time::ClockId::Boottime;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let id = rustix::time::ClockId::Monotonic;
    let now = rustix::time::clock_gettime(id);
    // Both fields are non-negative for this clock; seconds since boot fit in u64 nanoseconds
    // for 584 years.
    (now.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(now.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    fn fence(sent_ns: u64) -> Fence {
        Fence::new(
            "/p/node/3".into(),
            "/p/mark/3".into(),
            3 * SECOND,
            SECOND,
            sent_ns,
            1_000,
        )
    }

    #[test]
    fn boot_clock_moves_forward() {
        let a = boottime_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = boottime_ns();
        assert!(b >= a + 2_000_000, "{a} then {b}");
    }

    #[test]
    fn admits_before_the_deadline_and_below_the_mark() {
        let fence = fence(boottime_ns());
        assert_eq!(fence.admit(999), Ok(()));
        assert!(matches!(
            fence.admit(1_000),
            Err(Error::MarkReached {
                time_ms: 1_000,
                mark_ms: 1_000,
                ..
            })
        ));
        fence.raise(2_000);
        fence.raise(1_500); // never lowered
        assert_eq!(fence.mark(), 2_000);
        assert_eq!(fence.admit(1_999), Ok(()));
    }

    #[test]
    fn refuses_past_the_deadline_until_a_renewal() {
        // Claimed 2.5 s ago: valid for ttl - margin = 2 s, so 0.5 s overdue.
        let now = boottime_ns();
        let fence = fence(now - 5 * SECOND / 2);
        let err = fence.admit(0).unwrap_err();
        assert!(
            matches!(err, Error::LeaseExpired { ttl_ms: 3_000, margin_ms: 1_000, overdue_ms, .. } if (500..1_500).contains(&overdue_ms)),
            "{err:?}"
        );
        fence.renewed(now - 3 * SECOND); // an older answer does not lower or restore
        assert!(fence.admit(0).is_err());
        fence.renewed(now);
        assert_eq!(fence.admit(0), Ok(()));
        assert!(fence.live_for_ns() > SECOND);
    }

    #[test]
    fn a_stop_is_for_good() {
        let fence = fence(boottime_ns());
        fence.stop("held by lease 7".into());
        fence.stop("a later reason".into());
        fence.renewed(boottime_ns());
        assert_eq!(
            fence.admit(0).unwrap_err().to_string(),
            "etcd key /p/node/3 is no longer held by this generator's lease: held by lease 7; \
             it mints no more"
        );
    }
}
