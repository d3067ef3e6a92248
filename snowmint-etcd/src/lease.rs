//! A node ID leased from etcd.

use std::sync::Arc;
use std::time::Duration;

use snowmint::{Generator, GeneratorBuilder, Layout, Snapshot};

use crate::claim::{Claim, NextTime};
use crate::config::EtcdConfig;
use crate::error::Result;
use crate::fence::Fence;
use crate::keeper::Keeper;
use crate::stats::LeaseStats;

/// A node ID leased from etcd: held by this process alone while the lease lives, renewed in
/// the background, and given back on [`release`](Self::release) or drop.
///
/// [`claim`](Self::claim) grants an etcd lease with the configured TTL and, in a transaction
/// that succeeds only if the key does not exist (its create revision is 0), puts the key of
/// the lowest free node ID of the range, attached to the lease; the same transaction reads the
/// node ID's mark. A thread of the lease's own (`snowmint-etcd`, with its own
/// single-threaded tokio runtime: callers need none) then renews the lease every
/// [`EtcdConfig::renewal_interval`] (a keep-alive and the mark write sent together, again on
/// the next endpoint when one does not answer in time), and with each renewal raises the
/// mark, in a transaction that succeeds only while the key's last modification is
/// this claim's (its mod revision), so only the key's holder writes it, and a key deleted or
/// overwritten by anyone is noticed; and only while the mark key's last modification is the
/// one this holder last wrote or read, so a renewal that reaches etcd late, after a newer one,
/// changes nothing: the mark in etcd only goes up.
///
/// Start a generator above the mark with [`resume`](Self::resume) and mint through a
/// [`LeasedGenerator`](crate::LeasedGenerator), which checks the lease's deadline and the
/// mark for every ID (see there for the guarantee).
///
/// # Examples
///
/// ```no_run
/// use snowmint::{ClockBehind, Layout};
/// use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
///
/// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/orders/", 0..=1023);
/// let lease = EtcdLease::claim(&config)?;
/// println!("node id {} from {}", lease.node_id(), lease.key());
/// let generator = lease
///     .resume(Layout::TWITTER, "machine")
///     .on_clock_behind(ClockBehind::Wait { max_ms: 10_000 }) // up to the TTL
///     .build()?;
/// let generator = LeasedGenerator::new(generator, lease)?;
/// let id = generator.mint()?;
/// assert_eq!(generator.generator().decode(id)?.node("machine"), Some(generator.store().node_id()));
/// generator.shutdown()?; // lowers the mark to the last ID's tick, revokes the lease
/// # Ok::<(), snowmint_etcd::Error>(())
/// ```
#[derive(Debug)]
pub struct EtcdLease {
    node: u64,
    mark: Option<u64>,
    fence: Arc<Fence>,
    /// `None` once released.
    keeper: Option<Keeper>,
    ttl: Duration,
    margin: Duration,
}

impl EtcdLease {
    /// Connects to etcd and claims the lowest free node ID of `config`'s range; blocks until
    /// it holds one (at most a few of `config`'s request timeouts per endpoint: an endpoint
    /// that fails or does not answer in time is left for the next).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLeaseConfig`](crate::Error::InvalidLeaseConfig) for an inconsistent
    /// configuration; [`Error::NodeRangeFull`](crate::Error::NodeRangeFull) when every node ID
    /// of the range is held; [`Error::Etcd`](crate::Error::Etcd) when etcd cannot be reached
    /// or does not answer in time, grants a TTL no longer than the margin, or when the only
    /// free node IDs have marks that are not numbers (such node IDs are skipped).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert!((0..=31).contains(&lease.node_id()));
    /// assert!(lease.check().is_ok());
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn claim(config: &EtcdConfig) -> Result<Self> {
        let (
            keeper,
            Claim {
                node,
                mark,
                fence,
                ttl,
            },
        ) = Keeper::claim(config)?;
        crate::trace::event!(
            info,
            node,
            key = fence.key.as_str(),
            mark = ?mark,
            ttl_ms = ttl.as_millis() as u64,
            "leased a node id from etcd"
        );
        Ok(EtcdLease {
            node,
            mark,
            fence,
            keeper: Some(keeper),
            ttl,
            margin: config.margin_duration(),
        })
    }

    /// The node ID held.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert_eq!(lease.key(), format!("/snowmint/node/{}", lease.node_id()));
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn node_id(&self) -> u64 {
        self.node
    }

    /// The key that holds the node ID: the prefix, `node/`, and the node ID.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert!(lease.key().starts_with("/snowmint/node/"));
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn key(&self) -> &str {
        &self.fence.key
    }

    /// The node ID's mark found at claim time, in Unix milliseconds: no earlier
    /// holder minted an ID at or above it. `None` if it had none.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint::Layout;
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// let generator = lease.resume(Layout::TWITTER, "machine").build()?;
    /// if let Some(mark) = lease.mark() {
    ///     assert!(generator.decode(generator.mint()?)?.unix_ms() >= mark);
    /// }
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn mark(&self) -> Option<u64> {
        self.mark
    }

