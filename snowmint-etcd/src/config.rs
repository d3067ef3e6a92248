//! Where to lease node IDs from, and for how long.

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::error::{Error, Result};

/// Where [`EtcdLease::claim`](crate::EtcdLease::claim) leases a node ID: the endpoints, the
/// key prefix, the range of node IDs, and the lease's timing.
///
/// Setters record values; `claim` checks them all once.
///
/// # Timing
///
/// - `ttl` (default 10 s, whole seconds): the etcd lease's time to live. A holder that stops
///   renewing (killed, partitioned) frees its node ID about `ttl` later.
/// - `margin` (default a fifth of the TTL, 2 s for the default TTL): taken off the TTL for the local deadline. A generator mints only
///   until `send time of the last confirmed claim or renewal + ttl - margin`, on the boot
///   clock, while etcd keeps the lease until at least `send time + ttl`. The margin absorbs
///   the difference between the two machines' clock rates and the time the last ID takes to
///   reach its user.
/// - `renew_every` (default `(ttl - margin) / 3`): how often the lease is renewed and the
///   mark raised. A renewal is sent `renew_every` after the send of the last confirmed one.
///   Its keep-alive and its mark write travel together, so it takes one round trip. An
///   attempt not answered within half of `renew_every` is sent again to the next endpoint (the
///   earlier one stays in flight: the first confirmation wins), one that fails is retried on
///   the next endpoint at once (quick failures on every endpoint back off, doubling from 5 ms
///   up to half of `renew_every`), and each attempt waits up to `ttl - margin` for its answer.
///   So minting goes on under a steady one-way latency below
///   [`latency_bound`](Self::latency_bound) (`(ttl - margin - renew_every) / 2`: 2.67 s for
///   the default TTL), and while etcd is frozen (its requests wait, then are answered) for
///   less than `ttl - margin - renew_every` (5.3 s for the default TTL), whichever member
///   answers.
/// - `request_timeout` (default 5 s, at most [`MAX_REQUEST_TIMEOUT`](Self::MAX_REQUEST_TIMEOUT)):
///   the longest the claim and the release wait for etcd.
///
/// Every duration is checked by `claim`: a TTL of at most [`MAX_TTL`](Self::MAX_TTL), a
/// renewal interval of at least [`MIN_RENEWAL_INTERVAL`](Self::MIN_RENEWAL_INTERVAL); no value
/// makes the lease's arithmetic overflow.
///
/// # Keys
///
/// Node ID `n` is held by the key `PREFIX` `node/` `n`, attached to the holder's lease (so
/// etcd deletes it when the lease expires), and its mark is kept in `PREFIX`
/// `mark/` `n`, which outlives leases. Each claim also writes `PREFIX` `claim/` `n` (not
/// attached to a lease): a holder whose lease etcd expired takes the node ID again only while
/// that key is still its own claim's. End the prefix with `/`.
///
/// # Examples
///
/// ```
/// use snowmint_etcd::EtcdConfig;
/// use std::time::Duration;
///
/// let config = EtcdConfig::new(["http://10.0.0.5:2379", "http://10.0.0.6:2379"], "/snowmint/orders/", 0..=31)
///     .ttl(Duration::from_secs(6))
///     .margin(Duration::from_millis(1_500));
/// assert_eq!(config.renewal_interval(), Duration::from_millis(1_500));
/// assert_eq!(config.prefix(), "/snowmint/orders/");
/// # Ok::<(), snowmint_etcd::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct EtcdConfig {
    endpoints: Vec<String>,
    prefix: String,
    nodes: RangeInclusive<u64>,
    ttl: Duration,
    margin: Option<Duration>,
    renew_every: Option<Duration>,
    request_timeout: Duration,
}

