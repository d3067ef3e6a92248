//! The integrations, each behind its feature, apart from the core: serde's forms of IDs,
//! layouts and snapshots, and node IDs leased from etcd (re-exported as `snowmint::etcd`).

#[cfg(feature = "etcd")]
#[cfg_attr(docsrs, doc(cfg(feature = "etcd")))]
pub mod etcd;
#[cfg(feature = "serde")]
pub(crate) mod serde;
