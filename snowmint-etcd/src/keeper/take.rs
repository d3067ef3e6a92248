//! Taking a node ID: the claim of the lowest free one, and the re-take of the one this holder
//! had, once etcd expired its lease while nobody else claimed it.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, GetOptions, PutOptions, Txn, TxnOp, TxnOpResponse};
use tokio::time::timeout;

use super::endpoints::Endpoints;
use crate::config::EtcdConfig;
use crate::error::{Error, Result};
use crate::fence::boottime_ns;

/// A node ID taken with a fresh lease.
#[derive(Debug)]
pub(super) struct Taken {
    pub(super) node: u64,
    pub(super) lease: i64,
    /// The revision of the transaction that took it: the node key's and the claim key's.
    pub(super) revision: i64,
    /// The mark found, and the mark key's mod revision (0: no mark key).
    pub(super) mark: Option<u64>,
    pub(super) mark_revision: i64,
    /// The granted time to live, in milliseconds.
    pub(super) ttl_ms: u64,
    /// When the lease grant was sent, on the boot clock: the lease lives a TTL past it.
    pub(super) sent_ns: u64,
}

/// Why a re-take did not happen.
#[derive(Debug)]
pub(super) enum Refused {
    /// Another holder has or had the node ID since: this holder must stop for good.
    Taken(String),
    /// etcd did not answer, or failed: try again later.
    Failed(Error),
}

/// What taking a node ID needs to know.
pub(super) struct Taker<'a> {
    pub(super) config: &'a EtcdConfig,
    /// The time to live asked for; the server may grant another.
    pub(super) ttl_secs: i64,
    pub(super) request_timeout: Duration,
}

