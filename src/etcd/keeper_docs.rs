//! The keeper under the `docs` feature without `etcd`: the same crate-private interface as
//! `keeper.rs`, without etcd-client (whose build needs `protoc`), so the `etcd` module's public
//! items are documented with nothing but cargo. Claiming fails: no lease is ever held.

use super::claim::{Claim, NextTime};
use super::config::EtcdConfig;
use crate::error::{Error, Result};

/// No thread: there is no value of this type.
#[derive(Debug)]
pub(crate) enum Keeper {}

impl Keeper {
    /// Fails: this build has no etcd client.
    pub(crate) fn claim(config: &EtcdConfig) -> Result<(Keeper, Claim)> {
        config.check()?;
        Err(Error::Etcd {
            operation: "connect",
            endpoints: config.endpoint_list(),
            reason: "snowmint was built with its `docs` feature and without `etcd`, so it has no \
                     etcd client"
                .to_owned(),
        })
    }

    pub(crate) fn attach(&self, _next_time: NextTime) -> Result<()> {
        match *self {}
    }

    pub(crate) fn release(&self, _final_mark: Option<u64>) -> Result<()> {
        match *self {}
    }
}
