//! Node IDs leased from a real etcd: distinct claims, a full range, a frozen server, a restart
//! behind the mark, a lost key, a clean release, a late mark write and a paused server
//! (through a proxy the test steers), extreme durations and a forked child.
//!
//! The tests talk to the etcd at `ETCD_ENDPOINTS` (`.ci/check` starts one and sets it), each
//! under a prefix of its own; without it they print that they are skipped and pass. The
//! frozen-server test starts a private etcd on ports of its own, so freezing it stalls no other
//! test. The unreachable-endpoint test needs no etcd.

use std::collections::HashSet;
use std::net::TcpListener;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

mod common;

use snowmint::{Clock, ClockBehind, Id, Layout, clock::ManualClock};
use snowmint_etcd::{Error, EtcdConfig, EtcdLease, LeasedGenerator};

use common::clocks::wall_ms;
use common::etcd::{TTL, config, endpoints, prefix, within};
use common::private_etcd::PrivateEtcd;
use common::proxy::Proxy;
use common::threads::on_threads;

/// A leased generator on `lease` (the Twitter layout's machine field), minting on `clock`, with
/// the clock-behind policy `on_behind` or the default.
fn leased(
    lease: EtcdLease,
    clock: &ManualClock,
    on_behind: Option<ClockBehind>,
) -> LeasedGenerator<ManualClock> {
    let mut builder = lease
        .resume(Layout::TWITTER, "machine")
        .clock(clock.clone());
    if let Some(policy) = on_behind {
        builder = builder.on_clock_behind(policy);
    }
    LeasedGenerator::new(builder.build().unwrap(), lease).unwrap()
}