impl EtcdConfig {
    /// The lease's time to live when [`ttl`](Self::ttl) is not called.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.ttl_duration(), EtcdConfig::DEFAULT_TTL);
    /// ```
    pub const DEFAULT_TTL: Duration = Duration::from_secs(10);
    /// The request timeout when [`request_timeout`](Self::request_timeout) is not called.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.request_timeout_duration(), EtcdConfig::DEFAULT_REQUEST_TIMEOUT);
    /// ```
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
    /// The longest TTL a claim accepts: etcd's own limit (it refuses a longer lease).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// assert_eq!(EtcdConfig::MAX_TTL, Duration::from_secs(9_000_000_000));
    /// ```
    pub const MAX_TTL: Duration = Duration::from_secs(9_000_000_000);
    /// The longest request timeout a claim accepts.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// assert_eq!(EtcdConfig::MAX_REQUEST_TIMEOUT, Duration::from_secs(3_600));
    /// ```
    pub const MAX_REQUEST_TIMEOUT: Duration = Duration::from_secs(3_600);
    /// The shortest renewal interval a claim accepts: each renewal is two requests to etcd
    /// (a keep-alive and a transaction), sent together.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// assert_eq!(EtcdConfig::MIN_RENEWAL_INTERVAL, Duration::from_millis(10));
    /// ```
    pub const MIN_RENEWAL_INTERVAL: Duration = Duration::from_millis(10);

    /// Leases a node ID in `nodes` under `prefix`, from the etcd cluster at `endpoints`
    /// (`http://host:port`, or `host:port`).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!((config.prefix(), config.nodes()), ("/snowmint/", 0..=31));
    /// ```
    pub fn new<E: Into<String>>(
        endpoints: impl IntoIterator<Item = E>,
        prefix: impl Into<String>,
        nodes: RangeInclusive<u64>,
    ) -> Self {
        EtcdConfig {
            endpoints: endpoints.into_iter().map(Into::into).collect(),
            prefix: prefix.into(),
            nodes,
            ttl: Self::DEFAULT_TTL,
            margin: None,
            renew_every: None,
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
        }
    }

