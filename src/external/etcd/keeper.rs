//! The thread that talks to etcd: it claims a node ID, renews the lease and raises the
//! high-water mark in the background, and releases both on request.
//!
//! The thread runs its own single-threaded tokio runtime, so callers need none, and the
//! library's API stays blocking. Every request is bounded by a timeout: a frozen server stalls
//! a renewal, never the thread.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, mpsc as std_mpsc};
use std::thread;
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, ConnectOptions, GetOptions, PutOptions, Txn, TxnOp};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until, timeout};

use super::config::EtcdConfig;
use super::fence::{Fence, boottime_ns};
use crate::error::{Error, Result};

/// Where the renewal task reads the lowest time the generator could mint next, in Unix
/// milliseconds; the mark it writes is that plus the TTL.
pub(crate) type NextTime = Box<dyn Fn() -> u64 + Send>;

/// What the lease's owner asks of the thread.
enum Request {
    /// Raise the mark from now on with `next_time`; answers once a first renewal raised it.
    Attach {
        next_time: NextTime,
        reply: std_mpsc::Sender<Result<()>>,
    },
    /// Write `final_mark` (if any), revoke the lease and stop.
    Release {
        final_mark: Option<u64>,
        reply: std_mpsc::Sender<Result<()>>,
    },
}

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

