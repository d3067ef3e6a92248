//! What the lease thread keeps between events: the held lease, the attempts in flight and
//! the renewal round.

use std::collections::VecDeque;
use std::sync::{Arc, mpsc as std_mpsc};
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::endpoints::Endpoints;
use super::renewal::Ask;
use crate::claim::NextTime;
use crate::error::Result;
use crate::fence::Fence;

/// A held lease, once claimed.
pub(super) struct Held {
    pub(super) endpoints: Endpoints,
    pub(super) node: u64,
    pub(super) lease: i64,
    /// The revision of the transaction that took the node ID: the node key is still ours
    /// while its last modification is that one (any later put or delete, by anyone, moves
    /// it), and nobody claimed the node ID since while the claim key's is.
    pub(super) revision: i64,
    /// The mark key's mod revision as this holder last wrote or read it (0: no mark key):
    /// every mark write is guarded by it, so a late write never replaces a newer one.
    pub(super) mark_revision: i64,
    /// The mark's value at `mark_revision` (0 when there is none): a raise writes at least
    /// this.
    pub(super) mark_seen: u64,
    pub(super) fence: Arc<Fence>,
    /// The granted time to live, in milliseconds: how far past the next time a mark reaches.
    pub(super) ttl_ms: u64,
    pub(super) next_time: Option<NextTime>,
}

impl Held {
    /// What an attempt asks, with the guards as known now: write `mark` (if any), and keep
    /// the lease alive too if `keep_alive`.
    pub(super) fn ask(&self, mark: Option<u64>, keep_alive: bool) -> Ask {
        Ask {
            lease: self.lease,
            key: self.fence.key.clone(),
            mark_key: self.fence.mark_key.clone(),
            revision: self.revision,
            mark_revision: self.mark_revision,
            mark,
            keep_alive,
        }
    }
}

/// An attempt in flight, as sent.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sent {
    /// Attempts are numbered in the order sent.
    pub(super) number: u64,
    pub(super) endpoint: usize,
    pub(super) lease: i64,
    pub(super) at: Instant,
    pub(super) at_ns: u64,
    /// A full renewal (keep-alive and mark), or a probe.
    pub(super) renewal: bool,
    /// The mark it writes, if any.
    pub(super) mark: Option<u64>,
}

/// The renewal loop's state between events.
pub(super) struct Round {
    /// The send time of the last confirmed renewal (or of the claim's grant).
    pub(super) confirmed: Instant,
    /// Whether a round is under way: attempts are sent until one is confirmed.
    pub(super) open: bool,
    /// When the next attempt of the open round goes out.
    pub(super) next_send: Instant,
    /// The endpoint the next attempt goes to.
    pub(super) next_endpoint: usize,
    /// Quick failures in a row, for the backoff.
    pub(super) failures: u32,
    /// The attempts in flight, oldest first.
    pub(super) flying: VecDeque<(Sent, AbortHandle)>,
    pub(super) numbered: u64,
    /// A probe answered within the round trip a renewal needs: the next attempt renews.
    pub(super) probe_passed: bool,
    /// The deadline passed and this was reported.
    pub(super) lapse_reported: bool,
    /// The key or the lease was found gone: take the node ID again before renewing.
    pub(super) gone: bool,
    /// The pending attach: its reply, the first attempt that answers it, and its give-up time.
    pub(super) attach: Option<(std_mpsc::Sender<Result<()>>, u64, Instant)>,
}

/// `instant + by`, or a day past `instant` if that overflows: no timer needs more.
pub(super) fn later(instant: Instant, by: Duration) -> Instant {
    instant
        .checked_add(by)
        .or_else(|| instant.checked_add(Duration::from_secs(86_400)))
        .unwrap_or(instant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_never_overflows() {
        let now = Instant::now();
        assert!(later(now, Duration::MAX) > now);
        assert_eq!(
            later(now, Duration::from_secs(1)),
            now + Duration::from_secs(1)
        );
    }
}
