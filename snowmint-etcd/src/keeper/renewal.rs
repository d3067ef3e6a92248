//! One renewal attempt, sent on one endpoint: the keep-alive and the guarded mark write in
//! flight together, so an attempt takes one round trip; or, once the deadline has passed, a
//! probe that keeps nothing alive.
//!
//! An attempt owns what it needs (a client of its endpoint, the keys, the guards as known when
//! it was sent) and returns an [`Answer`]; the lease thread applies answers in the order they
//! arrive, so attempts run side by side.

use etcd_client::{Client, Compare, CompareOp, KeyValue, TxnOp, TxnOpResponse, TxnResponse};

use super::take::parse_mark;

/// What an attempt asks etcd.
#[derive(Clone, Debug)]
pub(super) struct Ask {
    pub(super) lease: i64,
    pub(super) key: String,
    pub(super) mark_key: String,
    /// The node key's mod revision while this lease holds it.
    pub(super) revision: i64,
    /// The mark key's mod revision as last known (0: no mark key).
    pub(super) mark_revision: i64,
    /// The mark to write, if any.
    pub(super) mark: Option<u64>,
    /// Keep the lease alive too: false for a probe.
    pub(super) keep_alive: bool,
}

/// How an attempt went.
#[derive(Debug)]
pub(super) enum Verdict {
    /// The keep-alive (if sent) was answered and the transaction's guards held: the node key
    /// is this lease's, the mark as written.
    Confirmed,
    /// The mark key moved since it was last known (a late write of this holder's): nothing
    /// was written; [`Answer::mark`] is the mark as found.
    MarkMoved,
    /// The lease expired on the server, or the node key is gone.
    Gone(String),
    /// The node key is held by another lease, or was rewritten.
    Taken(String),
    /// A transport error or no answer: try again, elsewhere.
    Failed(String),
}

/// An attempt's answer.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) verdict: Verdict,
    /// The mark key as the transaction left or found it, when it says: its mod revision and
    /// value.
    pub(super) mark: Option<(i64, u64)>,
}

impl Answer {
    fn failed(reason: impl std::fmt::Display) -> Self {
        Answer {
            verdict: Verdict::Failed(reason.to_string()),
            mark: None,
        }
    }
}

/// Sends `ask` on `client`: the keep-alive and the transaction at once.
pub(super) async fn attempt(client: Client, ask: Ask) -> Answer {
    let mut leases = client.clone();
    let keep_alive = async {
        if !ask.keep_alive {
            return Ok(());
        }
        // A fresh keep-alive stream per attempt: its first answer is for this request, never
        // a late one for an earlier request.
        match leases.lease_keep_alive(ask.lease).await {
            Ok(_) => Ok(()),
            Err(etcd_client::Error::LeaseKeepAliveError(reason))
                if reason.contains("not found") =>
            {
                Err(Verdict::Gone(format!(
                    "its lease {:x} expired on the server",
                    ask.lease
                )))
            }
            Err(err) => Err(Verdict::Failed(err.to_string())),
        }
    };
    let (kept, written) = tokio::join!(keep_alive, guarded(client, &ask));
    match (kept, written) {
        // What the transaction found about the keys outranks the keep-alive's answer.
        (
            _,
            answer @ Answer {
                verdict: Verdict::Taken(_) | Verdict::Gone(_),
                ..
            },
        ) => answer,
        (Err(verdict), Answer { mark, .. }) => Answer { verdict, mark },
        (Ok(()), answer) => answer,
    }
}

/// The transaction: while the node key is this lease's (its mod revision is the claim's) and
/// the mark key is as last known, write the mark (a probe writes nothing); otherwise read
/// both keys, to tell what moved.
async fn guarded(mut client: Client, ask: &Ask) -> Answer {
    let key = ask.key.as_str();
    let mark_key = ask.mark_key.as_str();
    let mut guards = vec![Compare::mod_revision(key, CompareOp::Equal, ask.revision)];
    let mut writes = Vec::new();
    if let Some(value) = ask.mark {
        guards.push(Compare::mod_revision(
            mark_key,
            CompareOp::Equal,
            ask.mark_revision,
        ));
        writes.push(TxnOp::put(mark_key, value.to_string(), None));
    }
    let txn = etcd_client::Txn::new()
        .when(guards)
        .and_then(writes)
        .or_else([TxnOp::get(key, None), TxnOp::get(mark_key, None)]);
    let answer = match client.txn(txn).await {
        Ok(answer) => answer,
        Err(err) => return Answer::failed(err),
    };
    if answer.succeeded() {
        let Some(value) = ask.mark else {
            return Answer {
                verdict: Verdict::Confirmed,
                mark: None,
            };
        };
        let revision = answer.header().map_or(0, |header| header.revision());
        if revision <= 0 {
            // Unknown revision: the next write loses its compare and re-reads.
            return Answer::failed("no revision in the answer");
        }
        return Answer {
            verdict: Verdict::Confirmed,
            mark: Some((revision, value)),
        };
    }
    let (Some(node), Some(found)) = (read(&answer, 0), read(&answer, 1)) else {
        return Answer::failed("the transaction's read is missing");
    };
    let mark = Some(found.map_or((0, 0), |kv| {
        (kv.mod_revision(), parse_mark(kv.value()).unwrap_or(0))
    }));
    let verdict = match node {
        Some(kv) if kv.mod_revision() == ask.revision => Verdict::MarkMoved,
        Some(kv) => Verdict::Taken(format!(
            "it is held by lease {:x}, written at revision {} (this lease is {:x}, which created \
             it at revision {})",
            kv.lease(),
            kv.mod_revision(),
            ask.lease,
            ask.revision
        )),
        None => Verdict::Gone(format!(
            "it is gone (its lease {:x} expired or was revoked)",
            ask.lease
        )),
    };
    Answer { verdict, mark }
}

/// The key read by the `index`-th operation of a transaction's `else` branch: `None` when the
/// answer lacks it, `Some(None)` when the key does not exist.
fn read(answer: &TxnResponse, index: usize) -> Option<Option<KeyValue>> {
    match answer.op_responses().get(index) {
        Some(TxnOpResponse::Get(get)) => Some(get.kvs().first().cloned()),
        _ => None,
    }
}
