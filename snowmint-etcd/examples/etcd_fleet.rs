//! A fleet of nodes that lease their node IDs from etcd instead of configuring them.
//!
//! Each node claims the lowest free node ID of a range, mints only while its lease is known
//! live, and hands the node ID back when it stops; the next holder of that node ID starts above
//! the mark the last one left in etcd, so their IDs never collide. Two nodes (two
//! processes, in a real fleet) run side by side here, then one stops and a third takes its
//! node ID.
//!
//! Run against an etcd, its client URLs comma separated in `ETCD_ENDPOINTS`:
//!
//! ```sh
//! ETCD_ENDPOINTS=http://127.0.0.1:2379 cargo run -p snowmint-etcd --example etcd_fleet
//! ```

use std::collections::HashSet;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::{ClockBehind, Id, Layout, clock::CachedClock};
use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator, Result};

fn main() -> ExitCode {
    let Some(endpoints) = std::env::var("ETCD_ENDPOINTS")
        .ok()
        .filter(|endpoints| !endpoints.trim().is_empty())
    else {
        eprintln!(
            "etcd_fleet: ETCD_ENDPOINTS is not set; set it to the etcd client URLs to lease node \
             IDs from, comma separated (ETCD_ENDPOINTS=http://127.0.0.1:2379)"
        );
        return ExitCode::from(2);
    };
    match run(&endpoints) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("etcd_fleet: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run(endpoints: &str) -> Result<()> {
    // Node IDs 0 to 31 under a key prefix of this run's own (a real fleet names its service,
    // `/snowmint/orders/`), leased for 5 s and renewed in the background.
    let config = EtcdConfig::new(endpoints.split(',').map(str::trim), prefix(), 0..=31)
        .ttl(Duration::from_secs(5));

    // Two nodes start: each leases the lowest node ID free at the time.
    let first = start(&config)?;
    let second = start(&config)?;
    assert_eq!((first.store().node_id(), second.store().node_id()), (0, 1));
    println!(
        "nodes leased node IDs {} and {} under {}",
        first.store().node_id(),
        second.store().node_id(),
        config.prefix()
    );

    // Both mint; every ID carries its node's leased node ID, so none collide.
    let first_ids = mint(&first, 1_000)?;
    let second_ids = mint(&second, 1_000)?;
    for (node, ids) in [(&first, &first_ids), (&second, &second_ids)] {
        for &id in ids {
            let parts = node.generator().decode(id)?;
            assert_eq!(parts.node("machine"), Some(node.store().node_id()));
        }
    }
    let all: HashSet<Id> = first_ids.iter().chain(&second_ids).copied().collect();
    assert_eq!(all.len(), 2_000);

    // The first node stops: it lowers its mark to the end of the last tick it
    // minted, and revokes its lease, so node ID 0 is free at once.
    let last_of_first = *first_ids.last().expect("the first node minted");
    first.shutdown()?;

    // A third node takes node ID 0, finds the mark in its claim and starts above it: each of
    // its IDs is above every ID the first node minted.
    let third = start(&config)?;
    assert_eq!(third.store().node_id(), 0);
    let mark = third.store().mark().expect("the first holder left a mark");
    let last_time = Layout::TWITTER.decode(last_of_first)?.unix_ms();
    assert!(mark > last_time);
    let third_ids = mint(&third, 1_000)?;
    assert!(third_ids[0] > last_of_first);
    println!(
        "node ID 0 passed on: mark {mark} ms, first ID after it {}",
        third_ids[0]
    );

    second.shutdown()?;
    third.shutdown()?;
    Ok(())
}

/// One node of the fleet: claims a node ID and starts a generator above its mark.
fn start(config: &EtcdConfig) -> Result<LeasedGenerator<CachedClock>> {
    let lease = EtcdLease::claim(config)?;
    let generator = lease
        .resume(Layout::TWITTER, "machine")
        // A crashed holder's mark is up to one TTL ahead of the clock: wait it out.
        .on_clock_behind(ClockBehind::Wait {
            max_ms: lease.ttl().as_millis() as u64,
        })
        .build()?;
    Ok(LeasedGenerator::new(generator, lease)?)
}

/// Mints `n` IDs, checking they strictly increase.
fn mint(node: &LeasedGenerator<CachedClock>, n: usize) -> Result<Vec<Id>> {
    let ids = (0..n)
        .map(|_| node.mint())
        .collect::<snowmint::Result<Vec<_>>>()?;
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    Ok(ids)
}

/// A key prefix no other run uses, so that the node IDs this example expects are free.
fn prefix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_nanos();
    format!("/snowmint-example/fleet-{}-{nanos}/", std::process::id())
}
