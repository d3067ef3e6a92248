//! The crate's error type: what went wrong with the lease, or the library call that failed.

use std::ops::RangeInclusive;

/// What went wrong with a lease: the configuration, etcd, the fence, or a call into snowmint.
///
/// Messages are lowercase and one line, naming what was wrong and what was expected.
///
/// A [`LeasedGenerator`](crate::LeasedGenerator) is a snowmint
/// [`MarkedGenerator`](snowmint::mark::MarkedGenerator), whose methods return
/// [`snowmint::Error`]: the lease's refusals come as [`snowmint::Error::MarkStore`] with this
/// error as the source. [`Error::from`] (or `?` in a function returning this crate's
/// [`Result`]) takes it out again, and keeps every other snowmint error as
/// [`Error::Snowmint`].
///
/// # Examples
///
/// ```
/// use snowmint_etcd::{EtcdConfig, EtcdLease, Error};
///
/// let err = EtcdLease::claim(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 5..=4))
///     .unwrap_err();
/// assert!(matches!(err, Error::InvalidLeaseConfig { .. }));
/// assert_eq!(
///     err.to_string(),
///     "invalid etcd lease configuration: node range 5..=4 is empty; expected a range like 0..=31"
/// );
/// assert!(!err.is_retryable());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A lease configuration ([`EtcdConfig`](crate::EtcdConfig)) is inconsistent, or a
    /// generator does not fit the lease it is wrapped with.
    #[error("invalid etcd lease configuration: {reason}")]
    InvalidLeaseConfig {
        /// What is wrong, and what was expected.
        reason: String,
    },

    /// An etcd request failed, timed out, or got an answer other than expected.
    #[error("etcd {operation} at {endpoints} failed: {reason}")]
    Etcd {
        /// What was asked: `connect`, `lease grant`, `claim`, `renewal`, `release`, ...
        operation: &'static str,
        /// The endpoints, comma separated.
        endpoints: String,
        /// What went wrong.
        reason: String,
    },

    /// Every node ID of a lease's range is held by a live lease.
    #[error(
        "every node id in {range:?} under etcd prefix {prefix:?} is held by a live lease; \
         expected a free one (wait for a holder to stop or its lease to expire, or widen the range)"
    )]
    NodeRangeFull {
        /// The key prefix.
        prefix: String,
        /// The node IDs tried.
        range: RangeInclusive<u64>,
    },

    /// Fencing: no renewal of the etcd lease was confirmed in time, so the lease may have
    /// expired and another generator may hold the node ID. Minting resumes after a renewal.
    #[error(
        "etcd lease on {key} is not known to be live: no renewal was confirmed within its ttl of \
         {ttl_ms} ms less the {margin_ms} ms margin (the deadline passed {overdue_ms} ms ago); \
         minting resumes once a renewal succeeds"
    )]
    LeaseExpired {
        /// The node ID's key.
        key: String,
        /// The lease's time to live, in milliseconds.
        ttl_ms: u64,
        /// The safety margin taken off it, in milliseconds.
        margin_ms: u64,
        /// How long ago the deadline passed, in milliseconds.
        overdue_ms: u64,
    },

    /// The etcd key of a leased node ID is gone or held by another lease: the generator stops
    /// for good.
    #[error(
        "etcd key {key} is no longer held by this generator's lease: {reason}; it mints no more"
    )]
    LeaseLost {
        /// The node ID's key.
        key: String,
        /// What was found instead.
        reason: String,
    },

    /// An ID's time reached the mark recorded in etcd: no ID at or above it may be
    /// returned until a renewal raises the mark.
    #[error(
        "id time {time_ms} ms reached the mark {mark_ms} ms recorded at etcd key \
         {key}; minting resumes once a renewal raises the mark"
    )]
    MarkReached {
        /// The mark's key.
        key: String,
        /// The ID's time, in Unix milliseconds.
        time_ms: u64,
        /// The mark, in Unix milliseconds.
        mark_ms: u64,
    },

    /// A claimed node ID was handed back at once: the generator's clock reads behind the node
    /// ID's mark by more than its [`ClockBehind`](snowmint::ClockBehind) policy waits, so it
    /// could mint nothing there, and holding the node ID would keep every other process off
    /// it. Claim again once the clock has caught up (after `behind_ms`), or give the generator
    /// a policy that waits that long.
    #[error(
        "the generator's clock reads {behind_ms} ms behind the mark {mark_ms} ms of {key}, more          than its clock-behind policy waits ({max_ms} ms): the node id was handed back; expected          a clock within {max_ms} ms of the mark (claim again once it has caught up)"
    )]
    ClockBehindMark {
        /// The node ID's key.
        key: String,
        /// The mark found at claim time, in Unix milliseconds.
        mark_ms: u64,
        /// How far the generator's clock read behind it, in milliseconds.
        behind_ms: u64,
        /// The longest the generator's policy waits, in milliseconds.
        max_ms: u64,
    },

    /// A call into snowmint failed: building or minting ([`snowmint::Error::ClockBehind`],
    /// ...), or the lease used in a forked child ([`snowmint::Error::Forked`]).
    #[error(transparent)]
    Snowmint(snowmint::Error),
}

