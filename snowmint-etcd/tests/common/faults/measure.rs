//! A fault's figures, from what the holders minted: repeated IDs across all of them, and per
//! node ID the time no ID was minted on it (each ID's time, less its holder's clock offset,
//! is when it was minted).

use std::ops::RangeInclusive;
use std::time::Duration;

use super::holder::{LAYOUT, Minted, NODE_FIELD};

/// A pause between two IDs of one node longer than this counts as time unable to mint: well
/// above a holder's own pauses (a millisecond between ticks, a scheduler's time slice).
pub const GAP: u64 = 50;

/// Where a fault's figures are taken, in wall-clock Unix milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// The fault starts.
    pub start_ms: u64,
    /// The fault ends (etcd answers again, the delay is lifted, ...).
    pub fault_end_ms: u64,
    /// The end of the recovery allowed after it.
    pub end_ms: u64,
}

impl Window {
    /// A fault from `start_ms` to `fault_end_ms`, observed `recovery` past its end.
    pub fn new(start_ms: u64, fault_end_ms: u64, recovery: Duration) -> Self {
        Window {
            start_ms,
            fault_end_ms,
            end_ms: fault_end_ms + recovery.as_millis() as u64,
        }
    }
}

/// A fault's figures.
#[derive(Debug, Clone)]
pub struct Figures {
    /// IDs minted, over the whole run.
    pub ids: usize,
    /// IDs minted more than once (each extra copy counts), over the whole run.
    pub duplicates: usize,
    /// Node-time with no ID, in gaps longer than [`GAP`], within the window.
    pub unable: Duration,
    /// The window's length times the nodes: the node-time there was.
    pub observed: Duration,
    /// The longest, over the nodes, from the fault's end to the node's first ID after it
    /// (the rest of the window if none came).
    pub stall_after: Duration,
}

impl Figures {
    /// The figures of `minted` over node IDs `nodes` in `window`.
    pub fn of(minted: &[Minted], nodes: RangeInclusive<u64>, window: Window) -> Figures {
        let mut all: Vec<u64> = minted.iter().flat_map(|m| m.ids.iter().copied()).collect();
        let ids = all.len();
        all.sort_unstable();
        all.dedup();
        let duplicates = ids - all.len();

        // When each node minted, in wall-clock milliseconds, within the window.
        let mut times: Vec<Vec<u64>> = vec![Vec::new(); nodes.clone().count()];
        for m in minted {
            for &id in &m.ids {
                let parts = LAYOUT
                    .decode(id.into())
                    .expect("an id of the holders' layout");
                let node = parts.node(NODE_FIELD).expect("the layout's node field");
                let at = parts.unix_ms().saturating_add_signed(-m.offset_ms);
                if nodes.contains(&node) && (window.start_ms..=window.end_ms).contains(&at) {
                    times[(node - nodes.start()) as usize].push(at);
                }
            }
        }
        let (mut unable, mut stall_after) = (0, 0);
        for node in &mut times {
            node.sort_unstable();
            node.dedup();
            let mut last = window.start_ms;
            for &at in node.iter().chain([&window.end_ms]) {
                if at - last > GAP {
                    unable += at - last;
                }
                last = at;
            }
            let first_after = node
                .iter()
                .find(|&&at| at >= window.fault_end_ms)
                .unwrap_or(&window.end_ms);
            stall_after = stall_after.max(first_after - window.fault_end_ms);
        }
        Figures {
            ids,
            duplicates,
            unable: Duration::from_millis(unable),
            observed: Duration::from_millis((window.end_ms - window.start_ms) * times.len() as u64),
            stall_after: Duration::from_millis(stall_after),
        }
    }

    /// The fault's row of the table: `fault | unable to mint | stall after | ids |
    /// duplicates`.
    pub fn row(&self, fault: &str) -> String {
        format!(
            "fault | {fault} | {:.2} of {:.1} node-s | {} ms | {} | {}",
            self.unable.as_secs_f64(),
            self.observed.as_secs_f64(),
            self.stall_after.as_millis(),
            self.ids,
            self.duplicates
        )
    }
}

/// The latest time each node of `nodes` minted at, in wall-clock milliseconds (0: never).
pub fn latest(minted: &[Minted], nodes: RangeInclusive<u64>) -> Vec<u64> {
    let mut latest = vec![0; nodes.clone().count()];
    for m in minted {
        for &id in m.ids.iter().rev().take(64) {
            let parts = LAYOUT
                .decode(id.into())
                .expect("an id of the holders' layout");
            let node = parts.node(NODE_FIELD).expect("the layout's node field");
            if nodes.contains(&node) {
                let at = parts.unix_ms().saturating_add_signed(-m.offset_ms);
                let slot = &mut latest[(node - nodes.start()) as usize];
                *slot = (*slot).max(at);
            }
        }
    }
    latest
}
