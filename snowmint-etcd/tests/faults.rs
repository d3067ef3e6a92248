//! The fault suite: a fleet of holder processes leasing node IDs from a real etcd while a fault
//! is injected (latency, a slow member, a partition, a frozen or killed etcd, a paused holder,
//! a claimant whose clock is behind), each fault with its figures: the node-time with no ID
//! minted, the stall after the fault ended, and the IDs minted more than once across holders
//! (always 0). Two more tests check the latency bound at the defaults, just under and just
//! over it, on one generator of their own.
//!
//! Each test starts its own etcd (`PrivateEtcd`), its own proxies and its own holders (this
//! binary run again as [`holder_process`]), and prints one row of the table:
//!
//! ```text
//! fault | <fault> | <unable to mint> of <observed> node-s | <stall after> ms | <ids> | <duplicates>
//! ```
//!
//! then asserts 0 duplicates and its liveness target. With `SNOWMINT_FAULTS_REPORT_ONLY` set,
//! a missed liveness target is printed instead of failing, so that every row comes out;
//! `SNOWMINT_FAULTS_LOGS` prints what each holder did after its row. Without the `etcd` binary
//! each test says it is skipped and passes. The suite uses the public API only: the lease's
//! configuration, claim, resume, the leased generator and its errors.
//!
//! `cargo test -p snowmint-etcd --all-features --test faults -- --nocapture`

use std::thread;
use std::time::{Duration, Instant};

mod common;

use snowmint_etcd::{Error, EtcdConfig, EtcdLease, LeasedGenerator};

use common::clocks::{OffsetClock, wall_ms};
use common::faults::delay_proxy::DelayProxy;
use common::faults::holder::{self, LAYOUT, Minted, NODE_FIELD, Timing};
use common::faults::measure::{Figures, Window};
use common::faults::{Fleet, target};
use common::files::unique_suffix;
use common::private_etcd::PrivateEtcd;

/// Node-time with no ID that a fault promised to stall nothing may still show: the pauses of
/// a loaded two-core machine running two faults at once (holders, etcds and proxies
/// descheduled), counted only in gaps over 50 ms.
const MACHINE_NOISE: Duration = Duration::from_millis(250);

/// Added to a stall target (one renewal interval) for the machine: the time etcd takes to
/// answer its first requests after it returns, and the holders' scheduling.
const MACHINE_SLACK: Duration = Duration::from_millis(300);

/// How far from the latency bound the two latency tests set the delay: well clear of etcd's
/// own time and the proxy's.
const BOUND_STEP: Duration = Duration::from_millis(300);

/// How long the holders may take to mint on every node ID before the fault is injected.
const READY: Duration = Duration::from_secs(20);

/// The short lease of most faults: TTL 3 s, margin 1 s, so a renewal every 667 ms and an
/// outage of up to 1.33 s promised to stall nothing.
fn short() -> Timing {
    Timing::short(Duration::from_secs(3), Duration::from_secs(1))
}

/// The renewal interval of `timing` (the default one when not set).
fn interval(timing: &Timing) -> Duration {
    timing.config(&[], "/", 0..=0).renewal_interval()
}

/// The TTL of `timing`.
fn ttl(timing: &Timing) -> Duration {
    timing.config(&[], "/", 0..=0).ttl_duration()
}

/// The longest steady one-way latency to etcd under which minting never stops: a renewal
/// sent at `s` is confirmed a round trip later and keeps minting live until `s + ttl -
/// margin`, and the next is sent at `s + renew_every`, so `(ttl - margin - renew_every) / 2`.
fn latency_bound(config: &EtcdConfig) -> Duration {
    let window = config
        .ttl_duration()
        .saturating_sub(config.margin_duration());
    window.saturating_sub(config.renewal_interval()) / 2
}

/// A fleet of one holder per node ID of `nodes`, all minting, and a standby to take over a
/// node ID that is freed.
fn minting_fleet(
    name: &str,
    endpoints: &[&str],
    nodes: std::ops::RangeInclusive<u64>,
    timing: Timing,
) -> Fleet {
    let mut fleet = Fleet::new(name, endpoints, nodes.clone(), timing);
    for _ in nodes {
        fleet.spawn();
    }
    fleet.wait_minting(READY);
    fleet.spawn(); // a standby
    fleet
}