    /// The mark now confirmed in etcd, in Unix milliseconds (0 when there is none).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert!(lease.confirmed_mark() >= lease.mark().unwrap_or(0));
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn confirmed_mark(&self) -> u64 {
        self.fence.mark()
    }

    /// The lease's time to live as the server granted it: the configured one, unless the
    /// server chose another (etcd raises a TTL below its minimum, about 2 s by default). The
    /// deadline and the marks follow it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert!(lease.ttl() >= EtcdConfig::DEFAULT_TTL); // etcd may grant more, never less
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The margin taken off the TTL for the local deadline.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    /// use std::time::Duration;
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert_eq!(lease.margin(), Duration::from_secs(2)); // a fifth of the default TTL
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn margin(&self) -> Duration {
        self.margin
    }

    /// How long from now the lease is known live: until the last confirmed claim or renewal's
    /// send time, plus the TTL, less the margin. Zero once that has passed, or the node ID was
    /// lost.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert!(lease.live_for() <= lease.ttl() - lease.margin());
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn live_for(&self) -> Duration {
        Duration::from_nanos(self.fence.live_for_ns())
    }

    /// The lease's counters: refused mints, renewals and their round trips, endpoint
    /// switches, lapses, re-takes and hand-backs ([`LeaseStats`]).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// assert_eq!(lease.stats().refused_mints, 0);
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn stats(&self) -> LeaseStats {
        self.fence.counters.snapshot()
    }

    /// Checks that the lease is known live now, for callers that use the node ID for more
    /// than minting: the same deadline check a [`LeasedGenerator`](crate::LeasedGenerator)
    /// makes for every ID.
    ///
    /// # Errors
    ///
    /// [`Error::LeaseExpired`](crate::Error::LeaseExpired) past the deadline;
    /// [`Error::LeaseLost`](crate::Error::LeaseLost) once the key was found gone or held by
    /// another lease.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// lease.check()?; // the node ID is still ours: safe to use it
    /// assert!(lease.live_for() > std::time::Duration::ZERO);
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn check(&self) -> Result<()> {
        self.fence.admit(0)
    }

    /// Starts configuring a generator for `layout` with the node field `field` set to the
    /// leased node ID, that mints above the mark found at claim time: as
    /// [`MarkFile::resume`](snowmint::mark::MarkFile::resume) does. Set the clock, the
    /// [`ClockBehind`](snowmint::ClockBehind) policy and any other node field, build, and wrap the
    /// generator with [`LeasedGenerator::new`](snowmint::mark::MarkedGenerator::new).
    ///
    /// A node ID the field cannot hold is an error at `build()`
    /// ([`Error::NodeOutOfRange`](snowmint::Error::NodeOutOfRange)): keep the configured range
    /// within the field's.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint::Layout;
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// let generator = lease.resume(Layout::TWITTER, "machine").build()?;
    /// assert_eq!(generator.decode(generator.mint()?)?.node("machine"), Some(lease.node_id()));
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn resume(&self, layout: Layout, field: &'static str) -> GeneratorBuilder {
        Generator::resume(&Snapshot::at_mark(layout, &[(field, self.node)], self.mark))
    }

    /// Revokes the lease, so the node ID is free at once, without touching the mark.
    ///
    /// # Errors
    ///
    /// [`Error::Etcd`](crate::Error::Etcd) when etcd does not confirm the revocation; the
    /// lease then expires on its own within its TTL. [`Error::Forked`](snowmint::Error::Forked)
    /// in the child of a `fork()` of the process that claimed the lease: the lease is the
    /// parent's, and is left to it (dropping the child's copy releases nothing either).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use snowmint_etcd::{EtcdConfig, EtcdLease};
    ///
    /// let lease = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?;
    /// let node = lease.node_id();
    /// lease.release()?; // the node ID is free at once
    /// assert!(node <= 31);
    /// # Ok::<(), snowmint_etcd::Error>(())
    /// ```
    pub fn release(mut self) -> Result<()> {
        self.release_with(None)
    }

    pub(crate) fn fence(&self) -> &Fence {
        &self.fence
    }

    /// Has the lease thread raise the mark with `next_time` from now on; returns once a first
    /// renewal raised it.
    pub(crate) fn attach(&self, next_time: NextTime) -> Result<()> {
        match &self.keeper {
            Some(keeper) => keeper.attach(next_time),
            None => self.check(),
        }
    }

    /// Writes `final_mark` (if any) and revokes the lease; a second call does nothing.
    pub(crate) fn release_with(&mut self, final_mark: Option<u64>) -> Result<()> {
        match self.keeper.take() {
            Some(keeper) => {
                let released = keeper.release(final_mark);
                crate::trace::event!(
                    info,
                    node = self.node,
                    key = self.fence.key.as_str(),
                    final_mark = ?final_mark,
                    confirmed = released.is_ok(),
                    "released a node id's lease"
                );
                released
            }
            None => Ok(()),
        }
    }
}

impl Drop for EtcdLease {
    /// Releases the lease as [`release`](Self::release) does, ignoring errors (the lease then
    /// expires within its TTL).
    fn drop(&mut self) {
        let _ = self.release_with(None);
    }
}
