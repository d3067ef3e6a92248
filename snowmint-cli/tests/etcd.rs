//! `snowmint mint --etcd` against a real etcd: a killed holder frees its node ID, and the flag
//! checks (which need no etcd). The lease's own tests are `snowmint-etcd`'s.
//!
//! The tests talk to the etcd at `ETCD_ENDPOINTS` (`.ci/check` starts one and sets it), each
//! under a prefix of its own; without it they print that they are skipped and pass.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

mod common;

use snowmint::{ClockBehind, Id, Layout};
use snowmint_etcd::{Error, EtcdLease, LeasedGenerator};

use common::cli::BIN;
use common::etcd::{TTL, config, endpoints, prefix, within};
use common::process::KillOnDrop;

#[test]
fn a_killed_holder_frees_its_id_after_about_the_ttl() {
    let Some(endpoints) = endpoints("a_killed_holder") else {
        return;
    };
    let prefix = prefix("killed");
    // A `snowmint mint --etcd` child, killed with SIGKILL when dropped.
    let mut holder = KillOnDrop(
        Command::new(BIN)
            .args(["mint", "--etcd", &endpoints, "--prefix", &prefix])
            .args([
                "--ttl",
                &TTL.as_secs().to_string(),
                "--count",
                "1000000000000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snowmint"),
    );
    // The first line proves it holds the lease; then it blocks on the full pipe, renewing.
    let mut stdout = BufReader::new(holder.0.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let held_id: Id = line.trim().parse().expect("an id from the holder");
    assert_eq!(
        Layout::TWITTER.decode(held_id).unwrap().node("machine"),
        Some(0)
    );
    thread::sleep(Duration::from_millis(300)); // a renewal or two
    holder.0.kill().unwrap(); // SIGKILL: no release
    let killed = Instant::now();
    holder.0.wait().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let printed_max = rest
        .lines()
        .filter_map(|l| l.parse::<Id>().ok())
        .fold(held_id, Id::max);

    let config = config(&endpoints, &prefix, 0..=0);
    assert!(
        matches!(EtcdLease::claim(&config), Err(Error::NodeRangeFull { .. })),
        "the killed holder's lease still holds its id"
    );
    let (lease, _) = within(TTL + Duration::from_secs(3), || {
        EtcdLease::claim(&config).ok()
    })
    .expect("the id is free again within the TTL and etcd's expiry check");
    let freed_after = killed.elapsed();
    assert!(
        freed_after >= TTL / 2 && freed_after <= TTL + Duration::from_secs(3),
        "freed {freed_after:?} after the kill, expected about the TTL of {TTL:?}"
    );
    // The holder's mark was a TTL past its last renewal; the new holder starts above it.
    let mark = lease.mark().expect("the killed holder's mark");
    assert!(mark > Layout::TWITTER.decode(printed_max).unwrap().unix_ms());
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        .on_clock_behind(ClockBehind::Wait { max_ms: 3_000 })
        .build()
        .unwrap();
    let generator = LeasedGenerator::new(generator, lease).unwrap();
    let next = generator.mint().unwrap();
    assert!(next > printed_max);
    assert!(Layout::TWITTER.decode(next).unwrap().unix_ms() >= mark);
}

#[test]
fn the_cli_refuses_etcd_with_the_leased_field_or_without_a_node_field() {
    let run = |args: &[&str]| {
        let output = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8(output.stderr).unwrap()
    };
    let etcd = ["--etcd", "http://127.0.0.1:1", "--prefix", "/p/"];
    assert_eq!(
        run(&[&["mint", "--machine", "3"][..], &etcd].concat()),
        "snowmint: --machine 3 and --etcd both give the machine id; omit --machine\n"
    );
    assert_eq!(
        run(&[&["mint", "--layout", "mastodon"][..], &etcd].concat()),
        "snowmint: layout mastodon has no node field for --etcd to lease; expected a layout \
         with one\n"
    );
}
