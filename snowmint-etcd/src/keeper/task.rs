//! The lease thread's side: the requests it serves and the task that claims, renews, raises the
//! mark and releases (the module above says how).

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, mpsc as std_mpsc};
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, ConnectOptions, GetOptions, PutOptions, Txn, TxnOp};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until, timeout, timeout_at};

use crate::claim::{Claim, NextTime};
use crate::config::EtcdConfig;
use crate::error::{Error, Result};
use crate::fence::{Fence, boottime_ns};

/// What the lease's owner asks of the thread.
pub(super) enum Request {
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

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Request::Attach { .. } => "Attach",
            Request::Release { .. } => "Release",
        })
    }
}

/// What the thread keeps.
pub(super) struct Task {
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
    /// The mark key's mod revision as this holder last wrote or read it (0: no mark key):
    /// every mark write is guarded by it, so a late write never replaces a newer one.
    mark_revision: i64,
    /// The mark's value at `mark_revision` (0 when there is none): a raise writes at least
    /// this.
    mark_seen: u64,
    fence: Arc<Fence>,
    /// The granted time to live, in milliseconds: how far past the next time a mark reaches.
    ttl_ms: u64,
    next_time: Option<NextTime>,
}

/// How a renewal failed.
enum Failure {
    /// The key or the lease is gone: stop for good.
    Lost(String),
    /// A transport error, or a mark write that lost its compare (the mark was re-read): try
    /// again.
    Retry(Error),
}

/// How a renewal attempt went wrong.
enum Missed {
    /// The key or the lease is gone; minting has stopped for good.
    Lost(Error),
    /// No answer within the attempt's limit: retry at once.
    TimedOut(Error),
    /// A quick failure: retry after a backoff.
    Failed(Error),
}

impl Missed {
    fn into_error(self) -> Error {
        match self {
            Missed::Lost(err) | Missed::TimedOut(err) | Missed::Failed(err) => err,
        }
    }
}

/// What a mark write asks for.
#[derive(Clone, Copy)]
enum MarkWrite {
    /// A renewal's raise: at least the mark last seen in etcd.
    Raise(u64),
    /// The release's final mark, which may lower it (nothing is minted after it).
    Final(u64),
}

/// The first backoff after a quick failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(5);

/// `instant + by`, or a day past `instant` if that overflows: no timer needs more.
fn later(instant: Instant, by: Duration) -> Instant {
    instant
        .checked_add(by)
        .or_else(|| instant.checked_add(Duration::from_secs(86_400)))
        .unwrap_or(instant)
}

impl Task {
    pub(super) fn new(config: &EtcdConfig, ttl_secs: i64) -> Self {
        Task {
            config: config.clone(),
            ttl_secs,
            renew_every: config.renewal_interval(),
            request_timeout: config.request_timeout_duration(),
        }
    }

