//! What the keeper hands its lease: the claimed node ID, and where it reads the next time to
//! cover.

use std::sync::Arc;
use std::time::Duration;

use crate::fence::Fence;

/// Where the renewal task reads the lowest time the generator could mint next, in Unix
/// milliseconds; the mark it writes is that plus the TTL.
pub(crate) type NextTime = Box<dyn Fn() -> u64 + Send>;

/// A claimed node ID.
#[derive(Debug)]
pub(crate) struct Claim {
    pub(crate) node: u64,
    /// The mark found at claim time, if the node ID had one.
    pub(crate) mark: Option<u64>,
    pub(crate) fence: Arc<Fence>,
    /// The lease's time to live as the server granted it, which may differ from the one
    /// asked for.
    pub(crate) ttl: Duration,
}