/// The target of a fault minting rides out: no node-time unable to mint, but the machine's
/// noise, `during` the fault.
fn stalls_nothing(fault: &str, figures: &Figures, during: &str) {
    target(fault, figures.unable <= MACHINE_NOISE, || {
        format!(
            "{:?} unable to mint {during}, expected none",
            figures.unable
        )
    });
}

/// The target of a fault that ends: minting resumes within one renewal interval (`every`) of
/// `after` (the fault's end).
fn resumes_within_an_interval(fault: &str, figures: &Figures, every: Duration, after: &str) {
    target(fault, figures.stall_after <= every + MACHINE_SLACK, || {
        format!(
            "minting resumed {:?} after {after}, expected within one renewal interval \
             ({every:?})",
            figures.stall_after
        )
    });
}

/// Runs a holder when this binary was started as one (see `common::faults::holder`); passes
/// at once otherwise. Its name is `holder::HOLDER_TEST`.
#[test]
fn holder_process() {
    holder::run_if_holder();
}

/// At the default TTL, margin and interval, a steady one-way delay of 1 s on every endpoint
/// (a far region) refuses no mint.
#[test]
fn a_steady_one_second_delay_at_the_defaults_refuses_no_mint() {
    let fault = "steady 1 s one-way delay, defaults";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let proxy = DelayProxy::start(&etcd.endpoint);
    let timing = Timing::default();
    let every = interval(&timing);
    let fleet = minting_fleet("delay", &[proxy.endpoint.as_str()], 0..=0, timing);

    let start = wall_ms();
    proxy.set_delay(Duration::from_secs(1));
    thread::sleep(3 * every + Duration::from_secs(1));
    proxy.set_delay(Duration::ZERO);
    let figures = fleet.figures(fault, Window::new(start, wall_ms(), every));
    stalls_nothing(fault, &figures, "under a 1 s one-way delay");
}

/// One member of three 4 s slow (one-way), the two others clean: no mint is refused.
#[test]
fn one_slow_member_of_three_refuses_no_mint() {
    one_slow_member("one member of three 4 s slow", 3);
}

/// One member of two 4 s slow, the other clean: no mint is refused either (the client has
/// fewer clean members to choose from).
#[test]
fn one_slow_member_of_two_refuses_no_mint() {
    one_slow_member("one member of two 4 s slow", 2);
}

/// A cluster of `members` seen through a proxy each, the first proxy 4 s slow one-way for
/// 8 s, at TTL 5 s and margin 1 s: the holders of two node IDs (and a standby) must not be
/// refused a mint.
fn one_slow_member(fault: &str, members: usize) {
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let proxies: Vec<DelayProxy> = (0..members)
        .map(|_| DelayProxy::start(&etcd.endpoint))
        .collect();
    let endpoints: Vec<&str> = proxies.iter().map(|p| p.endpoint.as_str()).collect();
    let timing = Timing::short(Duration::from_secs(5), Duration::from_secs(1));
    let every = interval(&timing);
    let fleet = minting_fleet("slow-member", &endpoints, 0..=1, timing);

    let start = wall_ms();
    proxies[0].set_delay(Duration::from_secs(4));
    thread::sleep(Duration::from_secs(8));
    proxies[0].set_delay(Duration::ZERO);
    let figures = fleet.figures(fault, Window::new(start, wall_ms(), every));
    stalls_nothing(
        fault,
        &figures,
        &format!("with one slow member of {members}"),
    );
}

/// Every endpoint blackholed for 4 s (a partition longer than the TTL: etcd expires the
/// lease meanwhile), then healed: minting resumes within one renewal interval of the heal.
#[test]
fn a_healed_partition_resumes_minting_within_one_interval() {
    let fault = "partition 4 s (TTL 3 s), healed";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let proxy = DelayProxy::start(&etcd.endpoint);
    let timing = short();
    let every = interval(&timing);
    let fleet = minting_fleet("partition", &[proxy.endpoint.as_str()], 0..=0, timing);

    let start = wall_ms();
    proxy.blackhole(true);
    thread::sleep(Duration::from_secs(4));
    proxy.blackhole(false);
    let healed = wall_ms();
    let figures = fleet.figures(fault, Window::new(start, healed, Duration::from_secs(3)));
    resumes_within_an_interval(fault, &figures, every, "the partition healed");
}

