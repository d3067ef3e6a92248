//! Holders: processes that lease a node ID and mint on it as fast as the layout allows, each
//! appending its IDs to a file of its own, as a fleet of services would.
//!
//! A holder is this test binary run again with [`ROLE`] set to its [`Spec`]: the binary's
//! test [`HOLDER_TEST`] then runs [`run`] instead of returning at once. The test that starts a
//! holder ([`Holder::start`]) can stop, continue and kill it, and reads what it printed
//! ([`Holder::events`]) and what it minted ([`Holder::minted`]).
//!
//! A holder claims a node ID (retrying while the range is full or etcd does not answer),
//! resumes a generator of [`LAYOUT`] above the node's mark, wraps it in a leased generator
//! and mints: a full tick of IDs (16), written to its file in one `write`, then a sleep to the
//! next millisecond, so every millisecond it holds the node is fully minted and two holders of
//! one node in the same millisecond would repeat IDs. A refusal that ends by itself (the lease
//! not known live, the mark reached, the clock behind) is retried every millisecond; any other
//! error drops the generator (which releases the lease) and claims again.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snowmint::{ClockBehind, Layout};
use snowmint_etcd::{Error, EtcdConfig, EtcdLease, LeasedGenerator};

use crate::common::clocks::{OffsetClock, wall_ms};
use crate::common::process::KillOnDrop;
use crate::common::signal::signal;

/// The environment variable that makes this test binary a holder: its [`Spec`], encoded.
pub const ROLE: &str = "SNOWMINT_FAULT_HOLDER";

/// The test of the suite's binary that runs a holder when [`ROLE`] is set (and passes at once
/// otherwise).
pub const HOLDER_TEST: &str = "holder_process";

/// The holders' layout: 41 bits of milliseconds since 2020, 9 of node, 4 of sequence. Small
/// on purpose: 16 IDs fill a millisecond, so a holder mints every millisecond it can, and the
/// files stay small (16,000 IDs a second, 128 KB).
pub const LAYOUT: Layout = Layout::builder("faults", 54)
    .time(41)
    .node(NODE_FIELD, 9)
    .sequence(4)
    .epoch_ms(1_577_836_800_000)
    .build_const();

/// The layout's node field, the one leased.
pub const NODE_FIELD: &str = "node";

/// IDs in one tick of [`LAYOUT`].
const PER_TICK: usize = 16;

/// How long a holder waits before claiming again after a failed claim (a full range, etcd
/// not answering): also how late, at most, a standby notices a freed node ID.
const CLAIM_RETRY: Duration = Duration::from_millis(50);

/// The lease's timing; `None` keeps the default.
#[derive(Debug, Clone, Default)]
pub struct Timing {
    pub ttl: Option<Duration>,
    pub margin: Option<Duration>,
    pub renew_every: Option<Duration>,
    pub request_timeout: Option<Duration>,
}

impl Timing {
    /// A TTL and a margin, the default interval, and claims and releases bounded by the TTL.
    pub fn short(ttl: Duration, margin: Duration) -> Self {
        Timing {
            ttl: Some(ttl),
            margin: Some(margin),
            renew_every: None,
            request_timeout: Some(ttl),
        }
    }

    /// The lease configuration with this timing.
    pub fn config(
        &self,
        endpoints: &[String],
        prefix: &str,
        nodes: RangeInclusive<u64>,
    ) -> EtcdConfig {
        let mut config = EtcdConfig::new(endpoints.iter().cloned(), prefix, nodes);
        if let Some(ttl) = self.ttl {
            config = config.ttl(ttl);
        }
        if let Some(margin) = self.margin {
            config = config.margin(margin);
        }
        if let Some(every) = self.renew_every {
            config = config.renew_every(every);
        }
        if let Some(timeout) = self.request_timeout {
            config = config.request_timeout(timeout);
        }
        config
    }
}

/// What a holder does: where it leases, how its clock reads, where it writes.
#[derive(Debug, Clone)]
pub struct Spec {
    pub endpoints: Vec<String>,
    pub prefix: String,
    pub nodes: RangeInclusive<u64>,
    pub timing: Timing,
    /// Added to the wall clock for the holder's generator: negative for a clock behind.
    pub offset_ms: i64,
    /// The generator's `ClockBehind::Wait { max_ms }`; `None` keeps the default policy.
    pub wait_behind_ms: Option<u64>,
    /// The file its IDs are appended to, 8 bytes little-endian each.
    pub out: PathBuf,
    /// It exits after this long, should the test that started it die without killing it.
    pub lifetime: Duration,
}