/// The owner's handle on the thread.
#[derive(Debug)]
pub(crate) struct Keeper {
    requests: mpsc::UnboundedSender<Request>,
    /// How long a release may take: the thread bounds each request by this.
    request_timeout: Duration,
    endpoints: String,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Request::Attach { .. } => "Attach",
            Request::Release { .. } => "Release",
        })
    }
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
        // serves refuses to mint there (`Error::Forked`), and a request from the child gets
        // no answer within its timeout and fails.
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
        self.requests
            .send(request)
            .map_err(|_| thread_gone(operation, &self.endpoints))
    }

    /// Waits for the thread's answer: at most two requests' time (the thread bounds each).
    fn wait(&self, answer: &std_mpsc::Receiver<Result<()>>, operation: &'static str) -> Result<()> {
        answer
            .recv_timeout(self.request_timeout * 2 + Duration::from_secs(1))
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

/// What the thread keeps.
struct Task {
    config: EtcdConfig,
    /// The time to live asked for; the server may grant another.
    ttl_secs: i64,
    renew_every: Duration,
    request_timeout: Duration,
}

/// A held lease, once claimed.
struct Held {
    client: Client,
    lease: i64,
    /// The revision that created the node key: the key is still ours while its last
    /// modification is that one (any later put or delete, by anyone, moves it).
    revision: i64,
    fence: Arc<Fence>,
    /// The granted time to live, in milliseconds: how far past the next time a mark reaches.
    ttl_ms: u64,
    next_time: Option<NextTime>,
}

/// How a renewal failed.
enum Failure {
    /// The key or the lease is gone: stop for good.
    Lost(String),
    /// A timeout or a transport error: try again.
    Retry(Error),
}

impl Task {
    fn new(config: &EtcdConfig, ttl_secs: i64) -> Self {
        Task {
            config: config.clone(),
            ttl_secs,
            renew_every: config.renewal_interval(),
            request_timeout: config.request_timeout_duration(),
        }
    }

    fn run(
        self,
        inbox: mpsc::UnboundedReceiver<Request>,
        claimed: std_mpsc::Sender<Result<Claim>>,
    ) {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(err) => {
                let _ = claimed.send(Err(self.error("claim", format!("no runtime: {err}"))));
                return;
            }
        };
        runtime.block_on(async move {
            let held = match self.claim().await {
                Ok(held) => held,
                Err(err) => {
                    let _ = claimed.send(Err(err));
                    return;
                }
            };
            let claim = Claim {
                node: held.0,
                mark: held.1,
                fence: Arc::clone(&held.2.fence),
                ttl: Duration::from_millis(held.2.ttl_ms),
            };
            if claimed.send(Ok(claim)).is_err() {
                // The claimant is gone: give the node ID back at once.
                let mut held = held.2;
                let _ = self.release(&mut held, None).await;
                return;
            }
            self.keep(held.2, inbox).await;
        });
    }

    fn error(&self, operation: &'static str, reason: impl std::fmt::Display) -> Error {
        Error::Etcd {
            operation,
            endpoints: self.config.endpoint_list(),
            reason: reason.to_string(),
        }
    }

    /// Runs `request` for at most `limit`.
    async fn bounded<T, E: std::fmt::Display>(
        &self,
        operation: &'static str,
        limit: Duration,
        request: impl Future<Output = Result<T, E>>,
    ) -> Result<T> {
        match timeout(limit, request).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(err)) => Err(self.error(operation, err)),
            Err(_) => Err(self.error(operation, format_args!("no answer within {limit:?}"))),
        }
    }

    /// Grants a lease and claims the lowest free node ID with it: the node ID, the mark found,
    /// and the held lease.
    async fn claim(&self) -> Result<(u64, Option<u64>, Held)> {
        let limit = self.request_timeout;
        let options = ConnectOptions::new().with_connect_timeout(limit);
        let mut client = self
            .bounded(
                "connect",
                limit,
                Client::connect(self.config.endpoints(), Some(options)),
            )
            .await?;
        let sent_ns = boottime_ns();
        let grant = self
            .bounded(
                "lease grant",
                limit,
                client.lease_grant(self.ttl_secs, None),
            )
            .await?;
        let lease = grant.id();
        let margin_ns = u64::try_from(self.config.margin_duration().as_nanos()).unwrap_or(u64::MAX);
        // The deadline and the marks follow the lease the server granted, not the one asked
        // for: a shorter grant asked for as longer would let minting outlive the lease.
        let ttl_ms = match granted_ttl_ms(grant.ttl(), self.ttl_secs, margin_ns) {
            Ok(ttl_ms) => ttl_ms,
            Err(reason) => {
                let _ = timeout(limit, client.lease_revoke(lease)).await;
                return Err(self.error("lease grant", reason));
            }
        };
        match self.take_lowest_free(&mut client, lease).await {
            Ok(Some((node, revision, mark))) => {
                let fence = Arc::new(Fence::new(
                    self.config.node_key(node),
                    self.config.mark_key(node),
                    ttl_ms * 1_000_000,
                    margin_ns,
                    sent_ns,
                    mark.unwrap_or(0),
                ));
                let held = Held {
                    client,
                    lease,
                    revision,
                    fence,
                    ttl_ms,
                    next_time: None,
                };
                Ok((node, mark, held))
            }
            Ok(None) => {
                let _ = timeout(limit, client.lease_revoke(lease)).await;
                Err(Error::NodeRangeFull {
                    prefix: self.config.prefix().to_owned(),
                    range: self.config.nodes(),
                })
            }
            Err(err) => {
                let _ = timeout(limit, client.lease_revoke(lease)).await;
                Err(err)
            }
        }
    }

    /// Puts the key of the lowest node ID not held, in a transaction that succeeds only if the
    /// key does not exist, and reads its mark in the same transaction: the node ID, the key's
    /// creating revision and the mark, or `None` when every node ID is held.
    ///
    /// A node ID whose mark does not parse is skipped: nothing says how far its IDs went, so
    /// it is not safe to mint on, and its key is given back. When no other node ID is free,
    /// the error names the first such mark.
    async fn take_lowest_free(
        &self,
        client: &mut Client,
        lease: i64,
    ) -> Result<Option<(u64, i64, Option<u64>)>> {
        let limit = self.request_timeout;
        let prefix = self.config.node_prefix();
        let listed = self
            .bounded(
                "claim",
                limit,
                client.get(
                    prefix.as_bytes(),
                    Some(GetOptions::new().with_prefix().with_keys_only()),
                ),
            )
            .await?;
        let held: HashSet<u64> = listed
            .kvs()
            .iter()
            .filter_map(|kv| {
                std::str::from_utf8(kv.key())
                    .ok()?
                    .strip_prefix(&prefix)?
                    .parse()
                    .ok()
            })
            .collect();
        let holder = format!("snowmint pid {} lease {lease:x}", std::process::id());
        let mut unreadable = None;
        for node in self.config.nodes().filter(|node| !held.contains(node)) {
            let key = self.config.node_key(node);
            let txn = Txn::new()
                .when([Compare::create_revision(key.as_str(), CompareOp::Equal, 0)])
                .and_then([
                    TxnOp::put(
                        key.as_str(),
                        holder.as_str(),
                        Some(PutOptions::new().with_lease(lease)),
                    ),
                    TxnOp::get(self.config.mark_key(node), None),
                ]);
            let answer = self.bounded("claim", limit, client.txn(txn)).await?;
            if !answer.succeeded() {
                continue; // taken meanwhile: try the next one
            }
            let revision = answer.header().map_or(0, |header| header.revision());
            let mark = match answer.op_responses().get(1) {
                Some(etcd_client::TxnOpResponse::Get(get)) => match get.kvs().first() {
                    Some(kv) => match parse_mark(kv.value()) {
                        Ok(mark) => Some(mark),
                        Err(reason) => {
                            self.give_back(client, &key, revision).await;
                            unreadable.get_or_insert_with(|| {
                                format!("{}: {reason}", self.config.mark_key(node))
                            });
                            continue;
                        }
                    },
                    None => None,
                },
                _ => return Err(self.error("claim", "the transaction's read is missing")),
            };
            return Ok(Some((node, revision, mark)));
        }
        match unreadable {
            Some(mark) => Err(self.error(
                "claim",
                format_args!(
                    "no node id in {:?} is free with a readable mark; {mark} (skipped: repair \
                     or delete that mark, once no generator uses the node id)",
                    self.config.nodes()
                ),
            )),
            None => Ok(None),
        }
    }

    /// Deletes the node key this claim just put (at `revision`), if it is still that one. A
    /// key left behind by a failed request stays on the claim's lease, and goes with it.
    async fn give_back(&self, client: &mut Client, key: &str, revision: i64) {
        let txn = Txn::new()
            .when([Compare::mod_revision(key, CompareOp::Equal, revision)])
            .and_then([TxnOp::delete(key, None)]);
        let _ = timeout(self.request_timeout, client.txn(txn)).await;
    }

    /// Renews at every interval (sooner when the fence asks) until released.
    async fn keep(&self, mut held: Held, mut inbox: mpsc::UnboundedReceiver<Request>) {
        let mut next = Instant::now() + self.renew_every;
        loop {
            tokio::select! {
                () = sleep_until(next) => {}
                () = held.fence.nudge.notified() => {}
                request = inbox.recv() => match request {
                    Some(Request::Attach { next_time, reply }) => {
                        held.next_time = Some(next_time);
                        let _ = reply.send(self.renew(&mut held).await);
                        next = Instant::now() + self.renew_every;
                        continue;
                    }
                    Some(Request::Release { final_mark, reply }) => {
                        let _ = reply.send(self.release(&mut held, final_mark).await);
                        return;
                    }
                    None => {
                        let _ = self.release(&mut held, None).await;
                        return;
                    }
                },
            }
            if held.fence.stop_reason().is_none() {
                let _ = self.renew(&mut held).await;
            }
            next = Instant::now() + self.renew_every;
        }
    }

    /// One renewal: keep the lease alive, then, in a transaction guarded by the key's mod
    /// revision, raise the mark. The fence moves only once both are confirmed.
    async fn renew(&self, held: &mut Held) -> Result<()> {
        if let Some(reason) = held.fence.stop_reason() {
            return Err(Error::LeaseLost {
                key: held.fence.key.clone(),
                reason,
            });
        }
        let sent_ns = boottime_ns();
        let mark = held.next_time.as_ref().map(|next_time| {
            next_time()
                .saturating_add(held.ttl_ms)
                .max(held.fence.mark())
        });
        match timeout(self.renew_every, self.renew_once(held, mark)).await {
            Ok(Ok(())) => {
                if let Some(mark) = mark {
                    held.fence.raise(mark);
                }
                held.fence.renewed(sent_ns);
                Ok(())
            }
            Ok(Err(Failure::Lost(reason))) => {
                crate::trace::event!(
                    error,
                    key = held.fence.key.as_str(),
                    reason = reason.as_str(),
                    "lost a node id's lease: minting under it stops"
                );
                held.fence.stop(reason.clone());
                Err(Error::LeaseLost {
                    key: held.fence.key.clone(),
                    reason,
                })
            }
            Ok(Err(Failure::Retry(err))) => Err(err),
            Err(_) => Err(self.error(
                "renewal",
                format_args!("no answer within {:?}", self.renew_every),
            )),
        }
    }

    async fn renew_once(&self, held: &mut Held, mark: Option<u64>) -> Result<(), Failure> {
        // A fresh keep-alive stream per renewal: its first answer is for this request, never a
        // late one for an earlier request that timed out.
        match held.client.lease_keep_alive(held.lease).await {
            Ok(_) => {}
            Err(etcd_client::Error::LeaseKeepAliveError(reason))
                if reason.contains("not found") =>
            {
                return Err(Failure::Lost(format!(
                    "its lease {:x} expired on the server",
                    held.lease
                )));
            }
            Err(err) => return Err(Failure::Retry(self.error("renewal", err))),
        }
        let writes = mark
            .map(|mark| TxnOp::put(held.fence.mark_key.as_str(), mark.to_string(), None))
            .into_iter()
            .collect::<Vec<_>>();
        self.guarded(held, writes).await
    }

    /// Runs `writes` in a transaction that succeeds only while the node key is the one this
    /// lease created, unmodified since: its mod revision is the claim's revision.
    async fn guarded(&self, held: &mut Held, writes: Vec<TxnOp>) -> Result<(), Failure> {
        let key = held.fence.key.clone();
        let txn = Txn::new()
            .when([Compare::mod_revision(
                key.as_str(),
                CompareOp::Equal,
                held.revision,
            )])
            .and_then(writes)
            .or_else([TxnOp::get(key.as_str(), None)]);
        let answer = held
            .client
            .txn(txn)
            .await
            .map_err(|err| Failure::Retry(self.error("renewal", err)))?;
        if answer.succeeded() {
            return Ok(());
        }
        let found = match answer.op_responses().first() {
            Some(etcd_client::TxnOpResponse::Get(get)) => get.kvs().first().map(|kv| {
                format!(
                    "it is held by lease {:x}, written at revision {} (this lease is {:x}, \
                     which created it at revision {})",
                    kv.lease(),
                    kv.mod_revision(),
                    held.lease,
                    held.revision
                )
            }),
            _ => None,
        };
        Err(Failure::Lost(found.unwrap_or_else(|| {
            format!(
                "it is gone (its lease {:x} expired or was revoked)",
                held.lease
            )
        })))
    }

    /// Writes `final_mark` (guarded, as a renewal's), revokes the lease, and stops the fence.
    async fn release(&self, held: &mut Held, final_mark: Option<u64>) -> Result<()> {
        let limit = self.request_timeout;
        let mut result = Ok(());
        let lost = held.fence.stop_reason().is_some();
        if !lost {
            if let Some(mark) = final_mark {
                let write = vec![TxnOp::put(
                    held.fence.mark_key.as_str(),
                    mark.to_string(),
                    None,
                )];
                result = match timeout(limit, self.guarded(held, write)).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(Failure::Lost(reason))) => Err(Error::LeaseLost {
                        key: held.fence.key.clone(),
                        reason,
                    }),
                    Ok(Err(Failure::Retry(err))) => Err(err),
                    Err(_) => {
                        Err(self.error("release", format_args!("no answer within {limit:?}")))
                    }
                };
            }
        }
        held.fence.stop("it was released".into());
        let revoked = self
            .bounded("release", limit, held.client.lease_revoke(held.lease))
            .await;
        if lost {
            // The lease is already gone on the server: revoking it can only fail.
            return result;
        }
        result.and(revoked.map(drop))
    }
}