/// etcd frozen (`SIGSTOP`) for 400 ms less than `ttl - margin - renew_every`, the outage the
/// configuration promises to ride out: no mint is refused.
#[test]
fn an_etcd_frozen_within_the_promised_outage_stalls_no_mint() {
    let fault = "etcd frozen 1.6 s (promised 2 s)";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    // TTL 4 s, margin 1 s, renewals every second: an outage under 2 s stalls nothing.
    let timing = Timing {
        renew_every: Some(Duration::from_secs(1)),
        ..Timing::short(Duration::from_secs(4), Duration::from_secs(1))
    };
    let every = interval(&timing);
    let promised = Duration::from_secs(4 - 1 - 1);
    let fleet = minting_fleet("short-freeze", &[etcd.endpoint.as_str()], 0..=0, timing);

    let start = wall_ms();
    etcd.freeze();
    thread::sleep(promised - Duration::from_millis(400));
    etcd.thaw();
    let figures = fleet.figures(fault, Window::new(start, wall_ms(), every));
    let within = format!("through a freeze within the promised {promised:?}");
    stalls_nothing(fault, &figures, &within);
}

/// etcd frozen for 4 s, longer than the TTL (3 s): on the thaw etcd expires the lease, and
/// minting resumes within one renewal interval of etcd answering again.
#[test]
fn an_etcd_frozen_past_the_ttl_resumes_minting_within_one_interval_of_the_thaw() {
    let fault = "etcd frozen 4 s (TTL 3 s)";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let timing = short();
    let every = interval(&timing);
    let fleet = minting_fleet("long-freeze", &[etcd.endpoint.as_str()], 0..=0, timing);

    let start = wall_ms();
    etcd.freeze();
    thread::sleep(Duration::from_secs(4));
    etcd.thaw();
    etcd.wait_healthy(Duration::from_secs(5));
    let answered = wall_ms();
    let figures = fleet.figures(fault, Window::new(start, answered, Duration::from_secs(3)));
    resumes_within_an_interval(fault, &figures, every, "etcd answered again");
}

/// etcd killed (`SIGKILL`) and restarted on the same data directory 3 s later (minting has
/// stopped by then: the deadline is 2 s past the last renewal): minting resumes within one
/// renewal interval of etcd answering again.
#[test]
fn an_etcd_killed_and_restarted_resumes_minting_within_one_interval() {
    let fault = "etcd killed, restarted 3 s later";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let mut etcd = PrivateEtcd::start();
    let timing = short();
    let every = interval(&timing);
    let fleet = minting_fleet("restart", &[etcd.endpoint.as_str()], 0..=0, timing);

    let start = wall_ms();
    etcd.kill();
    thread::sleep(Duration::from_secs(3));
    etcd.restart();
    let answered = wall_ms();
    let figures = fleet.figures(fault, Window::new(start, answered, Duration::from_secs(3)));
    resumes_within_an_interval(fault, &figures, every, "the restarted etcd answered");
}