impl Taker<'_> {
    pub(super) fn error(&self, operation: &'static str, reason: impl std::fmt::Display) -> Error {
        Error::Etcd {
            operation,
            endpoints: self.config.endpoint_list(),
            reason: reason.to_string(),
        }
    }

    /// Runs `request` for at most the request timeout.
    pub(super) async fn bounded<T, E: std::fmt::Display>(
        &self,
        operation: &'static str,
        request: impl Future<Output = Result<T, E>>,
    ) -> Result<T> {
        let limit = self.request_timeout;
        match timeout(limit, request).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(err)) => Err(self.error(operation, err)),
            Err(_) => Err(self.error(operation, format_args!("no answer within {limit:?}"))),
        }
    }

    /// What the node key and the claim key hold: who took the node ID.
    fn holder(lease: i64) -> String {
        format!("snowmint pid {} lease {lease:x}", std::process::id())
    }

    /// Claims the lowest free node ID, on each endpoint in turn from the preferred one until
    /// one answers; the one that did becomes the preferred.
    pub(super) async fn claim(&self, endpoints: &mut Endpoints) -> Result<Taken> {
        let first = endpoints.preferred();
        let mut index = first;
        loop {
            let claimed = match endpoints.client(index).await {
                Ok(mut client) => self.claim_on(&mut client).await,
                Err(reason) => Err(self.error("connect", reason)),
            };
            match claimed {
                Ok(taken) => {
                    endpoints.prefer(index);
                    return Ok(taken);
                }
                // Another endpoint may answer: a slow or dead member costs one request timeout.
                Err(err @ Error::Etcd { .. }) if endpoints.after(index) != first => {
                    let _ = &err; // read only by the event
                    crate::trace::event!(
                        warn,
                        endpoint = endpoints.url(index),
                        error = %err,
                        "a claim failed on one etcd endpoint: trying the next"
                    );
                    endpoints.forget(index);
                    index = endpoints.after(index);
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Grants a lease and takes the lowest free node ID with it, on one endpoint.
    async fn claim_on(&self, client: &mut Client) -> Result<Taken> {
        let sent_ns = boottime_ns();
        let grant = self
            .bounded("lease grant", client.lease_grant(self.ttl_secs, None))
            .await?;
        let lease = grant.id();
        let ttl_ms = match self.granted_ttl_ms(grant.ttl()) {
            Ok(ttl_ms) => ttl_ms,
            Err(reason) => {
                let _ = timeout(self.request_timeout, client.lease_revoke(lease)).await;
                return Err(self.error("lease grant", reason));
            }
        };
        let taken = match self.take_lowest_free(client, lease).await {
            Ok(Some(taken)) => {
                return Ok(Taken {
                    ttl_ms,
                    sent_ns,
                    ..taken
                });
            }
            Ok(None) => Err(Error::NodeRangeFull {
                prefix: snowmint::error::bounded(self.config.prefix()),
                range: self.config.nodes(),
            }),
            Err(err) => Err(err),
        };
        let _ = timeout(self.request_timeout, client.lease_revoke(lease)).await;
        taken
    }

    /// The granted time to live in milliseconds, checked: positive, and longer than the
    /// margin taken off it (as the configuration's is checked). The deadline and the marks
    /// follow the lease the server granted, not the one asked for: a shorter grant asked for
    /// as longer would let minting outlive the lease.
    fn granted_ttl_ms(&self, granted_secs: i64) -> Result<u64, String> {
        let margin = self.config.margin_duration();
        granted_ttl_ms(granted_secs, self.ttl_secs, margin)
    }

    /// Puts the key of the lowest node ID not held, in a transaction that succeeds only if the
    /// key does not exist, records the claim in the node ID's claim key, and reads its mark,
    /// all in that transaction; `None` when every node ID is held. The TTL and send time of
    /// the answer are left for the caller to fill in.
    ///
    /// A node ID whose mark does not parse is skipped: nothing says how far its IDs went, so
    /// it is not safe to mint on, and its key is given back. When no other node ID is free,
    /// the error names the first such mark.
    async fn take_lowest_free(&self, client: &mut Client, lease: i64) -> Result<Option<Taken>> {
        let prefix = self.config.node_prefix();
        let listed = self
            .bounded(
                "claim",
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
        let holder = Self::holder(lease);
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
                    TxnOp::put(self.config.claim_key(node), holder.as_str(), None),
                    TxnOp::get(self.config.mark_key(node), None),
                ]);
            let answer = self.bounded("claim", client.txn(txn)).await?;
            if !answer.succeeded() {
                continue; // taken meanwhile: try the next one
            }
            let revision = answer.header().map_or(0, |header| header.revision());
            let (mark, mark_revision) = match answer.op_responses().get(2) {
                Some(TxnOpResponse::Get(get)) => match get.kvs().first() {
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
            return Ok(Some(Taken {
                node,
                lease,
                revision,
                mark,
                mark_revision,
                ttl_ms: 0,
                sent_ns: 0,
            }));
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

    /// Takes node ID `node` again with a fresh lease, after etcd expired the lease that took
    /// it at `revision`: only while its node key is free and its claim key is still the one
    /// written at `revision`, so nobody else claimed it since and every ID minted on it since
    /// is this holder's. Reads the mark in the same transaction.
    pub(super) async fn retake(
        &self,
        client: &mut Client,
        node: u64,
        revision: i64,
    ) -> Result<Taken, Refused> {
        let sent_ns = boottime_ns();
        let grant = self
            .bounded("lease grant", client.lease_grant(self.ttl_secs, None))
            .await
            .map_err(Refused::Failed)?;
        let lease = grant.id();
        let revoke = |mut client: Client| async move {
            let _ = timeout(self.request_timeout, client.lease_revoke(lease)).await;
        };
        let ttl_ms = match self.granted_ttl_ms(grant.ttl()) {
            Ok(ttl_ms) => ttl_ms,
            Err(reason) => {
                revoke(client.clone()).await;
                return Err(Refused::Failed(self.error("lease grant", reason)));
            }
        };
        let key = self.config.node_key(node);
        let claim_key = self.config.claim_key(node);
        let holder = Self::holder(lease);
        let txn = Txn::new()
            .when([
                Compare::create_revision(key.as_str(), CompareOp::Equal, 0),
                Compare::mod_revision(claim_key.as_str(), CompareOp::Equal, revision),
            ])
            .and_then([
                TxnOp::put(
                    key.as_str(),
                    holder.as_str(),
                    Some(PutOptions::new().with_lease(lease)),
                ),
                TxnOp::put(claim_key.as_str(), holder.as_str(), None),
                TxnOp::get(self.config.mark_key(node), None),
            ])
            .or_else([
                TxnOp::get(key.as_str(), None),
                TxnOp::get(claim_key.as_str(), None),
            ]);
        let answer = match self.bounded("claim", client.txn(txn)).await {
            Ok(answer) => answer,
            Err(err) => {
                revoke(client.clone()).await;
                return Err(Refused::Failed(err));
            }
        };
        let read = |index: usize| match answer.op_responses().get(index) {
            Some(TxnOpResponse::Get(get)) => Some(get.kvs().first().cloned()),
            _ => None,
        };
        if !answer.succeeded() {
            revoke(client.clone()).await;
            return Err(match (read(0), read(1)) {
                (Some(Some(kv)), _) => Refused::Taken(format!(
                    "its lease expired on the server and the key is now held by lease {:x}",
                    kv.lease()
                )),
                (Some(None), Some(claim)) => Refused::Taken(format!(
                    "its lease expired on the server and {claim_key} moved from revision \
                     {revision} to {} (another holder claimed the node id since)",
                    claim.map_or(0, |kv| kv.mod_revision())
                )),
                _ => Refused::Failed(self.error("claim", "the transaction's read is missing")),
            });
        }
        let new_revision = answer.header().map_or(0, |header| header.revision());
        let (mark, mark_revision) = match read(2) {
            Some(Some(kv)) => (parse_mark(kv.value()).ok(), kv.mod_revision()),
            Some(None) => (None, 0),
            None => (None, -1),
        };
        Ok(Taken {
            node,
            lease,
            revision: new_revision,
            mark,
            mark_revision,
            ttl_ms,
            sent_ns,
        })
    }
}

/// A mark's value: decimal Unix milliseconds.
pub(super) fn parse_mark(value: &[u8]) -> Result<u64, String> {
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

/// The granted time to live in milliseconds, checked: positive, and longer than `margin`.
fn granted_ttl_ms(granted_secs: i64, asked_secs: i64, margin: Duration) -> Result<u64, String> {
    let ttl_ms = u64::try_from(granted_secs)
        .ok()
        .filter(|&secs| secs > 0)
        .and_then(|secs| secs.checked_mul(1_000))
        .ok_or_else(|| {
            format!("the server granted a ttl of {granted_secs} s (asked for {asked_secs} s)")
        })?;
    if Duration::from_millis(ttl_ms) <= margin {
        return Err(format!(
            "the server granted a ttl of {granted_secs} s (asked for {asked_secs} s), not more \
             than the margin of {margin:?}; expected a longer lease, or a smaller margin"
        ));
    }
    Ok(ttl_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_granted_ttl_is_checked_against_the_margin() {
        let second = Duration::from_secs(1);
        assert_eq!(granted_ttl_ms(5, 3, second), Ok(5_000));
        let short = granted_ttl_ms(1, 3, second).unwrap_err();
        assert_eq!(
            short,
            "the server granted a ttl of 1 s (asked for 3 s), not more than the margin of 1s; \
             expected a longer lease, or a smaller margin"
        );
        assert!(granted_ttl_ms(0, 3, Duration::ZERO).is_err());
        assert!(granted_ttl_ms(-1, 3, Duration::ZERO).is_err());
        assert!(granted_ttl_ms(i64::MAX, 3, Duration::ZERO).is_err());
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