/// A mark's value: decimal Unix milliseconds.
fn parse_mark(value: &[u8]) -> Result<u64, String> {
    std::str::from_utf8(value)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "holds {:?}, expected a Unix-millisecond mark",
                crate::error::bounded(&String::from_utf8_lossy(value))
            )
        })
}

/// The granted time to live in milliseconds, checked: positive, and longer than the margin
/// taken off it (as the configuration's is checked).
fn granted_ttl_ms(granted_secs: i64, asked_secs: i64, margin_ns: u64) -> Result<u64, String> {
    let ttl_ms = u64::try_from(granted_secs)
        .ok()
        .filter(|&secs| secs > 0)
        .and_then(|secs| secs.checked_mul(1_000))
        .ok_or_else(|| {
            format!("the server granted a ttl of {granted_secs} s (asked for {asked_secs} s)")
        })?;
    if u128::from(ttl_ms) * 1_000_000 <= u128::from(margin_ns) {
        return Err(format!(
            "the server granted a ttl of {granted_secs} s (asked for {asked_secs} s), not more \
             than the margin of {:?}; expected a longer lease, or a smaller margin",
            Duration::from_nanos(margin_ns)
        ));
    }
    Ok(ttl_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_granted_ttl_is_checked_against_the_margin() {
        assert_eq!(granted_ttl_ms(5, 3, 1_000_000_000), Ok(5_000));
        let short = granted_ttl_ms(1, 3, 1_000_000_000).unwrap_err();
        assert_eq!(
            short,
            "the server granted a ttl of 1 s (asked for 3 s), not more than the margin of 1s; \
             expected a longer lease, or a smaller margin"
        );
        assert!(granted_ttl_ms(0, 3, 0).is_err());
        assert!(granted_ttl_ms(-1, 3, 0).is_err());
        assert!(granted_ttl_ms(i64::MAX, 3, 0).is_err());
    }

    #[test]
    fn an_unreadable_mark_is_echoed_bounded() {
        let reason = parse_mark("9".repeat(10_000).as_bytes()).unwrap_err();
        assert!(reason.len() < 200, "{reason}");
    }

    #[test]
    fn marks_are_decimal_milliseconds() {
        assert_eq!(parse_mark(b"1700000000000"), Ok(1_700_000_000_000));
        assert!(parse_mark(b"-1").unwrap_err().contains("\"-1\""));
        assert!(parse_mark(b"").is_err());
        assert!(parse_mark(&[0xff]).is_err());
    }
}
