//! The fault suite's fixtures: a delaying TCP proxy ([`delay_proxy`]), holder processes that
//! lease node IDs and mint ([`holder`]), and the figures of a fault ([`measure`]): time
//! unable to mint, and repeated IDs across holders. [`Fleet`] ties them together for one
//! fault; the private etcd is [`private_etcd`](super::private_etcd).
//!
//! A missed liveness target fails its test, unless [`REPORT_ONLY`] is set: then it is printed,
//! so that a run on code that misses them still gives every figure. A repeated ID always
//! fails. [`LOGS`] prints what each holder did (claims, refusals, losses) after the row.

pub mod delay_proxy;
pub mod holder;
pub mod measure;

use std::ops::RangeInclusive;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::clocks::wall_ms;
use crate::common::files::{TempDir, unique_suffix};

use holder::{Holder, Minted, Spec, Timing};
use measure::{Figures, Window, latest};

/// Set (to anything) to print missed liveness targets instead of failing on them.
pub const REPORT_ONLY: &str = "SNOWMINT_FAULTS_REPORT_ONLY";

/// Set (to anything) to print every holder's events after its fault's row.
pub const LOGS: &str = "SNOWMINT_FAULTS_LOGS";

/// How long a holder process lives at most, should its test die without killing it.
const HOLDER_LIFETIME: Duration = Duration::from_secs(120);

/// The holders of one fault, their common spec, and the directory of their files.
pub struct Fleet {
    dir: TempDir,
    spec: Spec,
    holders: Vec<Holder>,
}

impl Fleet {
    /// No holder yet; each will lease node IDs `nodes` at `endpoints` with `timing`, under a
    /// prefix of the fault's own.
    pub fn new(
        fault: &str,
        endpoints: &[&str],
        nodes: RangeInclusive<u64>,
        timing: Timing,
    ) -> Self {
        let dir = TempDir::new(&format!("fault-{fault}"));
        let spec = Spec {
            endpoints: endpoints.iter().map(|&e| e.to_owned()).collect(),
            prefix: format!("/snowmint-fault/{fault}-{}/", unique_suffix()),
            nodes,
            timing,
            offset_ms: 0,
            wait_behind_ms: None,
            out: dir.join("unused"),
            lifetime: HOLDER_LIFETIME,
        };
        Fleet {
            dir,
            spec,
            holders: Vec::new(),
        }
    }

    /// The node IDs the holders lease.
    pub fn nodes(&self) -> RangeInclusive<u64> {
        self.spec.nodes.clone()
    }

    /// Starts a holder with a good clock and the default clock-behind policy: its index.
    pub fn spawn(&mut self) -> usize {
        self.spawn_with(0, None)
    }

    /// Starts a holder whose clock reads `offset_ms` off the wall clock, waiting out a clock
    /// behind by up to `wait_behind_ms` (`None`: the default policy): its index.
    pub fn spawn_with(&mut self, offset_ms: i64, wait_behind_ms: Option<u64>) -> usize {
        let index = self.holders.len();
        let name = format!("holder-{index}");
        let spec = Spec {
            offset_ms,
            wait_behind_ms,
            out: self.dir.join(&format!("{name}.ids")),
            ..self.spec.clone()
        };
        self.holders.push(Holder::start(&name, &spec));
        index
    }

    /// Holder `index`.
    pub fn holder(&self, index: usize) -> &Holder {
        &self.holders[index]
    }

    /// Holder `index`, to kill it.
    pub fn holder_mut(&mut self, index: usize) -> &mut Holder {
        &mut self.holders[index]
    }

    /// What every holder minted so far.
    pub fn minted(&self) -> Vec<Minted> {
        self.holders.iter().map(Holder::minted).collect()
    }

    /// Waits until every node ID minted in the last 100 ms; panics after `limit`, with the
    /// holders' logs.
    pub fn wait_minting(&self, limit: Duration) {
        let started = Instant::now();
        loop {
            let now = wall_ms();
            if latest(&self.minted(), self.nodes())
                .iter()
                .all(|&at| at + 100 >= now)
            {
                return;
            }
            assert!(
                started.elapsed() < limit,
                "the holders did not all mint within {limit:?}:\n{}",
                self.logs()
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the window's end, then takes the figures of the fault over it, prints its
    /// row, and asserts no ID was minted twice.
    pub fn figures(&self, fault: &str, window: Window) -> Figures {
        let left = window.end_ms.saturating_sub(wall_ms());
        thread::sleep(Duration::from_millis(left));
        let figures = Figures::of(&self.minted(), self.nodes(), window);
        eprintln!("{}", figures.row(fault));
        if std::env::var_os(LOGS).is_some() {
            eprintln!("{}", self.logs());
        }
        assert_eq!(
            figures.duplicates,
            0,
            "{fault}: {} ids minted more than once\n{}",
            figures.duplicates,
            self.logs()
        );
        figures
    }

    /// Every holder's events and errors.
    pub fn logs(&self) -> String {
        let logs: Vec<String> = self.holders.iter().map(Holder::log).collect();
        logs.join("\n")
    }
}

/// A liveness target: fails the test when missed, or only says so under [`REPORT_ONLY`].
pub fn target(fault: &str, met: bool, what: impl FnOnce() -> String) {
    if met {
        return;
    }
    let message = format!("{fault}: target missed: {}", what());
    if std::env::var_os(REPORT_ONLY).is_some() {
        eprintln!("{message}");
    } else {
        panic!("{message}");
    }
}
