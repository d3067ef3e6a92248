//! Fleets: distinct node IDs across processes and machines, and leases from etcd.
//!
//! On one machine you pick the node ID. A fleet needs every live generator to hold a distinct
//! one, with no window in which two generators mint with the same node ID and overlapping
//! times.
//!
//! # Where node IDs come from
//!
//! [`NodeIdSource`] resolves a node ID from a value, an environment variable or the ordinal of
//! a Kubernetes StatefulSet pod (the trailing `-N` of its host name), checks it against the
//! layout's field, and names where a bad value came from; its table says when to pick which.
//! Anything else (Deployments, autoscaling, several StatefulSets on one layout) needs a
//! coordinator: an etcd lease, below.
//!
//! ```
//! use snowmint::{Layout, node_id::NodeIdSource};
//!
//! let host = NodeIdSource::HostOrdinal(Some("orders-12".into()));
//! assert_eq!(host.resolve(&Layout::TWITTER, "machine")?, 12);
//! let err = NodeIdSource::HostOrdinal(Some("orders-40".into()))
//!     .resolve(&Layout::DISCORD, "worker")
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "node id from host name \"orders-40\": worker id 40 is out of range for layout discord (0..=31)"
//! );
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Forked processes
//!
//! A child of `fork()` starts with a copy of its parent's memory: every generator, its state
//! word and its node ID. Minting from that copy would repeat the IDs the parent mints, so a
//! generator built before the fork fails in the child with [`Error::Forked`], naming the
//! process that built it and the child; every generator (shared, local, sharded, marked, sno,
//! leased, and their async methods) checks, on every mint. The parent's generators go on
//! minting. The child builds a generator of its own, with a node ID no other live generator
//! holds: claimed in the child from an etcd lease (below), or assigned to each child by its
//! parent (a value, an environment variable, a node ID's own mark file).
//!
//! A mark file or an etcd lease the parent holds stays the parent's: used in the child, it
//! fails with [`Error::Forked`] too. The child keeps no hold on the parent's [`MarkFile`], so
//! workers that never exec do not keep a restarted parent from opening its file.
//!
//! ```
//! use snowmint::{Generator, Layout, node_id::NodeIdSource};
//!
//! // In the child: machine 18 was set aside for it before the fork.
//! let node = NodeIdSource::Explicit(18).resolve(&Layout::TWITTER, "machine")?;
//! let generator = Generator::builder(Layout::TWITTER).node("machine", node).build()?;
//! assert_eq!(generator.decode(generator.mint()?)?.node("machine"), Some(18));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Leases from etcd (feature `etcd`)
//!
//! [`EtcdLease::claim`] claims the lowest free node ID of a range under a key prefix
//! ([`EtcdConfig`]), attached to an etcd lease that a thread of its own renews; a full range
//! is an error naming the prefix and the range. [`EtcdLease::resume`] starts a generator above
//! the mark the node ID's last holder left in etcd, and a [`LeasedGenerator`]
//! returns an ID only inside two limits, both raised only by answers etcd confirmed: a local
//! deadline on the boot clock (the lease is known live) and the mark (no later
//! holder can reach the ID's time). Two holders of one node ID never mint the same time, even
//! when their clocks disagree and even when one of them cannot tell it lost its lease: the
//! guarantee is spelled out on [`LeasedGenerator`]. The generator's [`shutdown`], or its drop,
//! lowers the mark to the end of the last tick minted and revokes the lease, so the node ID is
//! free at once. [`release`] (or the drop of a lease no generator wraps) revokes the lease
//! without touching the mark.
//!
//! **On a partition.** A holder cut off from etcd (or facing a frozen or quorum-less cluster)
//! keeps minting until its deadline, below its last confirmed mark, then fails with
//! [`Error::LeaseExpired`]. If the partition heals before etcd expires the lease, the next
//! renewal restores minting and nothing changed hands. If it heals after, etcd has deleted
//! the key and another process may hold the node ID: the first renewal finds that, and the
//! generator stops for good with [`Error::LeaseLost`]; claim a new lease to mint again.
//! Meanwhile the other side can claim the node ID only after the lease expired, a TTL after
//! the last renewal etcd received, and mints above the cut-off holder's mark. A holder killed
//! without releasing frees its node ID the same way, about a TTL later.
//!
//! **Choosing the TTL.** Shorter frees a dead holder's node ID sooner and bounds how long a
//! restart waits for the mark; longer rides out longer etcd hiccups without a stall. The
//! default, 10 s with a 2 s margin, renews every 2.7 s after the last confirmed renewal was
//! sent, gives each attempt 1.3 s and retries a failed one at once: etcd may freeze for up to
//! 5.3 s, or two attempts in a row hang, without a stall (see [`EtcdConfig`]'s timing). Give the generator a `ClockBehind::Wait { max_ms }` of at least the TTL,
//! so that a start on a clock behind the last holder's mark waits instead of failing.
//!
//! The CLI's `snowmint mint --etcd ENDPOINTS --prefix P` leases the layout's first node field
//! for one run.
//!
//! ```no_run
//! # #[cfg(feature = "etcd")] {
//! use snowmint::{ClockBehind, Layout, etcd::{EtcdConfig, EtcdLease, LeasedGenerator}};
//! use std::time::Duration;
//!
//! // Machines 0..=63 of twitter's 1,024 for the orders service, leased for 10 s at a time.
//! let endpoints = ["http://10.0.0.5:2379", "http://10.0.0.6:2379", "http://10.0.0.7:2379"];
//! let config = EtcdConfig::new(endpoints, "/snowmint/orders/", 0..=63)
//!     .ttl(Duration::from_secs(10))
//!     .margin(Duration::from_secs(2));
//! let lease = EtcdLease::claim(&config)?; // e.g. machine 3: key /snowmint/orders/node/3
//! let generator = lease
//!     .resume(Layout::TWITTER, "machine")
//!     .on_clock_behind(ClockBehind::Wait { max_ms: 10_000 }) // wait out the last holder's mark
//!     .build()?;
//! let generator = LeasedGenerator::new(generator, lease)?;
//! let id = generator.mint()?;
//! assert_eq!(generator.generator().decode(id)?.node("machine"), Some(generator.node_id()));
//! generator.shutdown()?; // lowers the mark to the last tick minted and revokes the lease
//! # }
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! [`NodeIdSource`]: crate::node_id::NodeIdSource
//! [`MarkFile`]: crate::mark::MarkFile
//! [`Error::Forked`]: crate::Error::Forked
#![cfg_attr(
    feature = "etcd",
    doc = "[`EtcdConfig`]: crate::etcd::EtcdConfig
[`Error::LeaseExpired`]: crate::Error::LeaseExpired
[`Error::LeaseLost`]: crate::Error::LeaseLost
[`EtcdLease::claim`]: crate::etcd::EtcdLease::claim
[`EtcdLease::resume`]: crate::etcd::EtcdLease::resume
[`LeasedGenerator`]: crate::etcd::LeasedGenerator
[`release`]: crate::etcd::EtcdLease::release
[`shutdown`]: crate::mark::MarkedGenerator::shutdown"
)]
#![cfg_attr(
    not(feature = "etcd"),
    doc = "[`EtcdConfig`]: crate#feature-flags
[`Error::LeaseExpired`]: crate#feature-flags
[`Error::LeaseLost`]: crate#feature-flags
[`EtcdLease::claim`]: crate#feature-flags
[`EtcdLease::resume`]: crate#feature-flags
[`LeasedGenerator`]: crate#feature-flags
[`release`]: crate#feature-flags
[`shutdown`]: crate::mark::MarkedGenerator::shutdown"
)]