/// `Result` with this crate's [`Error`] as the default error type.
///
/// # Examples
///
/// ```
/// use snowmint_etcd::{EtcdConfig, Result};
///
/// fn nodes(config: &EtcdConfig) -> Result<u64> {
///     Ok(config.nodes().count() as u64)
/// }
///
/// assert_eq!(nodes(&EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31))?, 32);
/// # Ok::<(), snowmint_etcd::Error>(())
/// ```
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// The store name the lease's errors carry in [`snowmint::Error::MarkStore`].
const STORE: &str = "etcd";

impl Error {
    /// The lease's error inside `error`, a [`snowmint::Error::MarkStore`] a
    /// [`LeasedGenerator`](crate::LeasedGenerator) returned; `None` for any other error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::Error;
    ///
    /// let lost = Error::LeaseLost { key: "/p/node/3".into(), reason: "it is gone".into() };
    /// let minted: snowmint::Error = lost.clone().into(); // as a leased generator returns it
    /// assert_eq!(minted.to_string(), "mark store etcd: the lease is lost");
    /// assert_eq!(Error::of(&minted), Some(&lost));
    /// assert_eq!(Error::of(&snowmint::Error::EpochRequired { layout: "x" }), None);
    /// ```
    pub fn of(error: &snowmint::Error) -> Option<&Error> {
        match error {
            snowmint::Error::MarkStore {
                store,
                source: Some(source),
                ..
            } if store == STORE => source.get().downcast_ref::<Error>(),
            _ => None,
        }
    }

    /// Whether the same call can succeed later without any change by the caller: a lease not
    /// yet renewed, a mark not yet raised, a busy node range, a node ID handed back until the
    /// clock catches up, an etcd request that failed, and snowmint's retryable errors ([`snowmint::Error::is_retryable`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::Error;
    ///
    /// let full = Error::NodeRangeFull { prefix: "/p/".into(), range: 0..=3 };
    /// assert!(full.is_retryable());
    /// let lost = Error::LeaseLost { key: "/p/node/3".into(), reason: "it is gone".into() };
    /// assert!(!lost.is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::LeaseExpired { .. }
            | Error::MarkReached { .. }
            | Error::NodeRangeFull { .. }
            | Error::ClockBehindMark { .. }
            | Error::Etcd { .. } => true,
            Error::Snowmint(error) => error.is_retryable(),
            _ => false,
        }
    }
}

impl From<snowmint::Error> for Error {
    /// The lease's own error when `error` carries one ([`Error::of`]); else
    /// [`Error::Snowmint`].
    fn from(error: snowmint::Error) -> Self {
        match Error::of(&error) {
            Some(lease) => lease.clone(),
            None => Error::Snowmint(error),
        }
    }
}

impl From<Error> for snowmint::Error {
    /// How a leased generator returns the lease's errors: [`snowmint::Error::MarkStore`] for
    /// the store `etcd`, with a short reason and the error, whose message has the detail, as
    /// its source; a wrapped snowmint error as it is.
    #[cold]
    fn from(error: Error) -> Self {
        let reason = match error {
            Error::Snowmint(error) => return error,
            Error::InvalidLeaseConfig { .. } => "the generator does not fit the lease",
            Error::Etcd { .. } => "a request to etcd failed",
            Error::NodeRangeFull { .. } => "no node id is free",
            Error::LeaseExpired { .. } => "the lease is not known to be live",
            Error::LeaseLost { .. } => "the lease is lost",
            Error::MarkReached { .. } => "the id reached the mark",
            Error::ClockBehindMark { .. } => {
                "the clock is behind the mark: the node id was handed back"
            }
        };
        snowmint::Error::mark_store(STORE, reason, Some(Box::new(error)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snowmint_error_round_trips_as_itself() {
        let clock = snowmint::Error::EpochRequired { layout: "x" };
        let wrapped = Error::from(clock.clone());
        assert_eq!(wrapped, Error::Snowmint(clock.clone()));
        assert_eq!(snowmint::Error::from(wrapped), clock);
    }
}
