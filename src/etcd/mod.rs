//! Node IDs leased from etcd, fenced by a local deadline and a mark kept in etcd
//! (feature `etcd`).
//!
//! - [`EtcdConfig`] (`config.rs`): endpoints, key prefix, node range, TTL, margin.
//! - [`EtcdLease`] (`lease.rs`): claims the lowest free node ID; `keeper.rs` is the thread
//!   that claims, renews and releases it.
//! - `fence.rs`: the deadline and the mark every leased ID is checked against, on the boot
//!   clock.
//! - [`LeasedGenerator`] (`generator.rs`): a generator that mints only inside the fence.

// Under the `docs` feature alone the keeper is a stub, so what only the real one uses is unused.
#![cfg_attr(not(feature = "etcd"), allow(dead_code))]

mod claim;
mod config;
mod fence;
mod generator;
// Without etcd-client (the `docs` feature alone), a keeper that only documents.
#[cfg_attr(not(feature = "etcd"), path = "keeper_docs.rs")]
mod keeper;
mod lease;

pub use config::EtcdConfig;
pub use generator::LeasedGenerator;
pub use lease::EtcdLease;
