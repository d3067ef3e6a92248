//! Node IDs for [`snowmint`] generators, leased from etcd: no two live generators share
//! one, and no two holders of one ever mint the same time.
//!
//! [`EtcdLease::claim`] claims the lowest free node ID of a range under a key prefix
//! ([`EtcdConfig`]), attached to an etcd lease that a thread of its own renews; a full range
//! is an error naming the prefix and the range. [`EtcdLease::resume`] starts a generator above
//! the mark the node ID's last holder left in etcd, and a [`LeasedGenerator`] (a snowmint
//! [`MarkedGenerator`](snowmint::mark::MarkedGenerator) whose store is the lease) returns an
//! ID only inside two limits, both raised only by answers etcd confirmed: a local deadline on
//! the boot clock (the lease is known live) and the mark (no later holder can reach the ID's
//! time). The guarantee is spelled out on [`LeasedGenerator`]. The generator's
//! [`shutdown`](snowmint::mark::MarkedGenerator::shutdown), or its drop, lowers the mark to
//! the end of the last tick minted and revokes the lease, so the node ID is free at once.
//! [`EtcdLease::release`] (or the drop of a lease no generator wraps) revokes the lease
//! without touching the mark.
//!
//! **On a partition.** A holder cut off from etcd (or facing a frozen or quorum-less cluster)
//! keeps minting until its deadline, below its last confirmed mark, then fails with
//! [`Error::LeaseExpired`]. If the partition heals before etcd expires the lease, the next
//! renewal restores minting and nothing changed hands. If it heals after, etcd has deleted
//! the key: the holder takes the same node ID again with a fresh lease, at once, if nobody
//! claimed it meanwhile (each claim is recorded in the node ID's claim key, so every ID minted
//! on it since is this holder's); if another process did, the generator stops for good with
//! [`Error::LeaseLost`], and a new lease is needed to mint again. Meanwhile the other side can
//! claim the node ID only after the lease expired, a TTL after the last keep-alive etcd
//! received, and mints above the cut-off holder's mark. Once its deadline has passed, a holder
//! sends no keep-alive until etcd answers within the round trip a renewal needs, so a holder
//! that cannot renew in time does not keep the node ID from others. A holder killed without
//! releasing frees its node ID the same way, about a TTL later.
//!
//! **Slow or far etcd.** A renewal is one round trip: its keep-alive and its mark write travel
//! together. Minting never stops under a steady one-way latency below
//! [`EtcdConfig::latency_bound`] (2.67 s at the defaults). Each endpoint has its own
//! connection; a renewal attempt not answered within half the interval is sent again to the
//! next endpoint, the first confirmation wins, and later renewals go first to the endpoint
//! that answered: one slow or dead member of a cluster costs no mint.
//!
//! **Choosing the TTL.** Shorter frees a dead holder's node ID sooner and bounds how long a
//! restart waits for the mark; longer rides out longer etcd hiccups and higher latency without
//! a stall. The default, 10 s with a 2 s margin, renews every 2.7 s after the last confirmed
//! renewal was sent: etcd may freeze for up to 5.3 s, or answer 2.67 s late each way, without
//! a stall (see [`EtcdConfig`]'s timing). Give the generator a `ClockBehind::Wait { max_ms }`
//! of at least the TTL, so that a start on a clock behind the last holder's mark waits instead
//! of failing; a generator whose clock is further behind than its policy waits hands the node
//! ID back at once ([`Error::ClockBehindMark`]).
//!
//! **Observing.** [`EtcdLease::stats`] counts refused mints, renewals and their round trips,
//! endpoint switches, lapses, re-takes and hand-backs ([`LeaseStats`]); with the `tracing`
//! feature each of those events is also logged.
//!
//! **Errors.** This crate's [`Error`]; a leased generator's methods return
//! [`snowmint::Error`], carrying the lease's refusals as the source of a
//! [`snowmint::Error::MarkStore`] ([`Error::of`] and [`Error::from`] take them out).
//!
//! The build needs `protoc` (etcd-client's; Debian's `protobuf-compiler` and
//! `libprotobuf-dev`). The CLI's `snowmint mint --etcd ENDPOINTS --prefix P` (`snowmint-cli`
//! with its `etcd` feature) leases the layout's first node field for one run.
//!
//! # Feature flags
//!
//! - **`tracing`** (off by default): `tracing` events (target `snowmint_etcd`) for a lease's
//!   claim, release and re-take (`info`), each confirmed renewal with its round trip
//!   (`debug`), a lapse, an endpoint switch, a key found gone and a hand-back (`warn`), and a
//!   loss (`error`). Pulls `tracing` 0.1.
//!
//! # Examples
//!
//! ```no_run
//! use snowmint::{ClockBehind, Layout};
//! use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
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
//! assert_eq!(generator.generator().decode(id)?.node("machine"), Some(generator.store().node_id()));
//! generator.shutdown()?; // lowers the mark to the last tick minted and revokes the lease
//! # Ok::<(), snowmint_etcd::Error>(())
//! ```

// The configuration, the lease and the generator over it, then what the lease runs on: the
// claim its thread hands over, the thread (`keeper`) and the fence every ID passes.
mod claim;
mod config;
mod error;
mod fence;
mod generator;
mod keeper;
mod lease;
mod stats;
mod trace;

pub use config::EtcdConfig;
pub use error::{Error, Result};
pub use generator::LeasedGenerator;
pub use lease::EtcdLease;
pub use stats::LeaseStats;