impl Spec {
    /// `key=value` pairs separated by `;` (no value holds either character).
    fn encode(&self) -> String {
        let ms = |d: Option<Duration>| d.map_or(String::new(), |d| d.as_millis().to_string());
        [
            format!("endpoints={}", self.endpoints.join(",")),
            format!("prefix={}", self.prefix),
            format!("nodes={}-{}", self.nodes.start(), self.nodes.end()),
            format!("ttl={}", ms(self.timing.ttl)),
            format!("margin={}", ms(self.timing.margin)),
            format!("renew_every={}", ms(self.timing.renew_every)),
            format!("request_timeout={}", ms(self.timing.request_timeout)),
            format!("offset_ms={}", self.offset_ms),
            format!(
                "wait_behind_ms={}",
                self.wait_behind_ms
                    .map_or(String::new(), |ms| ms.to_string())
            ),
            format!("out={}", self.out.display()),
            format!("lifetime={}", self.lifetime.as_millis()),
        ]
        .join(";")
    }

    /// The spec [`encode`](Self::encode) wrote.
    fn decode(text: &str) -> Spec {
        let field = |key: &str| {
            text.split(';')
                .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
                .unwrap_or_else(|| panic!("no {key} in holder spec {text:?}"))
        };
        let number = |key: &str| -> Option<u64> {
            let value = field(key);
            (!value.is_empty()).then(|| value.parse().unwrap())
        };
        let ms = |key: &str| number(key).map(Duration::from_millis);
        let (first, last) = field("nodes").split_once('-').unwrap();
        Spec {
            endpoints: field("endpoints").split(',').map(str::to_owned).collect(),
            prefix: field("prefix").to_owned(),
            nodes: first.parse().unwrap()..=last.parse().unwrap(),
            timing: Timing {
                ttl: ms("ttl"),
                margin: ms("margin"),
                renew_every: ms("renew_every"),
                request_timeout: ms("request_timeout"),
            },
            offset_ms: field("offset_ms").parse().unwrap(),
            wait_behind_ms: number("wait_behind_ms"),
            out: PathBuf::from(field("out")),
            lifetime: ms("lifetime").unwrap(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The holder process.

/// In a process started by [`Holder::start`] (its [`ROLE`] set): runs the holder until its
/// lifetime ends. Elsewhere returns at once.
pub fn run_if_holder() {
    if let Ok(spec) = std::env::var(ROLE) {
        run(&Spec::decode(&spec));
    }
}

/// Prints one event line for the test: `holder-event <wall ms> <what>`.
fn event(what: &str) {
    println!("holder-event {} {what}", wall_ms());
}

/// How a holder takes a refused mint.
enum Refusal {
    /// It ends by itself: mint again shortly.
    Retry(&'static str),
    /// The generator mints no more: drop it and claim again.
    Reclaim(String),
}

/// Sorts a refused mint: the clock behind the mark, the lease not known live and the mark
/// reached end by themselves; every other error stops the generator for good.
fn refusal(err: snowmint::Error) -> Refusal {
    if matches!(err, snowmint::Error::ClockBehind { .. }) {
        return Refusal::Retry("clock-behind");
    }
    match Error::from(err) {
        Error::LeaseExpired { .. } => Refusal::Retry("lease-expired"),
        Error::MarkReached { .. } => Refusal::Retry("mark-reached"),
        other => Refusal::Reclaim(other.to_string()),
    }
}

/// Claims, mints and claims again until `spec.lifetime` has passed.
fn run(spec: &Spec) {
    let end = Instant::now() + spec.lifetime;
    let config = spec
        .timing
        .config(&spec.endpoints, &spec.prefix, spec.nodes.clone());
    let clock = OffsetClock {
        offset_ms: spec.offset_ms,
    };
    let mut out = File::options()
        .create(true)
        .append(true)
        .open(&spec.out)
        .unwrap();
    let mut last_claim_error = String::new();
    while Instant::now() < end {
        let lease = match EtcdLease::claim(&config) {
            Ok(lease) => lease,
            Err(err) => {
                // One event per run of failures of one kind (the variant's name).
                let kind = format!("{err:?}")
                    .split([' ', '{', '('])
                    .next()
                    .unwrap()
                    .to_owned();
                if kind != last_claim_error {
                    event(&format!("claim-failed {err}"));
                    last_claim_error = kind;
                }
                thread::sleep(CLAIM_RETRY);
                continue;
            }
        };
        last_claim_error.clear();
        event(&format!("claimed {}", lease.node_id()));
        let mut builder = lease.resume(LAYOUT, NODE_FIELD).clock(clock);
        if let Some(max_ms) = spec.wait_behind_ms {
            builder = builder.on_clock_behind(ClockBehind::Wait { max_ms });
        }
        let generator = match builder.build() {
            Ok(generator) => generator,
            Err(err) => {
                event(&format!("dropped build: {err}"));
                continue;
            }
        };
        match LeasedGenerator::new(generator, lease) {
            Ok(generator) => mint(&generator, &mut out, end),
            Err(err) => event(&format!("dropped attach: {err}")),
        }
    }
}

/// Mints a tick's IDs at a time on `generator`, appending them to `out`, until a refusal that
/// stops it or `end`.
fn mint(generator: &LeasedGenerator<OffsetClock>, out: &mut File, end: Instant) {
    let mut refused: Option<&'static str> = None;
    let mut tick = Vec::with_capacity(PER_TICK * 8);
    while Instant::now() < end {
        tick.clear();
        let mut stop = None;
        for _ in 0..PER_TICK {
            match generator.mint() {
                Ok(id) => tick.extend_from_slice(&id.to_u64().to_le_bytes()),
                Err(err) => {
                    match refusal(err) {
                        Refusal::Retry(kind) => {
                            if refused != Some(kind) {
                                event(&format!("refused {kind}"));
                                refused = Some(kind);
                            }
                        }
                        Refusal::Reclaim(reason) => stop = Some(reason),
                    }
                    break;
                }
            }
        }
        if !tick.is_empty() {
            out.write_all(&tick).unwrap();
            if refused.take().is_some() {
                event("minting");
            }
        }
        if let Some(reason) = stop {
            event(&format!("dropped mint: {reason}"));
            return;
        }
        sleep_to_next_ms();
    }
}

/// Sleeps until the wall clock's next millisecond.
fn sleep_to_next_ms() {
    let into = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        % 1_000_000;
    thread::sleep(Duration::from_nanos(u64::from(1_000_000 - into)));
}

// ---------------------------------------------------------------------------------------------
// The test's side.

/// An event a holder printed: when (wall ms) and what.
#[derive(Debug, Clone)]
pub struct Event {
    pub at_ms: u64,
    pub what: String,
}

/// A holder process, killed when dropped.
pub struct Holder {
    child: KillOnDrop,
    pub name: String,
    /// Its IDs' file.
    pub out: PathBuf,
    /// Its clock's offset from the wall clock, in milliseconds.
    pub offset_ms: i64,
    events: Arc<Mutex<Vec<Event>>>,
}

impl Holder {
    /// Starts a holder called `name` doing `spec` (its errors go to `<out>.err`).
    pub fn start(name: &str, spec: &Spec) -> Holder {
        let errors = File::create(spec.out.with_extension("err")).unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", HOLDER_TEST, "--nocapture", "--test-threads=1"])
            .env(ROLE, spec.encode())
            .stdout(Stdio::piped())
            .stderr(errors)
            .spawn()
            .unwrap();
        let events = Arc::new(Mutex::new(Vec::new()));
        let lines = BufReader::new(child.stdout.take().unwrap());
        let collected = Arc::clone(&events);
        thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                // Anywhere in a line: the harness prints the test's name before its output.
                let Some((_, rest)) = line.split_once("holder-event ") else {
                    continue;
                };
                let (at, what) = rest.split_once(' ').unwrap_or((rest, ""));
                collected
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Event {
                        at_ms: at.parse().unwrap_or(0),
                        what: what.to_owned(),
                    });
            }
        });
        Holder {
            child: KillOnDrop(child),
            name: name.to_owned(),
            out: spec.out.clone(),
            offset_ms: spec.offset_ms,
            events,
        }
    }

    /// Stops the process (`SIGSTOP`): a paused VM, a long GC pause.
    pub fn pause(&self) {
        signal(self.child.0.id(), "STOP");
    }

    /// Continues a paused process (`SIGCONT`).
    pub fn resume(&self) {
        signal(self.child.0.id(), "CONT");
    }

    /// Kills the process (`SIGKILL`): no release, its lease expires a TTL later.
    pub fn kill(&mut self) {
        let _ = self.child.0.kill();
        let _ = self.child.0.wait();
    }

    /// What it printed so far.
    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until it printed an event starting with `what`: when it did (wall ms), or `None`
    /// after `limit` (`Duration::ZERO`: looks once).
    pub fn wait_event(&self, what: &str, limit: Duration) -> Option<u64> {
        let started = Instant::now();
        loop {
            if let Some(event) = self.events().iter().find(|e| e.what.starts_with(what)) {
                return Some(event.at_ms);
            }
            if started.elapsed() >= limit {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// What it minted so far, from its file (a tick cut short by a kill is dropped).
    pub fn minted(&self) -> Minted {
        Minted {
            ids: read_ids(&self.out),
            offset_ms: self.offset_ms,
        }
    }

    /// Its event lines and error output, for a failure's message.
    pub fn log(&self) -> String {
        let events: Vec<String> = self
            .events()
            .iter()
            .map(|e| format!("{} {}", e.at_ms, e.what))
            .collect();
        let errors = std::fs::read_to_string(self.out.with_extension("err")).unwrap_or_default();
        format!("{}:\n{}\n{errors}", self.name, events.join("\n"))
    }
}

/// IDs minted on one clock: a holder's, or a test's own.
#[derive(Debug, Clone, Default)]
pub struct Minted {
    pub ids: Vec<u64>,
    /// The clock's offset from the wall clock: an ID's time less it is when it was minted.
    pub offset_ms: i64,
}

/// The IDs in a holder's file.
fn read_ids(path: &Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes
        .chunks_exact(8)
        .map(|id| u64::from_le_bytes(id.try_into().unwrap()))
        .collect()
}
