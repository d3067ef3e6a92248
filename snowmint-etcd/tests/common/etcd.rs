//! The etcd the lease tests talk to: its endpoints from `ETCD_ENDPOINTS` (`.ci/check` starts
//! one and sets it; without it a test says it is skipped and passes), a key prefix per test,
//! the tests' lease configuration and a bounded retry. `snowmint-cli`'s `--etcd` tests share it.

use std::thread;
use std::time::{Duration, Instant};

use snowmint_etcd::EtcdConfig;

use super::files::unique_suffix;

/// The tests' lease time to live: short, so an expiry is seconds away.
pub const TTL: Duration = Duration::from_secs(2);

/// The shared etcd's endpoints, or `None` (and a message) when the test is skipped.
pub fn endpoints(test: &str) -> Option<String> {
    match std::env::var("ETCD_ENDPOINTS") {
        Ok(endpoints) if !endpoints.trim().is_empty() => Some(endpoints),
        _ => {
            eprintln!(
                "skipped {test}: ETCD_ENDPOINTS is not set, so there is no etcd to test against \
                 (.ci/check starts one and sets it; or run etcd and set it to its client URL)"
            );
            None
        }
    }
}

/// A key prefix no other test or run uses.
pub fn prefix(test: &str) -> String {
    format!("/snowmint-test/{test}-{}/", unique_suffix())
}

/// The lease configuration of the tests: `nodes` under `prefix`, [`TTL`], 3 s per request.
pub fn config(endpoints: &str, prefix: &str, nodes: std::ops::RangeInclusive<u64>) -> EtcdConfig {
    EtcdConfig::new(endpoints.split(','), prefix, nodes)
        .ttl(TTL)
        .request_timeout(Duration::from_secs(3))
}

/// Retries `attempt` every 50 ms until it returns `Some`, for at most `limit`.
pub fn within<T>(limit: Duration, mut attempt: impl FnMut() -> Option<T>) -> Option<(T, Duration)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(value) = attempt() {
            return Some((value, start.elapsed()));
        }
        thread::sleep(Duration::from_millis(50));
    }
    None
}
