//! The lease thread's side: the requests it serves and the task that claims, renews, raises the
//! mark, takes the node ID back after an expiry, and releases (the module above says how).

use std::collections::VecDeque;
use std::sync::{Arc, mpsc as std_mpsc};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until, timeout};

use super::endpoints::Endpoints;
use super::renewal::{Answer, Verdict, attempt};
use super::state::{Held, Round, Sent, later};
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

/// The first backoff after quick failures in a row.
const FIRST_BACKOFF: Duration = Duration::from_millis(5);

/// The most attempts in flight at once; the oldest is dropped for a newer one.
const MAX_IN_FLIGHT: usize = 8;

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

    pub(super) fn error(&self, operation: &'static str, reason: impl std::fmt::Display) -> Error {
        self.taker().error(operation, reason)
    }

    /// How long an attempt may go unanswered before the next is sent, on the next endpoint:
    /// half the interval.
    pub(super) fn hedge_after(&self) -> Duration {
        self.renew_every / 2
    }

    /// The window a renewal keeps minting for: `ttl - margin`. An attempt answered later than
    /// that after its send confirms nothing, and is dropped.
    pub(super) fn window(&self) -> Duration {
        self.config
            .ttl_duration()
            .saturating_sub(self.config.margin_duration())
    }

    /// The longest round trip under which minting never stops: `ttl - margin - renew_every`.
    pub(super) fn round_trip_bound(&self) -> Duration {
        self.window().saturating_sub(self.renew_every)
    }

    /// How long to wait before the next attempt after the `failures`-th quick failure in a
    /// row: at once for the first of each endpoint's turn, then a backoff doubling from
    /// `FIRST_BACKOFF`, at most the hedge delay.
    pub(super) fn backoff(&self, failures: u32, endpoints: usize) -> Duration {
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
                    Some(Request::Attach { reply, .. }) if held.fence.stop_reason().is_some() => {
                        let _ = reply.send(Err(self.stopped_error(&held).unwrap_or_else(|| {
                            self.error("renewal", "the node id was lost")
                        })));
                    }
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
    pub(super) fn open(&self, round: &mut Round, held: &Held) {
        if !round.open {
            round.open = true;
            round.next_send = Instant::now();
            round.next_endpoint = held.endpoints.preferred();
        }
    }

    /// Notes the deadline passing without a confirmed renewal, once per lapse.
    pub(super) fn lapse_check(&self, held: &Held, round: &mut Round) {
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
}