/// Runs `etcdctl` against `endpoints`, successfully.
fn etcdctl(endpoints: &str, args: &[&str]) -> String {
    let output = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .arg("--endpoints")
        .arg(endpoints)
        .args(args)
        .output()
        .expect("run etcdctl");
    assert!(
        output.status.success(),
        "etcdctl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn claimants_get_distinct_ids_and_a_full_range_is_an_error() {
    let Some(endpoints) = endpoints("claimants_get_distinct_ids") else {
        return;
    };
    let prefix = prefix("distinct");
    let config = config(&endpoints, &prefix, 5..=8);
    let leases: Vec<EtcdLease> = on_threads(4, |_| EtcdLease::claim(&config).unwrap());
    let ids: HashSet<u64> = leases.iter().map(EtcdLease::node_id).collect();
    assert_eq!(ids, HashSet::from([5, 6, 7, 8]), "four claimants, four ids");

    let err = EtcdLease::claim(&config).unwrap_err();
    assert!(matches!(err, Error::NodeRangeFull { ref range, .. } if *range == (5..=8)));
    assert_eq!(
        err.to_string(),
        format!(
            "every node id in 5..=8 under etcd prefix {prefix:?} is held by a live lease; \
             expected a free one (wait for a holder to stop or its lease to expire, or widen \
             the range)"
        )
    );
    // The failed claim revoked its lease, and every holder's key is in place.
    let keys = etcdctl(&endpoints, &["get", "--prefix", "--keys-only", &prefix]);
    assert_eq!(keys.lines().filter(|l| l.contains("/node/")).count(), 4);
}

#[test]
fn a_clean_release_lets_the_next_claimant_start_at_once() {
    let Some(endpoints) = endpoints("a_clean_release") else {
        return;
    };
    let config = config(&endpoints, &prefix("release"), 0..=0);
    let lease = EtcdLease::claim(&config).unwrap();
    assert_eq!((lease.node_id(), lease.mark()), (0, None));
    let first = LeasedGenerator::new(
        lease.resume(Layout::TWITTER, "machine").build().unwrap(),
        lease,
    )
    .unwrap();
    // Running: the mark is about a TTL ahead of the clock.
    let mark = first.store().confirmed_mark();
    assert!(
        mark >= wall_ms() + TTL.as_millis() as u64 - 500,
        "mark {mark}"
    );
    let ids = (0..10_000)
        .map(|_| first.mint().unwrap())
        .collect::<Vec<_>>();
    let last_time = Layout::TWITTER.decode(ids[9_999]).unwrap().unix_ms();
    first.shutdown().unwrap();

    let started = Instant::now();
    let lease = EtcdLease::claim(&config).unwrap();
    // The release lowered the mark to the end of the last tick minted.
    assert_eq!((lease.node_id(), lease.mark()), (0, Some(last_time + 1)));
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        .on_clock_behind(ClockBehind::Error) // no wait: the clock is already past the mark
        .build()
        .unwrap();
    let second = LeasedGenerator::new(generator, lease).unwrap();
    let next = second.mint().unwrap();
    // Well within the TTL: the release freed the node ID, no expiry was waited for.
    assert!(started.elapsed() < TTL * 3 / 4, "{:?}", started.elapsed());
    assert!(next > ids[9_999]);
    assert_eq!(
        second.generator().decode(next).unwrap().node("machine"),
        Some(0)
    );
}

#[test]
fn a_restart_behind_the_mark_waits_or_fails_and_never_repeats_a_time() {
    let Some(endpoints) = endpoints("a_restart_behind_the_mark") else {
        return;
    };
    let config = config(&endpoints, &prefix("behind"), 0..=0);
    let start = wall_ms() + 3_600_000; // an hour ahead: well clear of the real clock
    let first_clock = ManualClock::new(start);
    let lease = EtcdLease::claim(&config).unwrap();
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        .clock(first_clock.clone())
        .build()
        .unwrap();
    let first = LeasedGenerator::new(generator, lease).unwrap();
    let mut minted = Vec::new();
    for _ in 0..50 {
        minted.push(first.mint().unwrap());
        first_clock.advance(10);
    }
    first.shutdown().unwrap();
    let mark = start + 49 * 10 + 1; // the end of the last tick minted
    let last = *minted.last().unwrap();

    // Restarted on a clock 5 s behind the mark, with a 200 ms wait: it could mint nothing, so
    // it hands the node ID back at once, repeating nothing, and the node ID is free again.
    let clock = ManualClock::new(mark - 5_000);
    let lease = EtcdLease::claim(&config).unwrap();
    assert_eq!(lease.mark(), Some(mark));
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        .clock(clock.clone())
        .on_clock_behind(ClockBehind::Wait { max_ms: 200 })
        .build()
        .unwrap();
    let err = Error::from(
        LeasedGenerator::new(generator, lease)
            .map(drop)
            .unwrap_err(),
    );
    assert_eq!(
        err,
        Error::ClockBehindMark {
            key: format!("{}node/0", config.prefix()),
            mark_ms: mark,
            behind_ms: 5_000,
            max_ms: 200
        }
    );
    assert!(err.is_retryable());

    // 100 ms behind, claimed again at once: it waits for the clock to pass the mark, then
    // mints above every old ID.
    clock.set(mark - 100);
    let lease = EtcdLease::claim(&config).expect("the node id was handed back");
    assert_eq!(lease.mark(), Some(mark));
    let second = leased(lease, &clock, Some(ClockBehind::Wait { max_ms: 200 }));
    let ticking = clock.clone();
    let next = thread::scope(|s| {
        s.spawn(move || {
            for _ in 0..20 {
                thread::sleep(Duration::from_millis(10));
                ticking.advance(10);
            }
        });
        second.mint().unwrap()
    });
    let time = Layout::TWITTER.decode(next).unwrap().unix_ms();
    assert!(time >= mark && next > last, "{time} vs mark {mark}");
    assert!(minted.iter().all(|&id| id < next));
}

#[test]
fn a_key_taken_by_another_lease_stops_the_holder_for_good() {
    let Some(endpoints) = endpoints("a_key_taken") else {
        return;
    };
    let prefix = prefix("taken");
    let config = config(&endpoints, &prefix, 0..=0).renew_every(Duration::from_millis(200));
    let clock = ManualClock::new(wall_ms());
    let lease = EtcdLease::claim(&config).unwrap();
    let first = leased(lease, &clock, None);
    let old = first.mint().unwrap();
    let raised = first.store().confirmed_mark();
    assert_eq!(raised, clock.unix_ms() + TTL.as_millis() as u64);

    // Another lease takes the key over (a put, so its create revision stays the same).
    let granted = etcdctl(&endpoints, &["lease", "grant", "30"]);
    let intruder = granted
        .split_whitespace()
        .nth(1)
        .expect("`lease <hex id> granted with TTL(30s)`")
        .to_owned();
    // etcdctl may pad the ID with zeros to 16 digits; snowmint writes it unpadded.
    let intruder_id = u64::from_str_radix(&intruder, 16).expect("a hex lease ID");
    etcdctl(
        &endpoints,
        &[
            "put",
            &format!("{prefix}node/0"),
            "intruder",
            &format!("--lease={intruder}"),
        ],
    );

    let (err, _) = within(Duration::from_secs(2), || {
        first.mint().err().map(Error::from)
    })
    .expect("the first holder notices at its next renewal");
    assert!(matches!(err, Error::LeaseLost { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&format!(
            "it is held by lease {intruder_id:x}, written at revision"
        )),
        "{err} (the intruder's lease: {intruder})"
    );
    thread::sleep(Duration::from_millis(500)); // more renewal intervals: still stopped
    assert!(matches!(
        first.mint().map_err(Error::from),
        Err(Error::LeaseLost { .. })
    ));

    // The mark the first holder confirmed last: `raised`, or one tick past it when a renewal
    // after the mint (its next time one tick later) landed before the intruder's put.
    let last = first.store().confirmed_mark();
    assert!(
        (raised..=raised + 1).contains(&last),
        "{last} after {raised}"
    );

    // The intruder goes away; the next claimant reads the mark the first holder raised: at
    // least the one it confirmed, and at most one renewal's raise past `raised`, since a
    // renewal's write that timed out may still have landed, unconfirmed (the keeper's "The
    // mark only goes up").
    etcdctl(&endpoints, &["lease", "revoke", &intruder]);
    let lease = EtcdLease::claim(&config).unwrap();
    let stored = lease.mark().expect("the first holder's mark");
    assert!(
        (last..=raised + 1).contains(&stored),
        "{stored} in etcd after {last} confirmed and {raised} raised"
    );

    // The new holder, on the same clock, behind the mark with no wait, hands the node ID back;
    // claimed again once its clock passed the mark, it mints above the mark in etcd only.
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        .clock(clock.clone())
        .on_clock_behind(ClockBehind::Error)
        .build()
        .unwrap();
    let refused = LeasedGenerator::new(generator, lease)
        .map(drop)
        .unwrap_err();
    assert!(
        matches!(
            Error::from(refused),
            Error::ClockBehindMark { max_ms: 0, .. }
        ),
        "a generator that could mint nothing keeps the node id"
    );
    clock.set(stored + 1); // the tick after the mark's: the mark's own tick may have IDs
    let lease = EtcdLease::claim(&config).expect("the node id was handed back");
    let second = leased(lease, &clock, Some(ClockBehind::Error));
    let next = second.mint().unwrap();
    assert!(next > old && Layout::TWITTER.decode(next).unwrap().unix_ms() >= stored);
}

#[test]
fn a_frozen_etcd_stops_minting_by_the_deadline_and_a_renewal_resumes_it() {
    if endpoints("a_frozen_etcd").is_none() {
        return;
    }
    let etcd = PrivateEtcd::start();
    // TTL 3 s, deadline 1.5 s after each renewal sent, renewals every 0.5 s: etcd keeps the
    // lease at least 2.5 s after the freeze, the deadline passes at most 1.5 s after it.
    let ttl = Duration::from_secs(3);
    let margin = Duration::from_millis(1_500);
    let config = EtcdConfig::new([etcd.endpoint.as_str()], "/frozen/", 0..=0)
        .ttl(ttl)
        .margin(margin)
        .renew_every(Duration::from_millis(500))
        .request_timeout(Duration::from_secs(1));
    let (lease, _) = within(Duration::from_secs(15), || EtcdLease::claim(&config).ok())
        .expect("the private etcd starts");
    let generator = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();
    thread::sleep(Duration::from_millis(600)); // a renewal in steady state
    let before = generator.mint().unwrap();

    // The deadline known before the freeze: a renewal answered meanwhile only moves it later.
    let known_deadline = Instant::now() + generator.store().live_for();
    etcd.freeze();
    let mut last = before;
    let (err, stopped_after) = within(ttl, || match generator.mint() {
        Ok(id) => {
            assert!(id > last);
            last = id;
            None
        }
        Err(err) => Some(Error::from(err)),
    })
    .expect("minting stops while etcd is frozen");
    assert!(matches!(err, Error::LeaseExpired { .. }), "{err:?}");
    assert!(
        stopped_after <= margin + Duration::from_millis(150),
        "minting stopped {stopped_after:?} after the freeze, expected by the deadline, at most \
         ttl - margin = {margin:?} after the last renewal sent"
    );
    assert!(
        Instant::now() + Duration::from_millis(30) >= known_deadline,
        "minting went on until the deadline, not stopping at the first missed renewal"
    );

    etcd.thaw();
    let (next, _) = within(Duration::from_secs(2), || generator.mint().ok())
        .expect("a renewal after the thaw restores minting");
    assert!(next > last);
    // Renewals go on after the thaw: past the first one's deadline, minting still works.
    thread::sleep(ttl - margin);
    assert!(generator.mint().unwrap() > next);
    drop(generator); // released while etcd still runs
}

#[test]
fn an_unreachable_etcd_is_an_error_within_the_request_timeout() {
    // A port nothing listens on: connections are refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let config = EtcdConfig::new([endpoint.as_str()], "/nowhere/", 0..=3)
        .request_timeout(Duration::from_millis(500));
    let started = Instant::now();
    let err = EtcdLease::claim(&config).unwrap_err();
    assert!(
        matches!(err, Error::Etcd { ref endpoints, .. } if *endpoints == endpoint),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// Regression: a mark that does not parse on the lowest free node ID made every claim fail.
/// That node ID is skipped (nothing says how far its IDs went) and its key given back; with
/// no other node ID free, the error names the mark and what was expected.
#[test]
fn a_node_whose_mark_does_not_parse_is_skipped() {
    let Some(endpoints) = endpoints("a_node_whose_mark_does_not_parse") else {
        return;
    };
    let prefix = prefix("unreadable-mark");
    let corrupt = format!("not a mark {}", "x".repeat(1_000));
    etcdctl(&endpoints, &["put", &format!("{prefix}mark/0"), &corrupt]);

    let lease = EtcdLease::claim(&config(&endpoints, &prefix, 0..=2)).unwrap();
    assert_eq!(lease.node_id(), 1, "node 0's mark is unreadable: skipped");
    let keys = etcdctl(&endpoints, &["get", "--prefix", "--keys-only", &prefix]);
    let held: Vec<&str> = keys.lines().filter(|l| l.contains("/node/")).collect();
    assert_eq!(
        held,
        [format!("{prefix}node/1")],
        "node 0's key was given back"
    );

    let err = EtcdLease::claim(&config(&endpoints, &prefix, 0..=1)).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(
            err,
            Error::Etcd {
                operation: "claim",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        message.contains(&format!("{prefix}mark/0: holds \"not a mark xxx"))
            && message.contains("expected a Unix-millisecond mark")
            && message.len() < 600,
        "{message}"
    );
    lease.release().unwrap();
}

/// Regression: the lease's deadline and marks followed the TTL asked for, not the one the
/// server granted. etcd raises a TTL below its minimum (2 s with its default election
/// timeout): a 1 s lease is granted 2 s, and is known live for that long.
#[test]
fn the_deadline_follows_the_granted_ttl() {
    let Some(endpoints) = endpoints("the_deadline_follows_the_granted_ttl") else {
        return;
    };
    let prefix = prefix("granted-ttl");
    let config = EtcdConfig::new(endpoints.split(','), &prefix, 0..=0)
        .ttl(Duration::from_secs(1))
        .margin(Duration::from_millis(200))
        .request_timeout(Duration::from_secs(3));
    let lease = EtcdLease::claim(&config).unwrap();
    let granted = etcdctl(
        &endpoints,
        &[
            "lease",
            "timetolive",
            &format!("{:x}", lease_id(&endpoints, &prefix)),
        ],
    );
    let granted_secs: u64 = granted
        .split("granted with TTL(")
        .nth(1)
        .and_then(|rest| rest.split('s').next())
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("no granted TTL in {granted:?}"));
    assert!(granted_secs > 1, "the server kept the 1 s TTL: {granted}");
    assert_eq!(lease.ttl(), Duration::from_secs(granted_secs));
    assert!(
        lease.live_for() > Duration::from_secs(1),
        "live for {:?}: the deadline is not the granted {granted_secs} s less the margin",
        lease.live_for()
    );
    lease.release().unwrap();
}

/// The lease ID that holds the one node key under `prefix`, as `etcdctl` prints it.
fn lease_id(endpoints: &str, prefix: &str) -> i64 {
    let out = etcdctl(
        endpoints,
        &["get", "--prefix", &format!("{prefix}node/"), "-w", "fields"],
    );
    out.lines()
        .find_map(|line| line.strip_prefix("\"Lease\" : "))
        .and_then(|id| id.trim().parse().ok())
        .unwrap_or_else(|| panic!("no lease in {out:?}"))
}

/// The mark key's value in etcd, read directly.
fn stored_mark(endpoints: &str, key: &str) -> u64 {
    let value = etcdctl(endpoints, &["get", key, "--print-value-only"]);
    value
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{key} holds {value:?}"))
}

/// Regression: a renewal's mark write that timed out on the client but reached etcd after a
/// newer one lowered the mark below IDs already returned, and the next holder repeated them.
///
/// The proxy holds the bytes of renewal k's mark write while later renewals confirm a higher
/// mark and the holder mints above k's; then it cuts the holder off and delivers k's write to
/// etcd. The mark in etcd must not go down, and a next holder whose clock reads the first
/// holder's minting time must repeat none of its IDs.
#[test]
fn a_late_mark_write_never_lowers_the_mark_and_the_next_holder_repeats_no_id() {
    let Some(endpoints) = endpoints("a_late_mark_write") else {
        return;
    };
    let proxy = Proxy::start(endpoints.split(',').next().unwrap());
    let prefix = prefix("late-write");
    let mark_key = format!("{prefix}mark/0");
    // TTL 3 s, deadline 2 s after each renewal sent, renewals every 500 ms (attempts 250 ms).
    let config = |endpoint: &str| {
        EtcdConfig::new(endpoint.split(','), &prefix, 0..=0)
            .ttl(Duration::from_secs(3))
            .margin(Duration::from_secs(1))
            .renew_every(Duration::from_millis(500))
            .request_timeout(Duration::from_secs(3))
    };
    let clock = ManualClock::new(wall_ms());
    let lease = EtcdLease::claim(&config(&proxy.endpoint)).unwrap();
    let ttl_ms = lease.ttl().as_millis() as u64;
    let first = leased(lease, &clock, None);

    // Renewal k writes clock + ttl: its bytes are held. (A renewal that read the clock just
    // before it moved writes the mark already confirmed: as late, and as low.)
    let attached_mark = first.store().confirmed_mark();
    clock.advance(1_000);
    proxy.hold_next(mark_key.as_bytes(), 1);
    assert!(
        proxy.wait_held(1, Duration::from_secs(3)),
        "no renewal sent"
    );
    let late_mark = [clock.unix_ms() + ttl_ms, attached_mark]
        .into_iter()
        .find(|mark| proxy.held_contains(0, mark.to_string().as_bytes()))
        .expect("the held write carries the renewal's mark");

    // Later renewals (k timed out on the client) confirm a higher mark.
    clock.advance(1_000);
    let newer_mark = clock.unix_ms() + ttl_ms;
    within(Duration::from_secs(3), || {
        (first.store().confirmed_mark() >= newer_mark).then_some(())
    })
    .expect("a renewal after the held one is confirmed");
    // The holder mints above the late write's mark, below the confirmed one.
    clock.set(late_mark + 100);
    let minted: HashSet<Id> = (0..100).map(|_| first.mint().unwrap()).collect();

    // Cut off; then etcd receives renewal k's write, and answers it.
    proxy.sever();
    let confirmed = first.store().confirmed_mark();
    assert!(confirmed > late_mark + 100, "{confirmed}");
    proxy.release_held();
    assert!(
        proxy.wait_answered(Duration::from_secs(3)),
        "etcd never answered the late write"
    );
    let stored = stored_mark(&endpoints, &mark_key);
    assert!(
        stored >= confirmed,
        "the late write lowered the mark in etcd to {stored}, below the confirmed {confirmed} \
         (the late write's value is {late_mark})"
    );

    // The next holder, once the cut-off holder's lease expired, on a clock that reads the time
    // the first holder minted at (behind its confirmed mark).
    let direct = config(&endpoints);
    let (lease, _) = within(Duration::from_secs(8), || EtcdLease::claim(&direct).ok())
        .expect("the node id is free once the cut-off holder's lease expired");
    assert!(lease.mark().unwrap() >= confirmed);
    // Its clock behind the mark with no wait: it could mint nothing, and hands the node ID
    // back. Claimed again once the clock passed the mark, it mints above it.
    let behind = ManualClock::new(late_mark + 100);
    let on_behind = |lease: EtcdLease| {
        let generator = lease
            .resume(Layout::TWITTER, "machine")
            .clock(behind.clone())
            .on_clock_behind(ClockBehind::Error)
            .build()
            .unwrap();
        LeasedGenerator::new(generator, lease)
    };
    let refused = on_behind(lease).map(drop).unwrap_err();
    assert!(matches!(
        Error::from(refused),
        Error::ClockBehindMark { .. }
    ));
    behind.set(stored + 1); // the tick after the mark's: the mark's own tick may have IDs
    let lease = EtcdLease::claim(&direct).expect("the node id was handed back");
    let second = on_behind(lease).unwrap();
    let next: Vec<Id> = (0..100).map(|_| second.mint().unwrap()).collect();
    let repeated = next.iter().filter(|id| minted.contains(id)).count();
    assert_eq!(repeated, 0, "the next holder repeated {repeated} ids");
    drop(proxy); // the cut-off holder's release fails at once
}

/// Regression: a renewal was sent `renew_every` after the previous attempt ended, and each
/// attempt could take `renew_every`: one stuck renewal already let the deadline pass.
///
/// The proxy pauses all traffic the moment a renewal's mark write arrives (the worst moment:
/// the last confirmed send is a full interval old), for less than `ttl - margin - renew_every`,
/// the outage the configuration promises to ride out. Minting must not stall, and the deadline
/// must stay clear of it.
#[test]
fn a_paused_etcd_within_the_promised_outage_stalls_no_mint() {
    let Some(endpoints) = endpoints("a_paused_etcd") else {
        return;
    };
    let proxy = Proxy::start(endpoints.split(',').next().unwrap());
    let prefix = prefix("paused");
    // TTL 4 s, deadline 3 s after each renewal sent, renewals every second: an outage of less
    // than 2 s is promised to stall nothing.
    let (ttl, margin, every) = (
        Duration::from_secs(4),
        Duration::from_secs(1),
        Duration::from_secs(1),
    );
    let pause = ttl - margin - every - Duration::from_millis(400);
    let config = EtcdConfig::new([proxy.endpoint.as_str()], &prefix, 0..=0)
        .ttl(ttl)
        .margin(margin)
        .renew_every(every)
        .request_timeout(Duration::from_secs(3));
    let lease = EtcdLease::claim(&config).unwrap();
    assert_eq!(lease.ttl(), ttl, "the server granted another ttl");
    let generator = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();

    proxy.pause_on_next(format!("{prefix}mark/0").as_bytes());
    let (minted, errors, least_live) = thread::scope(|s| {
        s.spawn(|| {
            assert!(proxy.wait_paused(Duration::from_secs(3)), "no renewal sent");
            thread::sleep(pause);
            proxy.resume();
        });
        // Mint through the pause and an interval past it.
        let started = Instant::now();
        let (mut minted, mut errors, mut least_live) = (0u64, Vec::new(), Duration::MAX);
        while started.elapsed() < Duration::from_secs(1) + pause + every {
            match generator.mint() {
                Ok(_) => minted += 1,
                Err(err) => errors.push(err),
            }
            least_live = least_live.min(generator.store().live_for());
            thread::sleep(Duration::from_micros(200));
        }
        (minted, errors, least_live)
    });
    assert!(
        errors.is_empty(),
        "{} mints failed through a pause of {pause:?}, the first: {:?}",
        errors.len(),
        errors.first()
    );
    assert!(minted > 1_000, "{minted}");
    // The renewal held by the pause, or its retry, was answered on resume: the deadline
    // never came within 100 ms (without the retries it ran out).
    assert!(
        least_live >= Duration::from_millis(100),
        "the deadline came within {least_live:?}"
    );
    generator.shutdown().unwrap();
}

/// Regression: `request_timeout(Duration::MAX)` passed the configuration check, then
/// overflowed the lease thread's arithmetic: a panic, another in `Drop`, an abort. Every
/// extreme duration is an `InvalidLeaseConfig` error naming the field and its bound, and the
/// largest accepted ones lease, mint and release.
#[test]
fn extreme_durations_are_errors_or_work_and_never_panic() {
    let base = || EtcdConfig::new(["http://127.0.0.1:1"], "/extreme/", 0..=0);
    let cases = [
        (
            base().request_timeout(Duration::MAX),
            "request timeout 18446744073709551615.999999999s: expected more than zero and at \
             most 3600s",
        ),
        (
            base().ttl(Duration::from_secs(u64::MAX)),
            "ttl 18446744073709551615s: expected a whole number of seconds, from 1 to \
             9000000000 (etcd's longest lease)",
        ),
        (
            base().ttl(Duration::MAX),
            "ttl 18446744073709551615.999999999s",
        ),
        (base().margin(Duration::MAX), "margin"),
        (base().renew_every(Duration::MAX), "renewal interval"),
        (
            base().renew_every(Duration::from_nanos(1)),
            "renewal interval 1ns: expected at least 10ms",
        ),
    ];
    for (config, expected) in cases {
        let err = EtcdLease::claim(&config).unwrap_err();
        assert!(
            matches!(err, Error::InvalidLeaseConfig { .. }) && err.to_string().contains(expected),
            "{err}"
        );
    }

    let Some(endpoints) = endpoints("extreme_durations") else {
        return;
    };
    // The largest TTL and request timeout accepted: a lease of 285 years, released at once.
    let config = EtcdConfig::new(endpoints.split(','), prefix("extreme"), 0..=0)
        .ttl(EtcdConfig::MAX_TTL)
        .request_timeout(EtcdConfig::MAX_REQUEST_TIMEOUT);
    let lease = EtcdLease::claim(&config).unwrap();
    let generator = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();
    assert!(generator.mint().is_ok());
    assert!(generator.store().live_for() > Duration::from_secs(86_400 * 365));
    generator.shutdown().unwrap();
}

/// The configuration's promise: with the default interval, two renewal attempts in a row may
/// hang until their timeout, and the third renews before the deadline. The proxy holds the
/// mark writes of two attempts in a row (never answered while minting goes on), then delivers
/// them late: they change nothing.
#[test]
fn two_hung_renewals_in_a_row_stall_no_mint_and_land_late_harmlessly() {
    let Some(endpoints) = endpoints("two_hung_renewals") else {
        return;
    };
    let proxy = Proxy::start(endpoints.split(',').next().unwrap());
    let prefix = prefix("two-hung");
    let mark_key = format!("{prefix}mark/0");
    // TTL 4 s, margin 1 s: the default interval is (4 s - 1 s) / 3 = 1 s, attempts 0.5 s.
    let config = EtcdConfig::new([proxy.endpoint.as_str()], &prefix, 0..=0)
        .ttl(Duration::from_secs(4))
        .margin(Duration::from_secs(1))
        .request_timeout(Duration::from_secs(3));
    assert_eq!(config.renewal_interval(), Duration::from_secs(1));
    let lease = EtcdLease::claim(&config).unwrap();
    let generator = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();

    proxy.hold_next(mark_key.as_bytes(), 2);
    let started = Instant::now();
    let mut least_live = Duration::MAX;
    // Until both are held and an interval past the second: its retry renewed meanwhile.
    while !proxy.wait_held(2, Duration::ZERO) || started.elapsed() < Duration::from_secs(3) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "two renewals not sent"
        );
        generator.mint().unwrap();
        least_live = least_live.min(generator.store().live_for());
        thread::sleep(Duration::from_micros(200));
    }
    assert!(
        least_live >= Duration::from_millis(500),
        "the deadline came within {least_live:?}"
    );
    let confirmed = generator.store().confirmed_mark();
    proxy.release_held();
    assert!(proxy.wait_answered(Duration::from_secs(3)));
    assert!(stored_mark(&endpoints, &mark_key) >= confirmed);
    generator.shutdown().unwrap();
}

/// Regression: a leased generator inherited across `fork()` failed to mint in the child, but
/// dropping it there released the lease through the lease thread, which the child does not
/// have: the child waited two request timeouts and more for an answer. The child's copy now
/// fails with `Error::Forked` and lets go of nothing, at once; the parent's lease lives on.
#[cfg(unix)]
#[test]
fn a_leased_generator_dropped_in_a_forked_child_leaves_the_parents_lease_alone_at_once() {
    let Some(endpoints) = endpoints("a_leased_generator_dropped_in_a_forked_child") else {
        return;
    };
    let prefix = prefix("forked");
    let config = config(&endpoints, &prefix, 0..=0);
    let lease = EtcdLease::claim(&config).unwrap();
    let generator = LeasedGenerator::new(
        lease.resume(Layout::TWITTER, "machine").build().unwrap(),
        lease,
    )
    .unwrap();
    let before = generator.mint().unwrap();
    // The child takes its copy out to shut it down; the parent's stays.
    let held = std::cell::RefCell::new(Some(generator));
    let parent = std::process::id();
    let status = common::forks::in_child(Duration::from_secs(30), || {
        let started = Instant::now();
        let generator = held.borrow_mut().take().unwrap();
        common::forks::is_forked("mint", generator.mint(), "MarkedGenerator", parent)?;
        let shutdown = generator.shutdown();
        if !matches!(shutdown, Err(snowmint::Error::Forked { .. })) {
            return Err(format!("shutdown in the child: {shutdown:?}"));
        }
        if started.elapsed() > Duration::from_secs(1) {
            return Err(format!("the child took {:?}", started.elapsed()));
        }
        Ok(())
    });
    assert_eq!(status, 0, "see the child's stderr");
    let generator = held.into_inner().unwrap();
    // The parent still holds node 0: it mints, and a second claimant finds the range full.
    assert!(generator.mint().unwrap() > before);
    assert!(matches!(
        EtcdLease::claim(&config),
        Err(Error::NodeRangeFull { .. })
    ));
    generator.shutdown().unwrap();
}

/// A holder, through a proxy the test pauses, whose lease is revoked behind its back: minting
/// stops, then `after_revoke` runs (with the holder still cut off), then the proxy resumes.
/// Returns the holder and the IDs it minted before.
fn revoked_behind_its_back(
    endpoints: &str,
    prefix: &str,
    after_revoke: impl FnOnce(),
) -> (
    LeasedGenerator<snowmint::clock::CachedClock>,
    Vec<Id>,
    Proxy,
) {
    let proxy = Proxy::start(endpoints.split(',').next().unwrap());
    let config = config(&proxy.endpoint, prefix, 0..=0);
    let lease = EtcdLease::claim(&config).unwrap();
    let holder = lease.resume(Layout::TWITTER, "machine");
    let holder = LeasedGenerator::new(holder.build().unwrap(), lease).unwrap();
    let before: Vec<Id> = (0..1_000).map(|_| holder.mint().unwrap()).collect();
    let lease = lease_id(endpoints, prefix);
    proxy.pause();
    etcdctl(endpoints, &["lease", "revoke", &format!("{lease:x}")]);
    // Minting stops by the deadline, at most ttl - margin after the last renewal sent.
    within(TTL, || holder.mint().is_err().then_some(()))
        .expect("minting stops while the holder cannot renew");
    after_revoke();
    proxy.resume();
    (holder, before, proxy)
}

/// Regression: a holder whose lease etcd expired (a freeze or a partition longer than the
/// TTL) stopped for good and left its node ID idle, though nobody else claimed it. It takes
/// the node ID again with a fresh lease, at once, and mints on above its own IDs.
#[test]
fn a_holder_whose_lease_expired_takes_its_node_id_again_if_nobody_claimed_it() {
    let Some(endpoints) = endpoints("retake") else {
        return;
    };
    let prefix = prefix("retake");
    let (holder, before, _proxy) = revoked_behind_its_back(&endpoints, &prefix, || {});
    let (after, waited) = within(Duration::from_secs(2), || holder.mint().ok())
        .expect("minting resumes once the holder reaches etcd again");
    assert!(after > *before.last().unwrap());
    assert!(
        waited < Duration::from_secs(1),
        "resumed {waited:?} after etcd answered"
    );
    let stats = holder.store().stats();
    assert_eq!(stats.reclaims, 1, "{stats:?}");
    assert!(stats.refused_mints >= 1 && stats.lapses >= 1, "{stats:?}");
    // The node key is held again, by a new lease, and renewals go on.
    assert_ne!(lease_id(&endpoints, &prefix), 0);
    thread::sleep(TTL);
    assert!(holder.mint().unwrap() > after);
    holder.shutdown().unwrap();
}

/// A holder whose lease expired while another process claimed its node ID (and released it)
/// must not take it again: the other's IDs may be above its own. It stops for good, and
/// repeats none of the other's IDs.
#[test]
fn a_holder_whose_node_id_was_claimed_meanwhile_stops_for_good() {
    let Some(endpoints) = endpoints("claimed_meanwhile") else {
        return;
    };
    let prefix = prefix("claimed-meanwhile");
    let direct = config(&endpoints, &prefix, 0..=0);
    let mut other_ids = Vec::new();
    let (holder, before, _proxy) = revoked_behind_its_back(&endpoints, &prefix, || {
        let lease = EtcdLease::claim(&direct).expect("the revoked node id is free");
        let generator = lease
            .resume(Layout::TWITTER, "machine")
            .on_clock_behind(ClockBehind::Wait { max_ms: 10_000 })
            .build()
            .unwrap();
        let other = LeasedGenerator::new(generator, lease).unwrap();
        other_ids.extend((0..1_000).map(|_| other.mint().unwrap()));
        other.shutdown().unwrap(); // the node key is free again; the claim key moved
    });
    let (err, _) = within(Duration::from_secs(3), || {
        let err = Error::from(holder.mint().unwrap_err());
        matches!(err, Error::LeaseLost { .. }).then_some(err)
    })
    .expect("the holder finds its node id was claimed since");
    assert!(
        err.to_string()
            .contains("another holder claimed the node id since"),
        "{err}"
    );
    thread::sleep(Duration::from_millis(500));
    assert!(holder.mint().is_err(), "a lost holder mints no more");
    assert!(other_ids.iter().all(|id| !before.contains(id)));
    assert_eq!(holder.store().stats().reclaims, 0);
}

/// One of two endpoints stops answering (its connection stalls): the renewal attempt on it is
/// followed by one on the other endpoint within half an interval, so no mint is refused, and
/// renewals stay on the endpoint that answered.
#[test]
fn a_stalled_endpoint_costs_no_mint_and_renewals_switch_to_the_other() {
    let Some(endpoints) = endpoints("stalled_endpoint") else {
        return;
    };
    let upstream = endpoints.split(',').next().unwrap();
    let (stalled, clean) = (Proxy::start(upstream), Proxy::start(upstream));
    let config = EtcdConfig::new(
        [stalled.endpoint.as_str(), clean.endpoint.as_str()],
        prefix("stalled-endpoint"),
        0..=0,
    )
    .ttl(Duration::from_secs(3))
    .margin(Duration::from_millis(600));
    let lease = EtcdLease::claim(&config).unwrap();
    let generator = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();
    stalled.pause();
    let started = Instant::now();
    let (mut minted, mut refused) = (0u64, Vec::new());
    while started.elapsed() < Duration::from_secs(4) {
        match generator.mint() {
            Ok(_) => minted += 1,
            Err(err) => refused.push(err),
        }
        thread::sleep(Duration::from_micros(200));
    }
    assert!(
        refused.is_empty(),
        "{} mints refused: {:?}",
        refused.len(),
        refused.first()
    );
    let stats = generator.store().stats();
    assert_eq!(stats.endpoint_switches, 1, "{stats:?}");
    assert!(stats.renewals >= 4, "{stats:?}");
    assert!(minted > 1_000);
    drop(generator);
    stalled.resume();
}

/// Regression: a holder whose renewals etcd answered later than `ttl - margin` (a far or
/// overloaded cluster) minted nothing, yet every attempt's keep-alive still reached etcd and
/// kept the lease alive: the node ID stayed held, idle, for as long as the latency lasted.
/// Past its deadline the holder sends no keep-alive until etcd answers in time, so the node
/// ID is free about a TTL later, for a process that can use it.
#[test]
fn a_holder_that_cannot_renew_in_time_lets_its_node_id_go() {
    let Some(endpoints) = endpoints("cannot_renew_in_time") else {
        return;
    };
    let upstream = endpoints.split(',').next().unwrap();
    let proxy = common::faults::delay_proxy::DelayProxy::start(upstream);
    let prefix = prefix("cannot-renew");
    // TTL 3 s, margin 1 s: a renewal must be answered within 2 s of its send to move the
    // deadline; a one-way delay of 1.5 s makes every round trip 3 s.
    let (ttl, margin) = (Duration::from_secs(3), Duration::from_secs(1));
    let timing = |config: EtcdConfig| {
        config
            .ttl(ttl)
            .margin(margin)
            .request_timeout(Duration::from_secs(3))
    };
    let config = timing(EtcdConfig::new([proxy.endpoint.as_str()], &prefix, 0..=0));
    let lease = EtcdLease::claim(&config).unwrap();
    let holder = lease.resume(Layout::TWITTER, "machine").build().unwrap();
    let holder = LeasedGenerator::new(holder, lease).unwrap();
    let before = holder.mint().unwrap();
    proxy.set_delay(Duration::from_millis(1_500));

    let direct = timing(EtcdConfig::new([upstream], &prefix, 0..=0));
    let (other, took) = within(Duration::from_secs(15), || EtcdLease::claim(&direct).ok())
        .expect("the node id of a holder that cannot renew in time is freed");
    // The deadline (at most 2 s), the last keep-alive sent before it still in flight (1.5 s),
    // then the TTL (3 s) and etcd's expiry check.
    assert!(
        took < Duration::from_secs(9),
        "the node id was freed {took:?} after the delay began"
    );
    assert!(holder.mint().is_err(), "the first holder mints no more");
    assert!(holder.store().stats().lapses >= 1);
    let generator = other
        .resume(Layout::TWITTER, "machine")
        .on_clock_behind(ClockBehind::Wait { max_ms: 5_000 })
        .build()
        .unwrap();
    let other = LeasedGenerator::new(generator, other).unwrap();
    assert!(other.mint().unwrap() > before);
    proxy.set_delay(Duration::ZERO);
    // Back in time, the first holder finds its node id held by another and stops for good.
    let (err, _) = within(Duration::from_secs(10), || {
        let err = Error::from(holder.mint().unwrap_err());
        matches!(err, Error::LeaseLost { .. }).then_some(err)
    })
    .expect("the first holder learns it lost the node id");
    assert!(err.to_string().contains("held by lease"), "{err}");
}