/// A holder paused (`SIGSTOP`) for 5 s, longer than the TTL (3 s): the standby takes its node
/// ID once its lease expired, and after `SIGCONT` the paused holder mints nothing (its
/// deadline passed, and the node is another's).
#[test]
fn a_holder_paused_past_the_ttl_loses_its_node_and_mints_nothing_after() {
    let fault = "holder paused 5 s (TTL 3 s)";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let timing = short();
    let (every, lease_ttl) = (interval(&timing), ttl(&timing));
    let mut fleet = Fleet::new("paused-holder", &[etcd.endpoint.as_str()], 0..=0, timing);
    let paused = fleet.spawn();
    fleet.wait_minting(READY);
    let standby = fleet.spawn();

    let start = wall_ms();
    fleet.holder(paused).pause();
    thread::sleep(Duration::from_secs(5));
    fleet.holder(paused).resume();
    let resumed = wall_ms();
    let figures = fleet.figures(fault, Window::new(start, resumed, Duration::from_secs(2)));
    let after = fleet
        .holder(paused)
        .minted()
        .ids
        .iter()
        .filter(|&&id| LAYOUT.decode(id.into()).unwrap().unix_ms() >= resumed)
        .count();
    assert_eq!(
        after,
        0,
        "the paused holder minted {after} ids after SIGCONT\n{}",
        fleet.logs()
    );
    target(
        fault,
        fleet
            .holder(standby)
            .wait_event("claimed", Duration::ZERO)
            .is_some(),
        || format!("the standby never took the node\n{}", fleet.logs()),
    );
    // The node is free a TTL after the paused holder's last renewal; the standby claims it
    // within 50 ms and mints above its mark.
    target(
        fault,
        figures.unable <= lease_ttl + every + MACHINE_SLACK,
        || {
            format!(
                "{:?} unable to mint, expected at most a TTL and a renewal interval ({:?})",
                figures.unable,
                lease_ttl + every
            )
        },
    );
}

/// A holder killed, and its host restarted with a clock 6 s behind: the new claimant's clock
/// is behind the node's mark by more than its `ClockBehind::Wait { max_ms: 500 }`. With a
/// good-clock standby present, the node must not stay idle: at most a TTL without IDs once
/// the killed holder's lease expired (as if the claimant had died too).
#[test]
fn a_claimant_with_its_clock_behind_the_mark_leaves_the_node_to_a_standby() {
    let fault = "claimant clock 6 s behind the mark";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let timing = short();
    let lease_ttl = ttl(&timing);
    let mut fleet = Fleet::new("clock-behind", &[etcd.endpoint.as_str()], 0..=0, timing);
    let first = fleet.spawn();
    fleet.wait_minting(READY);

    fleet.holder_mut(first).kill();
    let killed = wall_ms();
    let behind = fleet.spawn_with(-6_000, Some(500));
    // The standby starts once the claimant behind holds the node (or could have).
    let _ = fleet
        .holder(behind)
        .wait_event("claimed", lease_ttl + Duration::from_secs(2));
    fleet.spawn();
    // The node is free once the killed holder's lease expired: a TTL after its last renewal.
    let free = killed + lease_ttl.as_millis() as u64;
    let figures = fleet.figures(fault, Window::new(free, free, Duration::from_secs(7)));
    target(fault, figures.unable <= lease_ttl, || {
        format!(
            "{:?} unable to mint once the node was free, expected at most a TTL ({lease_ttl:?})",
            figures.unable
        )
    });
}

/// What minting on one generator for a while gave.
struct Minting {
    minted: Minted,
    /// The refused mints: when (since the start) and the lease's error.
    refused: Vec<(Duration, Error)>,
}

/// Mints on `generator` a tick's IDs at a time, a tick a millisecond, until `run` has passed
/// or `stop` says so.
fn mint_for(
    generator: &LeasedGenerator<OffsetClock>,
    run: Duration,
    stop: impl Fn(&Minting) -> bool,
) -> Minting {
    let started = Instant::now();
    let mut minting = Minting {
        minted: Minted::default(),
        refused: Vec::new(),
    };
    while started.elapsed() < run && !stop(&minting) {
        for _ in 0..16 {
            match generator.mint() {
                Ok(id) => minting.minted.ids.push(id.to_u64()),
                Err(err) => {
                    minting.refused.push((started.elapsed(), Error::from(err)));
                    break;
                }
            }
        }
        thread::sleep(Duration::from_micros(900));
    }
    minting
}

