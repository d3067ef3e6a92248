//! The lease thread's side: the requests it serves and the task that claims, renews, raises the
//! mark, takes the node ID back after an expiry, and releases (the module above says how).

use std::collections::VecDeque;
use std::sync::{Arc, mpsc as std_mpsc};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::{Instant, sleep_until, timeout};

use super::endpoints::Endpoints;
use super::renewal::{Answer, Ask, Verdict, attempt};
use super::take::{Refused, Taken, Taker};
use crate::claim::{Claim, NextTime};
use crate::config::EtcdConfig;
use crate::error::{Error, Result};
use crate::fence::{Fence, boottime_ns};
use crate::stats::Counters;

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
    endpoints: Endpoints,
    node: u64,
    lease: i64,
    /// The revision of the transaction that took the node ID: the node key is still ours
    /// while its last modification is that one (any later put or delete, by anyone, moves
    /// it), and nobody claimed the node ID since while the claim key's is.
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

impl Held {
    /// What an attempt asks, with the guards as known now: write `mark` (if any), and keep
    /// the lease alive too if `keep_alive`.
    fn ask(&self, mark: Option<u64>, keep_alive: bool) -> Ask {
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
struct Sent {
    /// Attempts are numbered in the order sent.
    number: u64,
    endpoint: usize,
    lease: i64,
    at: Instant,
    at_ns: u64,
    /// A full renewal (keep-alive and mark), or a probe.
    renewal: bool,
    /// The mark it writes, if any.
    mark: Option<u64>,
}

/// The renewal loop's state between events.
struct Round {
    /// The send time of the last confirmed renewal (or of the claim's grant).
    confirmed: Instant,
    /// Whether a round is under way: attempts are sent until one is confirmed.
    open: bool,
    /// When the next attempt of the open round goes out.
    next_send: Instant,
    /// The endpoint the next attempt goes to.
    next_endpoint: usize,
    /// Quick failures in a row, for the backoff.
    failures: u32,
    /// The attempts in flight, oldest first.
    flying: VecDeque<(Sent, AbortHandle)>,
    numbered: u64,
    /// A probe answered within the round trip a renewal needs: the next attempt renews.
    probe_passed: bool,
    /// The deadline passed and this was reported.
    lapse_reported: bool,
    /// The key or the lease was found gone: take the node ID again before renewing.
    gone: bool,
    /// The pending attach: its reply, the first attempt that answers it, and its give-up time.
    attach: Option<(std_mpsc::Sender<Result<()>>, u64, Instant)>,
}

/// The first backoff after quick failures in a row.
const FIRST_BACKOFF: Duration = Duration::from_millis(5);

/// The most attempts in flight at once; the oldest is dropped for a newer one.
const MAX_IN_FLIGHT: usize = 8;

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

    fn taker(&self) -> Taker<'_> {
        Taker {
            config: &self.config,
            ttl_secs: self.ttl_secs,
            request_timeout: self.request_timeout,
        }
    }

    fn error(&self, operation: &'static str, reason: impl std::fmt::Display) -> Error {
        self.taker().error(operation, reason)
    }

    /// How long an attempt may go unanswered before the next is sent, on the next endpoint:
    /// half the interval.
    fn hedge_after(&self) -> Duration {
        self.renew_every / 2
    }

    /// The window a renewal keeps minting for: `ttl - margin`. An attempt answered later than
    /// that after its send confirms nothing, and is dropped.
    fn window(&self) -> Duration {
        self.config
            .ttl_duration()
            .saturating_sub(self.config.margin_duration())
    }

    /// The longest round trip under which minting never stops: `ttl - margin - renew_every`.
    fn round_trip_bound(&self) -> Duration {
        self.window().saturating_sub(self.renew_every)
    }