    /// Sets the lease's time to live: a whole number of seconds, from 1 to
    /// [`MAX_TTL`](Self::MAX_TTL) (etcd may grant more, never less).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31).ttl(Duration::from_secs(30));
    /// assert_eq!(config.ttl_duration(), Duration::from_secs(30));
    /// assert_eq!(config.margin_duration(), Duration::from_secs(6)); // a fifth
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets the margin taken off the TTL for the local deadline: less than the TTL (by
    /// default a fifth of it).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31).margin(Duration::from_secs(1));
    /// assert_eq!(config.margin_duration(), Duration::from_secs(1));
    /// assert_eq!(config.renewal_interval(), Duration::from_secs(3)); // (10 s - 1 s) / 3
    /// ```
    pub fn margin(mut self, margin: Duration) -> Self {
        self.margin = Some(margin);
        self
    }

    /// Sets how often the lease is renewed: at least
    /// [`MIN_RENEWAL_INTERVAL`](Self::MIN_RENEWAL_INTERVAL) and less than `ttl - margin`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31).renew_every(Duration::from_secs(1));
    /// assert_eq!(config.renewal_interval(), Duration::from_secs(1));
    /// ```
    pub fn renew_every(mut self, interval: Duration) -> Self {
        self.renew_every = Some(interval);
        self
    }

    /// Sets the longest the claim and the release wait for etcd: more than zero and at most
    /// [`MAX_REQUEST_TIMEOUT`](Self::MAX_REQUEST_TIMEOUT).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31).request_timeout(Duration::from_secs(2));
    /// assert_eq!(config.request_timeout_duration(), Duration::from_secs(2));
    /// ```
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The endpoints.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.endpoints(), ["http://127.0.0.1:2379"]);
    /// ```
    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// The key prefix.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.prefix(), "/snowmint/");
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The node IDs a claim chooses from, lowest free first.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.nodes(), 0..=31);
    /// ```
    pub fn nodes(&self) -> RangeInclusive<u64> {
        self.nodes.clone()
    }

    /// The lease's time to live.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.ttl_duration(), Duration::from_secs(10)); // the default
    /// ```
    pub fn ttl_duration(&self) -> Duration {
        self.ttl
    }

    /// The margin taken off the TTL for the local deadline: as set, or a fifth of the TTL.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.margin_duration(), Duration::from_secs(2)); // a fifth of the TTL
    /// ```
    pub fn margin_duration(&self) -> Duration {
        self.margin.unwrap_or(self.ttl / 5)
    }

    /// How often the lease is renewed: as set, or `(ttl - margin) / 3`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.renewal_interval(), Duration::from_nanos(2_666_666_666)); // (10 s - 2 s) / 3
    /// ```
    pub fn renewal_interval(&self) -> Duration {
        self.renew_every
            .unwrap_or_else(|| self.ttl.saturating_sub(self.margin_duration()) / 3)
    }

    /// The longest steady one-way latency to etcd under which minting never stops: half of
    /// `ttl - margin - renew_every` (2.67 s at the defaults).
    ///
    /// A renewal sent at `s` is confirmed one round trip later, and the deadline it confirms
    /// is `s + ttl - margin`. The next renewal is sent at `s + renew_every` and is confirmed
    /// at `s + renew_every + round trip`: before the first deadline exactly when the round
    /// trip is shorter than `ttl - margin - renew_every`. The keep-alive and the mark write of
    /// a renewal travel together, so a round trip is one request's: twice the one-way latency,
    /// plus etcd's own time. A latency above the bound stops minting before each confirmation
    /// (and, once the deadline has passed, the lease is no longer kept alive: see
    /// [`EtcdLease`](crate::EtcdLease)).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.latency_bound(), Duration::from_nanos(2_666_666_667)); // (8 s - 2.67 s) / 2
    /// ```
    pub fn latency_bound(&self) -> Duration {
        let window = self.ttl.saturating_sub(self.margin_duration());
        window.saturating_sub(self.renewal_interval()) / 2
    }

    /// The longest the claim and the release wait for etcd.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint_etcd::EtcdConfig;
    /// use std::time::Duration;
    ///
    /// let config = EtcdConfig::new(["http://127.0.0.1:2379"], "/snowmint/", 0..=31);
    /// assert_eq!(config.request_timeout_duration(), Duration::from_secs(5)); // the default
    /// ```
    pub fn request_timeout_duration(&self) -> Duration {
        self.request_timeout
    }

    /// The key holding node ID `node`.
    pub(crate) fn node_key(&self, node: u64) -> String {
        format!("{}node/{node}", self.prefix)
    }

    /// The key holding node ID `node`'s mark.
    pub(crate) fn mark_key(&self, node: u64) -> String {
        format!("{}mark/{node}", self.prefix)
    }

    /// The key recording who last claimed node ID `node`: written by each claim, never
    /// attached to a lease.
    pub(crate) fn claim_key(&self, node: u64) -> String {
        format!("{}claim/{node}", self.prefix)
    }

    /// The prefix of every node key.
    pub(crate) fn node_prefix(&self) -> String {
        format!("{}node/", self.prefix)
    }

    /// The endpoints, comma separated, for messages.
    pub(crate) fn endpoint_list(&self) -> String {
        snowmint::error::bounded(&self.endpoints.join(","))
    }

    /// Checks the configuration; returns the TTL in whole seconds.
    pub(crate) fn check(&self) -> Result<i64> {
        let invalid = |reason: String| Err(Error::InvalidLeaseConfig { reason });
        if self.endpoints.is_empty() || self.endpoints.iter().any(|e| e.trim().is_empty()) {
            return invalid(format!(
                "endpoints {}: expected one or more, none empty",
                snowmint::error::bounded(&format!("{:?}", self.endpoints))
            ));
        }
        if self.prefix.is_empty() {
            return invalid("the key prefix is empty; expected one like /snowmint/".into());
        }
        if self.nodes.is_empty() {
            return invalid(format!(
                "node range {:?} is empty; expected a range like 0..=31",
                self.nodes
            ));
        }
        let ttl_secs = self.ttl.as_secs();
        if self.ttl.subsec_nanos() != 0 || ttl_secs == 0 || self.ttl > Self::MAX_TTL {
            return invalid(format!(
                "ttl {:?}: expected a whole number of seconds, from 1 to {} (etcd's longest \
                 lease)",
                self.ttl,
                Self::MAX_TTL.as_secs()
            ));
        }
        let margin = self.margin_duration();
        if margin >= self.ttl {
            return invalid(format!(
                "margin {margin:?} is not less than the ttl {:?}",
                self.ttl
            ));
        }
        let window = self.ttl - margin;
        let every = self.renewal_interval();
        if every < Self::MIN_RENEWAL_INTERVAL || every >= window {
            return invalid(format!(
                "renewal interval {every:?}: expected at least {:?} and less than ttl - margin \
                 ({window:?})",
                Self::MIN_RENEWAL_INTERVAL
            ));
        }
        if self.request_timeout.is_zero() || self.request_timeout > Self::MAX_REQUEST_TIMEOUT {
            return invalid(format!(
                "request timeout {:?}: expected more than zero and at most {:?}",
                self.request_timeout,
                Self::MAX_REQUEST_TIMEOUT
            ));
        }
        // At most MAX_TTL, so at most 9e9 s: an i64, and 9e18 ns, a u64.
        Ok(ttl_secs as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> EtcdConfig {
        EtcdConfig::new(["127.0.0.1:2379"], "/p/", 0..=3)
    }

    #[test]
    fn defaults_are_consistent() {
        assert_eq!(config().check(), Ok(10));
        assert_eq!(config().renewal_interval(), Duration::from_secs(8) / 3);
        assert_eq!(config().node_key(3), "/p/node/3");
        assert_eq!(config().mark_key(3), "/p/mark/3");
    }

    #[test]
    fn inconsistent_timing_is_an_error() {
        let err = |c: EtcdConfig| c.check().unwrap_err().to_string();
        assert_eq!(
            err(config().ttl(Duration::from_millis(2_500))),
            "invalid etcd lease configuration: ttl 2.5s: expected a whole number of seconds, \
             from 1 to 9000000000 (etcd's longest lease)"
        );
        assert!(err(config().ttl(Duration::ZERO)).contains("from 1 to"));
        assert!(err(config().margin(Duration::from_secs(10))).contains("not less than the ttl"));
        assert!(err(config().renew_every(Duration::from_secs(8))).contains("less than ttl"));
        assert!(err(config().renew_every(Duration::ZERO)).contains("at least 10ms"));
        assert!(err(config().request_timeout(Duration::ZERO)).contains("timeout"));
    }

    /// Regression: `request_timeout(Duration::MAX)` passed the check, then overflowed the
    /// lease thread's arithmetic. Every duration is bounded at the check.
    #[test]
    fn extreme_durations_are_errors_naming_the_field_and_the_bound() {
        let err = |c: EtcdConfig| c.check().unwrap_err().to_string();
        assert_eq!(
            err(config().request_timeout(Duration::MAX)),
            "invalid etcd lease configuration: request timeout 18446744073709551615.999999999s: \
             expected more than zero and at most 3600s"
        );
        assert!(err(config().ttl(Duration::MAX)).contains("ttl 18446744073709551615.999999999s"));
        let too_long = Duration::from_secs(u64::MAX);
        assert!(err(config().ttl(too_long)).contains("from 1 to 9000000000"));
        assert!(err(config().ttl(EtcdConfig::MAX_TTL + Duration::from_secs(1))).contains("ttl"));
        assert!(err(config().margin(Duration::MAX)).contains("margin"));
        assert!(err(config().renew_every(Duration::MAX)).contains("renewal interval"));
        assert!(err(config().renew_every(Duration::from_nanos(1))).contains("at least 10ms"));
        // The largest values accepted.
        let largest = config()
            .ttl(EtcdConfig::MAX_TTL)
            .request_timeout(EtcdConfig::MAX_REQUEST_TIMEOUT);
        assert_eq!(largest.check(), Ok(9_000_000_000));
    }

    #[test]
    fn empty_inputs_are_errors() {
        let none: [&str; 0] = [];
        assert!(
            EtcdConfig::new(none, "/p/", 0..=3)
                .check()
                .unwrap_err()
                .to_string()
                .contains("endpoints")
        );
        assert!(
            EtcdConfig::new(["e"], "", 0..=3)
                .check()
                .unwrap_err()
                .to_string()
                .contains("prefix")
        );
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 3..=2;
        assert!(
            EtcdConfig::new(["e"], "/p/", empty)
                .check()
                .unwrap_err()
                .to_string()
                .contains("is empty")
        );
    }
}
