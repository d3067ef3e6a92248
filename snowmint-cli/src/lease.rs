//! `mint --etcd ENDPOINTS --prefix P [--ttl S]`: the layout's first node field leased from
//! etcd for the run (the lowest free value under P), the IDs minted under the lease's fence and
//! mark, and at exit the node ID's mark lowered to the last ID's tick and the lease revoked. A
//! run killed before that frees its node ID when the lease expires, S seconds later.
//!
//! This file is the command line's only tie to the etcd client. Without the `etcd` feature,
//! `--etcd` is an error that says how to build it in.

use snowmint::layout::Field;
use snowmint::{ClockBehind, Id, Layout};

use crate::failure::Failure;
use crate::id_kind::Minter;

/// The generator of a `mint --etcd` run on `layout`, with the other node fields as `nodes`
/// give them, on a node ID leased under `prefix` from the etcd cluster at `endpoints` (comma
/// separated) with a time to live of `ttl_s` seconds.
#[cfg(feature = "etcd")]
pub(crate) fn minter(
    layout: Layout,
    nodes: &[(&'static str, u64)],
    endpoints: &str,
    prefix: &str,
    ttl_s: u64,
    policy: ClockBehind,
) -> Result<Box<dyn Minter<Id>>, Failure> {
    use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
    use std::time::Duration;

    let field = leased_field(&layout, nodes)?;
    let config = EtcdConfig::new(endpoints.split(','), prefix, 0..=field.max())
        .ttl(Duration::from_secs(ttl_s));
    let lease = EtcdLease::claim(&config).map_err(failure)?;
    let builder = crate::args::with_nodes(lease.resume(layout, field.name()), nodes);
    let generator = builder.on_clock_behind(policy).build()?;
    let generator =
        LeasedGenerator::new(generator, lease).map_err(|error| failure(error.into()))?;
    Ok(Box::new(Leased(generator)))
}

/// Without the etcd feature, `--etcd` is an error that says how to get it.
#[cfg(not(feature = "etcd"))]
pub(crate) fn minter(
    layout: Layout,
    nodes: &[(&'static str, u64)],
    _endpoints: &str,
    _prefix: &str,
    _ttl_s: u64,
    _policy: ClockBehind,
) -> Result<Box<dyn Minter<Id>>, Failure> {
    leased_field(&layout, nodes)?;
    Err(Failure::Usage(
        "--etcd needs snowmint-cli built with its etcd feature (cargo install snowmint-cli \
         --features etcd)"
            .to_owned(),
    ))
}

/// A `mint --etcd` run: the generator fenced by its lease, which it releases at the end.
#[cfg(feature = "etcd")]
struct Leased<C>(snowmint_etcd::LeasedGenerator<C>);

#[cfg(feature = "etcd")]
impl<C: snowmint::clock::Clock + Send + Sync + 'static> Minter<Id> for Leased<C> {
    fn mint_batch(&mut self, out: &mut [Id]) -> Result<usize, Failure> {
        self.0
            .mint_batch(out)
            .map_err(|error| failure(error.into()))
    }

    /// Lowers the node ID's mark to the end of the last tick minted and revokes the lease.
    fn finish(self: Box<Self>, minted: Result<(), Failure>) -> Result<(), Failure> {
        let released = self.0.shutdown().map_err(|error| failure(error.into()));
        minted.and(released)
    }
}

/// An error of the lease (etcd, a full node range, a lease expired or lost, the mark reached)
/// is a failure at run time and an inconsistent configuration (`--ttl`) a usage error, each in
/// the lease's own words; a failed library call is the library's error as elsewhere.
#[cfg(feature = "etcd")]
fn failure(error: snowmint_etcd::Error) -> Failure {
    match error {
        snowmint_etcd::Error::Snowmint(error) => error.into(),
        error @ snowmint_etcd::Error::InvalidLeaseConfig { .. } => {
            Failure::Usage(error.to_string())
        }
        error => Failure::Runtime(Box::new(error)),
    }
}

/// The node field `--etcd` leases: the layout's first, which no node flag may give.
fn leased_field(layout: &Layout, nodes: &[(&'static str, u64)]) -> Result<Field, Failure> {
    let field = *layout.node_fields().next().ok_or_else(|| {
        Failure::Usage(format!(
            "layout {} has no node field for --etcd to lease; expected a layout with one",
            layout.name()
        ))
    })?;
    if let Some(&(name, value)) = nodes.iter().find(|&&(name, _)| name == field.name()) {
        return Err(Failure::Usage(format!(
            "--{name} {value} and --etcd both give the {name} id; omit --{name}"
        )));
    }
    Ok(field)
}