    pub(super) fn run(
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
            Ok(Some((node, revision, mark, mark_revision))) => {
                let fence = Arc::new(Fence::new(
                    self.config.node_key(node),
                    self.config.mark_key(node),
                    ttl_ms.saturating_mul(1_000_000),
                    margin_ns,
                    sent_ns,
                    mark.unwrap_or(0),
                ));
                let held = Held {
                    client,
                    lease,
                    revision,
                    mark_revision,
                    mark_seen: mark.unwrap_or(0),
                    fence,
                    ttl_ms,
                    next_time: None,
                };
                Ok((node, mark, held))
            }
            Ok(None) => {
                let _ = timeout(limit, client.lease_revoke(lease)).await;
                Err(Error::NodeRangeFull {
                    prefix: snowmint::error::bounded(self.config.prefix()),
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
    /// creating revision, the mark and the mark key's mod revision (0 without one), or `None`
    /// when every node ID is held.
    ///
    /// A node ID whose mark does not parse is skipped: nothing says how far its IDs went, so
    /// it is not safe to mint on, and its key is given back. When no other node ID is free,
    /// the error names the first such mark.
    async fn take_lowest_free(
        &self,
        client: &mut Client,
        lease: i64,
    ) -> Result<Option<(u64, i64, Option<u64>, i64)>> {
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
            let (mark, mark_revision) = match answer.op_responses().get(1) {
                Some(etcd_client::TxnOpResponse::Get(get)) => match get.kvs().first() {
                    Some(kv) => match parse_mark(kv.value()) {
                        Ok(mark) => (Some(mark), kv.mod_revision()),
                        Err(reason) => {
                            self.give_back(client, &key, revision).await;
                            unreadable.get_or_insert_with(|| {
                                format!("{}: {reason}", self.config.mark_key(node))
                            });
                            continue;
                        }
                    },
                    None => (None, 0),
                },
                _ => return Err(self.error("claim", "the transaction's read is missing")),
            };
            return Ok(Some((node, revision, mark, mark_revision)));
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

    /// Renews `renew_every` after the send of the last confirmed renewal (sooner when the fence
    /// asks), retries a failed attempt at once, until released.
    async fn keep(&self, mut held: Held, mut inbox: mpsc::UnboundedReceiver<Request>) {
        let mut next = later(Instant::now(), self.renew_every);
        let mut failures = 0u32;
        loop {
            tokio::select! {
                () = sleep_until(next) => {}
                () = held.fence.nudge.notified() => {}
                request = inbox.recv() => match request {
                    Some(Request::Attach { next_time, reply }) => {
                        held.next_time = Some(next_time);
                        let renewed = self.renew_within(&mut held).await;
                        if let Ok(sent) = renewed {
                            (next, failures) = (later(sent, self.renew_every), 0);
                        }
                        let _ = reply.send(renewed.map(drop));
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
            if held.fence.stop_reason().is_some() {
                next = later(Instant::now(), self.renew_every);
                continue;
            }
            next = match self.renew(&mut held).await {
                Ok(sent) => {
                    failures = 0;
                    later(sent, self.renew_every)
                }
                Err(missed) => {
                    failures = failures.saturating_add(1);
                    later(Instant::now(), self.retry_after(&missed, failures))
                }
            };
        }
    }

    /// How long one renewal attempt waits for etcd: half the interval, so that two attempts
    /// in a row may hang and the third still lands within the interval after.
    fn attempt_limit(&self) -> Duration {
        self.renew_every / 2
    }

    /// How long to wait before retrying after the `failures`-th failed attempt in a row: at
    /// once after a timeout (the attempt already waited) and after a first quick failure;
    /// then a backoff doubling from `FIRST_BACKOFF`, at most a quarter of the interval.
    fn retry_after(&self, missed: &Missed, failures: u32) -> Duration {
        match missed {
            Missed::TimedOut(_) => Duration::ZERO,
            _ if failures <= 1 => Duration::ZERO,
            _ => FIRST_BACKOFF
                .saturating_mul(1 << (failures - 2).min(16))
                .min(self.renew_every / 4),
        }
    }

    /// Renews until an attempt is confirmed, for at most the request timeout: the first
    /// renewal after an attach. Returns the confirmed attempt's send time.
    async fn renew_within(&self, held: &mut Held) -> Result<Instant> {
        let limit = self.request_timeout;
        let give_up = later(Instant::now(), limit);
        let mut failures = 0u32;
        loop {
            let missed = match timeout_at(give_up, self.renew(held)).await {
                Ok(Ok(sent)) => return Ok(sent),
                Ok(Err(Missed::Lost(err))) => return Err(err),
                Ok(Err(missed)) => missed,
                Err(_) => {
                    return Err(self.error("renewal", format_args!("no answer within {limit:?}")));
                }
            };
            failures = failures.saturating_add(1);
            let wait = self.retry_after(&missed, failures);
            if later(Instant::now(), wait) >= give_up {
                return Err(missed.into_error());
            }
            sleep(wait).await;
        }
    }

    /// One renewal attempt: keep the lease alive, then, in a transaction guarded by the node
    /// key's and the mark key's mod revisions, raise the mark. The fence moves only once both
    /// are confirmed. Returns the attempt's send time.
    async fn renew(&self, held: &mut Held) -> Result<Instant, Missed> {
        if let Some(reason) = held.fence.stop_reason() {
            return Err(Missed::Lost(Error::LeaseLost {
                key: snowmint::error::bounded(&held.fence.key),
                reason,
            }));
        }
        let sent = Instant::now();
        let sent_ns = boottime_ns();
        let mark = held.next_time.as_ref().map(|next_time| {
            MarkWrite::Raise(
                next_time()
                    .saturating_add(held.ttl_ms)
                    .max(held.fence.mark()),
            )
        });
        let limit = self.attempt_limit();
        match timeout(limit, self.renew_once(held, mark)).await {
            Ok(Ok(written)) => {
                if let Some(written) = written {
                    held.fence.raise(written);
                }
                held.fence.renewed(sent_ns);
                Ok(sent)
            }
            Ok(Err(Failure::Lost(reason))) => {
                crate::trace::event!(
                    error,
                    key = held.fence.key.as_str(),
                    reason = reason.as_str(),
                    "lost a node id's lease: minting under it stops"
                );
                held.fence.stop(reason.clone());
                Err(Missed::Lost(Error::LeaseLost {
                    key: snowmint::error::bounded(&held.fence.key),
                    reason,
                }))
            }
            Ok(Err(Failure::Retry(err))) => Err(Missed::Failed(err)),
            Err(_) => Err(Missed::TimedOut(
                self.error("renewal", format_args!("no answer within {limit:?}")),
            )),
        }
    }

    async fn renew_once(
        &self,
        held: &mut Held,
        mark: Option<MarkWrite>,
    ) -> Result<Option<u64>, Failure> {
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
        self.guarded(held, mark).await
    }

    /// Writes `mark` (if any) in a transaction that succeeds only while the node key is the
    /// one this lease created, unmodified since (its mod revision is the claim's), and the
    /// mark key is as this holder last wrote or read it (its mod revision). Returns the mark
    /// written, which etcd acknowledged.
    ///
    /// A write that finds the node key changed is [`Failure::Lost`]; one that finds only the
    /// mark key changed (a late write of this holder's, applied after a newer one was sent)
    /// re-reads the mark and its revision and is [`Failure::Retry`]: nothing was written.
    async fn guarded(
        &self,
        held: &mut Held,
        mark: Option<MarkWrite>,
    ) -> Result<Option<u64>, Failure> {
        let key = held.fence.key.clone();
        let mark_key = held.fence.mark_key.clone();
        let value = mark.map(|mark| match mark {
            MarkWrite::Raise(mark) => mark.max(held.mark_seen),
            MarkWrite::Final(mark) => mark,
        });
        let mut guards = vec![Compare::mod_revision(
            key.as_str(),
            CompareOp::Equal,
            held.revision,
        )];
        let mut writes = Vec::new();
        if let Some(value) = value {
            guards.push(Compare::mod_revision(
                mark_key.as_str(),
                CompareOp::Equal,
                held.mark_revision,
            ));
            writes.push(TxnOp::put(mark_key.as_str(), value.to_string(), None));
        }
        let txn = Txn::new().when(guards).and_then(writes).or_else([
            TxnOp::get(key.as_str(), None),
            TxnOp::get(mark_key.as_str(), None),
        ]);
        let answer = held
            .client
            .txn(txn)
            .await
            .map_err(|err| Failure::Retry(self.error("renewal", err)))?;
        if answer.succeeded() {
            if let Some(value) = value {
                let revision = answer.header().map(|header| header.revision());
                let Some(revision) = revision.filter(|&revision| revision > 0) else {
                    // Unknown revision: the next write loses its compare and re-reads.
                    held.mark_revision = -1;
                    return Err(Failure::Retry(
                        self.error("renewal", "no revision in the answer"),
                    ));
                };
                (held.mark_revision, held.mark_seen) = (revision, value);
            }
            return Ok(value);
        }
        let read = |index: usize| match answer.op_responses().get(index) {
            Some(etcd_client::TxnOpResponse::Get(get)) => Some(get.kvs().first().cloned()),
            _ => None,
        };
        let node = read(0);
        let held_still = matches!(&node, Some(Some(kv)) if kv.mod_revision() == held.revision);
        if held_still {
            let Some(found) = read(1) else {
                return Err(Failure::Retry(
                    self.error("renewal", "the transaction's read is missing"),
                ));
            };
            let (revision, seen) = found.map_or((0, 0), |kv| {
                (kv.mod_revision(), parse_mark(kv.value()).unwrap_or(0))
            });
            let stale = held.mark_revision;
            (held.mark_revision, held.mark_seen) = (revision, seen);
            return Err(Failure::Retry(self.error(
                "renewal",
                format_args!(
                    "{mark_key} moved from revision {stale} to {revision} (a late write of this \
                     holder's): nothing written, the mark re-read"
                ),
            )));
        }
        let found = node.flatten().map(|kv| {
            format!(
                "it is held by lease {:x}, written at revision {} (this lease is {:x}, which \
                 created it at revision {})",
                kv.lease(),
                kv.mod_revision(),
                held.lease,
                held.revision
            )
        });
        Err(Failure::Lost(found.unwrap_or_else(|| {
            format!(
                "it is gone (its lease {:x} expired or was revoked)",
                held.lease
            )
        })))
    }

    /// Writes `final_mark` (guarded, as a renewal's; retried when a late write of this
    /// holder's moved the mark), revokes the lease, and stops the fence.
    async fn release(&self, held: &mut Held, final_mark: Option<u64>) -> Result<()> {
        let limit = self.request_timeout;
        let mut result = Ok(());
        let lost = held.fence.stop_reason().is_some();
        if !lost {
            if let Some(mark) = final_mark {
                let write = async {
                    // Each late write moves the mark once; three tries outlast any in flight.
                    let mut written = self.guarded(held, Some(MarkWrite::Final(mark))).await;
                    for _ in 0..2 {
                        if !matches!(written, Err(Failure::Retry(_))) {
                            break;
                        }
                        written = self.guarded(held, Some(MarkWrite::Final(mark))).await;
                    }
                    written
                };
                result = match timeout(limit, write).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(Failure::Lost(reason))) => Err(Error::LeaseLost {
                        key: snowmint::error::bounded(&held.fence.key),
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
                snowmint::error::bounded(&String::from_utf8_lossy(value))
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
    fn a_failed_renewal_is_retried_at_once_then_backs_off_within_a_quarter_interval() {
        let config = EtcdConfig::new(["e"], "/p/", 0..=0).renew_every(Duration::from_millis(400));
        let task = Task::new(&config, 10);
        let failed = || Missed::Failed(task.error("renewal", "refused"));
        let timed_out = Missed::TimedOut(task.error("renewal", "no answer"));
        assert_eq!(task.attempt_limit(), Duration::from_millis(200));
        assert_eq!(task.retry_after(&timed_out, 9), Duration::ZERO);
        let waits: Vec<u128> = (1..=8)
            .map(|n| task.retry_after(&failed(), n).as_millis())
            .collect();
        assert_eq!(waits, [0, 5, 10, 20, 40, 80, 100, 100]);
        assert_eq!(
            task.retry_after(&failed(), u32::MAX),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn later_never_overflows() {
        let now = Instant::now();
        assert!(later(now, Duration::MAX) > now);
        assert_eq!(
            later(now, Duration::from_secs(1)),
            now + Duration::from_secs(1)
        );
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