    /// How long to wait before the next attempt after the `failures`-th quick failure in a
    /// row: at once for the first of each endpoint's turn, then a backoff doubling from
    /// `FIRST_BACKOFF`, at most the hedge delay.
    fn backoff(&self, failures: u32, endpoints: usize) -> Duration {
        let past = failures.saturating_sub(u32::try_from(endpoints).unwrap_or(u32::MAX));
        if past == 0 {
            return Duration::ZERO;
        }
        FIRST_BACKOFF
            .saturating_mul(1 << (past - 1).min(16))
            .min(self.hedge_after())
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
            let mut endpoints = Endpoints::new(self.config.endpoints(), self.request_timeout);
            let taken = match self.taker().claim(&mut endpoints).await {
                Ok(taken) => taken,
                Err(err) => {
                    let _ = claimed.send(Err(err));
                    return;
                }
            };
            let margin_ns =
                u64::try_from(self.config.margin_duration().as_nanos()).unwrap_or(u64::MAX);
            let fence = Arc::new(Fence::new(
                self.config.node_key(taken.node),
                self.config.mark_key(taken.node),
                taken.ttl_ms.saturating_mul(1_000_000),
                margin_ns,
                taken.sent_ns,
                taken.mark.unwrap_or(0),
            ));
            let claim = Claim {
                node: taken.node,
                mark: taken.mark,
                fence: Arc::clone(&fence),
                ttl: Duration::from_millis(taken.ttl_ms),
            };
            let mut held = Held {
                endpoints,
                node: taken.node,
                lease: taken.lease,
                revision: taken.revision,
                mark_revision: taken.mark_revision,
                mark_seen: taken.mark.unwrap_or(0),
                fence,
                ttl_ms: taken.ttl_ms,
                next_time: None,
            };
            if claimed.send(Ok(claim)).is_err() {
                // The claimant is gone: give the node ID back at once.
                let _ = self.release(&mut held, None).await;
                return;
            }
            // The grant was sent before the claim's first request: the renewals run from it.
            let since_grant = Duration::from_nanos(boottime_ns().saturating_sub(taken.sent_ns));
            let granted = Instant::now()
                .checked_sub(since_grant)
                .unwrap_or_else(Instant::now);
            self.keep(held, granted, inbox).await;
        });
    }

    /// Renews `renew_every` after the send of the last confirmed renewal (sooner when the
    /// fence or an attach asks), sending attempts until one is confirmed; until released.
    async fn keep(
        &self,
        mut held: Held,
        granted: Instant,
        mut inbox: mpsc::UnboundedReceiver<Request>,
    ) {
        let mut flying: JoinSet<(Sent, Answer)> = JoinSet::new();
        let mut round = Round {
            confirmed: granted,
            open: false,
            next_send: granted,
            next_endpoint: held.endpoints.preferred(),
            failures: 0,
            flying: VecDeque::new(),
            numbered: 0,
            probe_passed: false,
            lapse_reported: false,
            gone: false,
            attach: None,
        };
        loop {
            let mut wake = if round.open {
                round.next_send
            } else {
                later(round.confirmed, self.renew_every)
            };
            if let Some((_, _, give_up)) = &round.attach {
                wake = wake.min(*give_up);
            }
            tokio::select! {
                () = sleep_until(wake) => {}
                () = held.fence.nudge.notified() => self.open(&mut round, &held),
                Some(joined) = flying.join_next(), if !flying.is_empty() => {
                    if let Ok((sent, answer)) = joined {
                        self.answered(&mut held, &mut round, &mut flying, sent, answer);
                    }
                    continue;
                }
                request = inbox.recv() => match request {
                    Some(Request::Attach { next_time, reply }) => {
                        held.next_time = Some(next_time);
                        let give_up = later(Instant::now(), self.request_timeout);
                        round.attach = Some((reply, round.numbered, give_up));
                        self.open(&mut round, &held);
                        round.next_send = Instant::now();
                    }
                    Some(Request::Release { final_mark, reply }) => {
                        flying.abort_all();
                        let _ = reply.send(self.release(&mut held, final_mark).await);
                        return;
                    }
                    None => {
                        flying.abort_all();
                        let _ = self.release(&mut held, None).await;
                        return;
                    }
                },
            }
            let now = Instant::now();
            if round
                .attach
                .as_ref()
                .is_some_and(|(_, _, give_up)| now >= *give_up)
            {
                if let Some((reply, _, _)) = round.attach.take() {
                    let limit = self.request_timeout;
                    let _ = reply.send(Err(self.stopped_error(&held).unwrap_or_else(|| {
                        self.error(
                            "renewal",
                            format_args!("no renewal confirmed within {limit:?}"),
                        )
                    })));
                }
            }
            if held.fence.stop_reason().is_some() {
                round.open = false;
                round.confirmed = now;
                continue;
            }
            if !round.open && now >= later(round.confirmed, self.renew_every) {
                self.open(&mut round, &held);
            }
            if round.open && now >= round.next_send {
                self.lapse_check(&held, &mut round);
                if round.gone {
                    self.retake(&mut held, &mut round, &mut flying).await;
                } else {
                    self.send(&mut held, &mut round, &mut flying).await;
                }
            }
        }
    }

    /// Opens a round: the next attempt goes out now, to the preferred endpoint.
    fn open(&self, round: &mut Round, held: &Held) {
        if !round.open {
            round.open = true;
            round.next_send = Instant::now();
            round.next_endpoint = held.endpoints.preferred();
        }
    }

    /// Notes the deadline passing without a confirmed renewal, once per lapse.
    fn lapse_check(&self, held: &Held, round: &mut Round) {
        if held.fence.lapsed() && !round.lapse_reported {
            round.lapse_reported = true;
            round.probe_passed = false;
            Counters::count(&held.fence.counters.lapses);
            crate::trace::event!(
                warn,
                key = held.fence.key.as_str(),
                "no renewal confirmed before the lease's deadline: minting stops until one is, \
                 and the lease is kept alive again only once etcd answers within the round trip \
                 a renewal needs"
            );
        }
    }

    /// Sends the round's next attempt: a full renewal, or a probe once the deadline has
    /// passed (until one answers in time, so a holder that cannot renew in time stops keeping
    /// the lease alive, and the node ID is free a TTL after the last keep-alive).
    async fn send(&self, held: &mut Held, round: &mut Round, flying: &mut JoinSet<(Sent, Answer)>) {
        let endpoint = round.next_endpoint;
        round.next_endpoint = held.endpoints.after(endpoint);
        round.next_send = later(Instant::now(), self.hedge_after());
        let client = match held.endpoints.client(endpoint).await {
            Ok(client) => client,
            Err(reason) => {
                self.failed(held, round, endpoint, &reason);
                return;
            }
        };
        let renewal = !held.fence.lapsed() || round.probe_passed;
        let mark = match (&held.next_time, renewal) {
            (Some(next_time), true) => Some(
                next_time()
                    .saturating_add(held.ttl_ms)
                    .max(held.fence.mark())
                    .max(held.mark_seen),
            ),
            _ => None,
        };
        let ask = held.ask(mark, renewal);
        let sent = Sent {
            number: round.numbered,
            endpoint,
            lease: held.lease,
            at: Instant::now(),
            at_ns: boottime_ns(),
            renewal,
            mark,
        };
        round.numbered += 1;
        let window = self.window();
        let handle = flying.spawn(async move {
            let answer = match timeout(window, attempt(client, ask)).await {
                Ok(answer) => answer,
                Err(_) => Answer {
                    verdict: Verdict::Failed(format!("no answer within {window:?}")),
                    mark: None,
                },
            };
            (sent, answer)
        });
        round.flying.push_back((sent, handle));
        while round.flying.len() > MAX_IN_FLIGHT {
            if let Some((_, oldest)) = round.flying.pop_front() {
                oldest.abort();
            }
        }
    }

    /// Applies an attempt's answer.
    fn answered(
        &self,
        held: &mut Held,
        round: &mut Round,
        flying: &mut JoinSet<(Sent, Answer)>,
        sent: Sent,
        answer: Answer,
    ) {
        round
            .flying
            .retain(|(other, _)| other.number != sent.number);
        if sent.lease != held.lease {
            return; // an attempt for a lease since replaced
        }
        if let Some((revision, value)) = answer.mark {
            if revision > held.mark_revision || held.mark_revision < 0 {
                (held.mark_revision, held.mark_seen) = (revision, value);
            }
        }
        let counters = &held.fence.counters;
        match answer.verdict {
            Verdict::Confirmed if !sent.renewal => {
                // A probe: the key is still ours. Renew at once if etcd answered within the
                // round trip a renewal needs; otherwise probe again at once (etcd answers now:
                // the probe may have waited out an outage that has ended).
                if sent.at.elapsed() <= self.round_trip_bound() {
                    round.probe_passed = true;
                }
                round.next_send = Instant::now();
            }
            Verdict::Confirmed => {
                if let Some(written) = sent.mark {
                    held.fence.raise(written);
                }
                held.fence.renewed(sent.at_ns);
                if sent.at <= round.confirmed {
                    return; // a later renewal was confirmed already
                }
                // The other attempts of the round carry a guard this one's write moved: they
                // change nothing, and are left to end (their answers still tell the mark).
                round.confirmed = sent.at;
                let round_trip = sent.at.elapsed();
                counters.renewed(round_trip);
                crate::trace::event!(
                    debug,
                    key = held.fence.key.as_str(),
                    endpoint = held.endpoints.url(sent.endpoint),
                    round_trip_ms = round_trip.as_millis() as u64,
                    "renewed a node id's lease"
                );
                if held.endpoints.prefer(sent.endpoint) {
                    Counters::count(&counters.endpoint_switches);
                    crate::trace::event!(
                        warn,
                        key = held.fence.key.as_str(),
                        endpoint = held.endpoints.url(sent.endpoint),
                        "renewals switched to another etcd endpoint: it answered first"
                    );
                }
                if round.lapse_reported {
                    crate::trace::event!(
                        info,
                        key = held.fence.key.as_str(),
                        "a renewal was confirmed: minting resumes"
                    );
                }
                (round.open, round.failures, round.lapse_reported) = (false, 0, false);
                round.probe_passed = false;
                if let Some((reply, first, give_up)) = round.attach.take() {
                    if sent.number >= first && sent.mark.is_some() {
                        let _ = reply.send(Ok(()));
                    } else {
                        // Confirmed before the attach: renew again, now with the mark.
                        round.attach = Some((reply, first, give_up));
                        self.open(round, held);
                    }
                }
            }
            Verdict::MarkMoved => {
                // Nothing was written; the guard is now the mark as found: go again at once.
                Counters::count(&counters.failed_attempts);
                if round.open {
                    round.next_send = Instant::now();
                }
            }
            Verdict::Gone(reason) => {
                let _ = &reason; // read only by the event
                Counters::count(&counters.failed_attempts);
                held.fence.suspend();
                crate::trace::event!(
                    warn,
                    key = held.fence.key.as_str(),
                    reason = reason.as_str(),
                    "a node id's lease is gone on the server: minting stops, and the node id is \
                     taken again if nobody claimed it since"
                );
                round.gone = true;
                self.open(round, held);
                round.next_send = Instant::now();
            }
            Verdict::Taken(reason) => self.lose(held, round, flying, reason),
            Verdict::Failed(reason) => self.failed(held, round, sent.endpoint, &reason),
        }
    }

    /// An attempt failed on `endpoint`: connect anew next time, and send the next attempt to
    /// the next endpoint (at once, or after a backoff once every endpoint failed in a row).
    fn failed(&self, held: &mut Held, round: &mut Round, endpoint: usize, reason: &str) {
        Counters::count(&held.fence.counters.failed_attempts);
        held.endpoints.forget(endpoint);
        let _ = reason;
        crate::trace::event!(
            debug,
            key = held.fence.key.as_str(),
            endpoint = held.endpoints.url(endpoint),
            reason,
            "a renewal attempt failed"
        );
        if round.open {
            round.failures = round.failures.saturating_add(1);
            let backoff = self.backoff(round.failures, held.endpoints.len());
            round.next_send = round.next_send.min(later(Instant::now(), backoff));
        }
    }

    /// The node ID is held by another: minting stops for good.
    fn lose(
        &self,
        held: &mut Held,
        round: &mut Round,
        flying: &mut JoinSet<(Sent, Answer)>,
        reason: String,
    ) {
        crate::trace::event!(
            error,
            key = held.fence.key.as_str(),
            reason = reason.as_str(),
            "lost a node id's lease: minting under it stops"
        );
        held.fence.stop(reason);
        flying.abort_all();
        round.flying.clear();
        round.open = false;
        if let Some((reply, _, _)) = round.attach.take() {
            let _ = reply.send(Err(self
                .stopped_error(held)
                .unwrap_or_else(|| self.error("renewal", "the node id was lost"))));
        }
    }

    /// [`Error::LeaseLost`] once minting stopped for good.
    fn stopped_error(&self, held: &Held) -> Option<Error> {
        held.fence.stop_reason().map(|reason| Error::LeaseLost {
            key: snowmint::error::bounded(&held.fence.key),
            reason,
        })
    }

    /// Takes the node ID again with a fresh lease after etcd expired the old one, if nobody
    /// claimed it since: minting resumes at once, above every ID minted on it. One request at
    /// a time, on the round's next endpoint.
    async fn retake(
        &self,
        held: &mut Held,
        round: &mut Round,
        flying: &mut JoinSet<(Sent, Answer)>,
    ) {
        let endpoint = round.next_endpoint;
        round.next_endpoint = held.endpoints.after(endpoint);
        round.next_send = later(Instant::now(), self.hedge_after());
        let mut client = match held.endpoints.client(endpoint).await {
            Ok(client) => client,
            Err(reason) => return self.failed(held, round, endpoint, &reason),
        };
        match self
            .taker()
            .retake(&mut client, held.node, held.revision)
            .await
        {
            Ok(Taken { lease, ttl_ms, .. }) if ttl_ms < held.fence.ttl_ms() => {
                // The deadline assumes the first grant's TTL: a shorter one cannot be used.
                let _ = timeout(self.request_timeout, client.lease_revoke(lease)).await;
                let reason = format!(
                    "its lease expired on the server, and the new lease was granted a ttl of \
                     {ttl_ms} ms, shorter than the first one's {} ms",
                    held.fence.ttl_ms()
                );
                self.lose(held, round, flying, reason);
            }
            Ok(Taken {
                lease,
                revision,
                mark,
                mark_revision,
                ttl_ms,
                sent_ns,
                ..
            }) => {
                (held.lease, held.revision, held.ttl_ms) = (lease, revision, ttl_ms);
                if mark_revision >= 0 {
                    (held.mark_revision, held.mark_seen) = (mark_revision, mark.unwrap_or(0));
                }
                if let Some(mark) = mark {
                    held.fence.raise(mark);
                }
                held.fence.renewed(sent_ns);
                held.endpoints.prefer(endpoint);
                Counters::count(&held.fence.counters.reclaims);
                crate::trace::event!(
                    info,
                    key = held.fence.key.as_str(),
                    lease,
                    "took a node id again with a fresh lease after etcd expired the old one: \
                     minting resumes"
                );
                round.gone = false;
                // Raise the mark with the new lease at once.
                round.next_send = Instant::now();
                round.next_endpoint = endpoint;
                round.probe_passed = true;
            }
            Err(Refused::Taken(reason)) => self.lose(held, round, flying, reason),
            Err(Refused::Failed(err)) => self.failed(held, round, endpoint, &err.to_string()),
        }
    }

    /// Writes `final_mark` (guarded, as a renewal's; retried when a late write of this
    /// holder's moved the mark), revokes the lease, and stops the fence. Each endpoint is
    /// tried in turn, from the preferred one, within the request timeout.
    async fn release(&self, held: &mut Held, final_mark: Option<u64>) -> Result<()> {
        let limit = self.request_timeout;
        let lost = held.fence.stop_reason().is_some();
        let give_up = later(Instant::now(), limit);
        let mut result = Ok(());
        let mut endpoint = held.endpoints.preferred();
        if let (false, Some(mark)) = (lost, final_mark) {
            // Each late write moves the mark once; a few tries outlast any in flight.
            result = Err(self.error("release", format_args!("no answer within {limit:?}")));
            for _ in 0..held.endpoints.len().max(3) {
                let Ok(client) = held.endpoints.client(endpoint).await else {
                    endpoint = held.endpoints.after(endpoint);
                    continue;
                };
                let ask = held.ask(Some(mark), false);
                let Ok(answer) = tokio::time::timeout_at(give_up, attempt(client, ask)).await
                else {
                    break;
                };
                if let Some((revision, value)) = answer.mark {
                    (held.mark_revision, held.mark_seen) = (revision, value);
                }
                match answer.verdict {
                    Verdict::Confirmed => {
                        result = Ok(());
                        break;
                    }
                    Verdict::Gone(reason) | Verdict::Taken(reason) => {
                        result = Err(Error::LeaseLost {
                            key: snowmint::error::bounded(&held.fence.key),
                            reason,
                        });
                        break;
                    }
                    Verdict::MarkMoved => {}
                    Verdict::Failed(reason) => {
                        result = Err(self.error("release", reason));
                        endpoint = held.endpoints.after(endpoint);
                    }
                }
            }
        }
        held.fence.stop("it was released".into());
        if lost {
            // The lease is already gone on the server: revoking it can only fail.
            return result;
        }
        let revoked = match held.endpoints.client(endpoint).await {
            Ok(mut client) => {
                self.taker()
                    .bounded("release", client.lease_revoke(held.lease))
                    .await
            }
            Err(reason) => Err(self.error("release", reason)),
        };
        result.and(revoked.map(drop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_failures_go_round_the_endpoints_at_once_then_back_off_within_the_hedge_delay() {
        let config = EtcdConfig::new(["e"], "/p/", 0..=0).renew_every(Duration::from_millis(400));
        let task = Task::new(&config, 10);
        assert_eq!(task.hedge_after(), Duration::from_millis(200));
        let waits: Vec<u128> = (1..=10).map(|n| task.backoff(n, 3).as_millis()).collect();
        assert_eq!(waits, [0, 0, 0, 5, 10, 20, 40, 80, 160, 200]);
        assert_eq!(task.backoff(u32::MAX, 1), Duration::from_millis(200));
    }

    #[test]
    fn the_round_trip_bound_is_the_window_less_the_interval() {
        let config = EtcdConfig::new(["e"], "/p/", 0..=0);
        let task = Task::new(&config, 10);
        assert_eq!(task.window(), Duration::from_secs(8));
        assert_eq!(task.round_trip_bound(), 2 * config.latency_bound());
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
}
