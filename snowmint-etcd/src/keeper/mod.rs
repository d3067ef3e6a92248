//! The thread that talks to etcd: it claims a node ID, renews the lease and raises the
//! mark in the background, and releases both on request.
//!
//! The thread runs its own single-threaded tokio runtime, so callers need none, and the
//! crate's API stays blocking. Every request is bounded by a timeout: a frozen server stalls
//! a renewal, never the thread.
//!
//! # Renewals
//!
//! A renewal is due `renew_every` after the send of the last confirmed one (the deadline runs
//! from that send), not after the previous attempt ended. An attempt is a keep-alive and the
//! guarded mark write, sent together on one endpoint's own connection
//! ([`renewal`](self::renewal)); it is confirmed when both are answered. The first attempt of
//! a round goes to the endpoint that confirmed last; one not answered within half the
//! interval is followed by another on the next endpoint, without cancelling it, and the first
//! confirmation closes the round. A failed attempt is followed at once by one on the next
//! endpoint (a backoff doubling from `FIRST_BACKOFF` once every endpoint failed in a row), and
//! its endpoint connects anew. An attempt waits up to `ttl - margin` for its answer: later, it
//! could not move the deadline.
//!
//! # When the deadline passes, and when the key is gone
//!
//! Past the deadline, attempts are probes (the guarded transaction, no keep-alive, no write)
//! until one is answered within `ttl - margin - renew_every`, the round trip a renewal needs;
//! then a full renewal follows. A holder that cannot renew in time therefore stops keeping its
//! lease alive, and etcd frees its node ID a TTL after the last keep-alive it received.
//!
//! When etcd says the lease expired, or the node key is gone, the fence stops admitting IDs at
//! once, and the node ID is taken again with a fresh lease ([`take`](self::take)) if its node
//! key is free and its claim key is still the one this holder's claim wrote: nobody claimed
//! it since, so every ID minted on it since is this holder's, and the generator goes on above
//! them. A node key held by another lease, or a claim key moved, stops the generator for good.
//!
//! # The mark only goes up
//!
//! A timed-out request may still reach etcd later, after a newer one: a late write must not
//! replace a newer mark. Every mark write is a compare-and-swap on the mark key's own mod
//! revision, the one this holder last wrote or read, in the same transaction as the node key's
//! guard. A late write compares against a revision that a later write moved, and changes
//! nothing; a write that loses the compare re-reads the mark and its revision and counts as a
//! failed attempt (retried at once), never as confirmed. The fence's mark moves only by a
//! write etcd acknowledged, and a raise writes at least the value it read. The stored format
//! is unchanged (decimal Unix milliseconds), so marks written by earlier versions are read and
//! guarded as they are. A value compare (`value < new` on zero-padded digits) would have
//! needed a new format and would refuse the release's deliberate lowering; the revision compare
//! needs neither, and also catches any write by anyone else.

// The thread's loop (`task`) over what it keeps (`state`); one attempt (`renewal`) and what
// its answer does (`answers`); taking a node ID (`take`); a client per endpoint (`endpoints`).
mod answers;
mod endpoints;
mod renewal;
mod state;
mod take;
mod task;

use std::sync::mpsc as std_mpsc;
use std::thread;
use std::time::Duration;

use tokio::sync::mpsc;

use snowmint::mark::ForkCheck;

use crate::claim::{Claim, NextTime};
use crate::config::EtcdConfig;
use crate::error::{Error, Result};
use task::{Request, Task};

/// The owner's handle on the thread.
#[derive(Debug)]
pub(crate) struct Keeper {
    requests: mpsc::UnboundedSender<Request>,
    /// The process the thread runs in: a request from a forked child, which has no copy of
    /// the thread, fails at once ([`snowmint::Error::Forked`]).
    home: ForkCheck,
    /// How long a release may take: the thread bounds each request by this.
    request_timeout: Duration,
    endpoints: String,
}

impl Keeper {
    /// Starts the thread, claims a node ID and starts renewing its lease.
    pub(crate) fn claim(config: &EtcdConfig) -> Result<(Keeper, Claim)> {
        let ttl_secs = config.check()?;
        let (requests, inbox) = mpsc::unbounded_channel();
        let (claimed, claim) = std_mpsc::channel();
        let task = Task::new(config, ttl_secs);
        let endpoints = config.endpoint_list();
        // Fork: the child of a `fork()` has no copy of this thread; the leased generator it
        // serves refuses to mint there, and every request from the child fails at once with
        // `Error::Forked` (see `send`), so dropping the child's copy releases nothing.
        let home = ForkCheck::new();
        thread::Builder::new()
            .name("snowmint-etcd".into())
            .spawn(move || task.run(inbox, claimed))
            .map_err(|err| Error::Etcd {
                operation: "claim",
                endpoints: endpoints.clone(),
                reason: format!("cannot start the lease thread: {err}"),
            })?;
        let claim = claim
            .recv()
            .map_err(|_| thread_gone("claim", &endpoints))??;
        Ok((
            Keeper {
                requests,
                home,
                request_timeout: config.request_timeout_duration(),
                endpoints,
            },
            claim,
        ))
    }

    /// Has the thread raise the mark with `next_time` from now on, and raise it once now.
    pub(crate) fn attach(&self, next_time: NextTime) -> Result<()> {
        let (reply, answer) = std_mpsc::channel();
        self.send(Request::Attach { next_time, reply }, "renewal")?;
        self.wait(&answer, "renewal")
    }

    /// Has the thread write `final_mark`, revoke the lease and stop.
    pub(crate) fn release(&self, final_mark: Option<u64>) -> Result<()> {
        let (reply, answer) = std_mpsc::channel();
        self.send(Request::Release { final_mark, reply }, "release")?;
        self.wait(&answer, "release")
    }

    fn send(&self, request: Request, operation: &'static str) -> Result<()> {
        // In a forked child the lease is the parent's, and its thread is not in this process.
        self.home.check("EtcdLease").map_err(Error::Snowmint)?;
        self.requests
            .send(request)
            .map_err(|_| thread_gone(operation, &self.endpoints))
    }

    /// Waits for the thread's answer: at most two requests' time (the thread bounds each).
    fn wait(&self, answer: &std_mpsc::Receiver<Result<()>>, operation: &'static str) -> Result<()> {
        let limit = self
            .request_timeout
            .saturating_mul(2)
            .saturating_add(Duration::from_secs(1));
        answer
            .recv_timeout(limit)
            .map_err(|_| thread_gone(operation, &self.endpoints))?
    }
}

fn thread_gone(operation: &'static str, endpoints: &str) -> Error {
    Error::Etcd {
        operation,
        endpoints: endpoints.to_owned(),
        reason: "the lease thread did not answer in time".into(),
    }
}
