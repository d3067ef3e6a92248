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
//! coordinator: a lease from etcd, below.
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
//! holds: leased in the child from etcd (below), or assigned to each child by its
//! parent (a value, an environment variable, a node ID's own mark file).
//! Processes of one host can instead share one node ID and one state word in shared memory,
//! each minting with a generator of its own on it (the `processes` guide, on Unix).
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
//! # Leases from etcd: `snowmint-etcd`
//!
//! The crate [`snowmint-etcd`](https://docs.rs/snowmint-etcd) claims the lowest free node ID
//! of a range under a key prefix from etcd, renews its lease from a thread of its own, and
//! starts a generator above the mark the node ID's last holder left in etcd. Its
//! `LeasedGenerator`, a [`MarkedGenerator`] over the lease, returns an ID only while the lease
//! is known live (a local deadline on the boot clock) and below the mark, so two holders of
//! one node ID never mint the same time, even when their clocks disagree and even when one of
//! them cannot tell it lost its lease. It keeps minting when etcd is slow, far or briefly
//! gone: a renewal is one round trip (minting never stops under a steady one-way latency below
//! `EtcdConfig::latency_bound`, 2.67 s at the defaults), an attempt a member does not answer in
//! time goes to the next member, a holder whose lease etcd expired takes its node ID again if
//! nobody claimed it since, and a holder that cannot mint on its node ID (its clock too far
//! behind the mark, or etcd too slow to renew in time) gives it back. `EtcdLease::stats`
//! counts why a node ID is idle. Its crate docs spell out the guarantee, what happens on a
//! partition and how to choose the TTL. The CLI's `snowmint mint --etcd ENDPOINTS --prefix
//! P` (`snowmint-cli`'s `etcd` feature) leases the layout's first node field for one run.
//!
//! [`NodeIdSource`]: crate::node_id::NodeIdSource
//! [`MarkFile`]: crate::mark::MarkFile
//! [`MarkedGenerator`]: crate::mark::MarkedGenerator
//! [`Error::Forked`]: crate::Error::Forked
