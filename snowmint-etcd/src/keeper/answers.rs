//! What the lease thread does with each attempt's answer: a confirmed renewal moves the
//! deadline and the mark, a passed probe lets a renewal follow, a moved mark or a failure sends
//! the next attempt, a key gone starts a re-take, a key held by another stops for good.

use tokio::task::JoinSet;
use tokio::time::Instant;

use super::renewal::{Answer, Verdict};
use super::state::{Held, Round, Sent, later};
use super::task::Task;
use crate::error::Error;
use crate::stats::Counters;

impl Task {
    /// Applies an attempt's answer.
    pub(super) fn answered(
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
    pub(super) fn failed(&self, held: &mut Held, round: &mut Round, endpoint: usize, reason: &str) {
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
    pub(super) fn lose(
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
    pub(super) fn stopped_error(&self, held: &Held) -> Option<Error> {
        held.fence.stop_reason().map(|reason| Error::LeaseLost {
            key: snowmint::error::bounded(&held.fence.key),
            reason,
        })
    }
}