/// A leased generator through `proxy`'s endpoint at the default TTL, margin and interval, and
/// its configuration.
fn leased_at_the_defaults(
    proxy: &DelayProxy,
    name: &str,
) -> (LeasedGenerator<OffsetClock>, EtcdConfig) {
    let prefix = format!("/snowmint-fault/{name}-{}/", unique_suffix());
    let config = EtcdConfig::new([proxy.endpoint.as_str()], prefix, 0..=0);
    let lease = EtcdLease::claim(&config).unwrap();
    let clock = OffsetClock { offset_ms: 0 };
    let generator = lease
        .resume(LAYOUT, NODE_FIELD)
        .clock(clock)
        .build()
        .unwrap();
    (LeasedGenerator::new(generator, lease).unwrap(), config)
}

/// Asserts that `ids` (in minting order) rise strictly: none repeats.
fn assert_rising(ids: &[u64]) {
    let repeated = ids.windows(2).filter(|pair| pair[0] >= pair[1]).count();
    assert_eq!(repeated, 0, "{repeated} ids not above the one before");
}

/// At the defaults, a steady one-way latency 300 ms under the bound `(ttl - margin -
/// renew_every) / 2` refuses no mint over three renewal intervals and more.
#[test]
fn a_latency_just_under_the_bound_refuses_no_mint_at_the_defaults() {
    let fault = "one-way delay bound - 300 ms, defaults";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let proxy = DelayProxy::start(&etcd.endpoint);
    let (generator, config) = leased_at_the_defaults(&proxy, "under-bound");
    let delay = latency_bound(&config) - BOUND_STEP;

    let start = wall_ms();
    proxy.set_delay(delay);
    let run = 3 * config.renewal_interval() + delay;
    let minting = mint_for(&generator, run, |_| false);
    let end = wall_ms();
    proxy.set_delay(Duration::ZERO);
    let _ = generator.shutdown();

    let window = Window::new(start, end, Duration::ZERO);
    let figures = Figures::of(std::slice::from_ref(&minting.minted), 0..=0, window);
    eprintln!("{}", figures.row(&format!("{fault} ({delay:.2?})")));
    assert_rising(&minting.minted.ids);
    target(fault, minting.refused.is_empty(), || {
        format!(
            "{} mints refused under a one-way delay of {delay:?} (bound {:?}), the first \
             {:?} after the delay began: {}",
            minting.refused.len(),
            latency_bound(&config),
            minting.refused[0].0,
            minting.refused[0].1
        )
    });
}

/// At the defaults, a steady one-way latency 300 ms over the bound stops minting with
/// `LeaseExpired` before `ttl - margin + 2 × delay` has passed, and no ID repeats.
#[test]
fn a_latency_just_over_the_bound_stops_minting_by_the_deadline_at_the_defaults() {
    let fault = "one-way delay bound + 300 ms, defaults";
    if !PrivateEtcd::available(fault) {
        return;
    }
    let etcd = PrivateEtcd::start();
    let proxy = DelayProxy::start(&etcd.endpoint);
    let (generator, config) = leased_at_the_defaults(&proxy, "over-bound");
    let delay = latency_bound(&config) + BOUND_STEP;
    let limit = config.ttl_duration() - config.margin_duration() + 2 * delay;

    let start = wall_ms();
    proxy.set_delay(delay);
    // Until a second past the first refusal, or the limit and a second.
    let minting = mint_for(&generator, limit + Duration::from_secs(1), |m| {
        m.refused
            .first()
            .is_some_and(|(at, _)| m.refused.last().unwrap().0 > *at + Duration::from_secs(1))
    });
    let end = wall_ms();
    proxy.set_delay(Duration::ZERO);
    let _ = generator.shutdown();

    let window = Window::new(start, end, Duration::ZERO);
    let figures = Figures::of(std::slice::from_ref(&minting.minted), 0..=0, window);
    eprintln!("{}", figures.row(&format!("{fault} ({delay:.2?})")));
    assert_rising(&minting.minted.ids);
    let (at, err) = minting.refused.first().unwrap_or_else(|| {
        panic!("no mint refused in {limit:?} under a one-way delay of {delay:?}")
    });
    assert!(
        matches!(err, Error::LeaseExpired { .. }),
        "the first refusal: {err}"
    );
    assert!(
        *at <= limit + MACHINE_SLACK,
        "the first refusal came {at:?} after the delay began, expected by {limit:?}"
    );
}
