//! `tracing` events of the lease's cold paths, behind the `tracing` feature: without it the
//! macro expands to `()` (its arguments are not evaluated).

/// `event!(level, fields..., message)`: a `tracing` event at `level` with target
/// `snowmint_etcd`, or nothing without the feature.
#[cfg(feature = "tracing")]
macro_rules! event {
    ($level:ident, $($rest:tt)+) => {
        ::tracing::$level!(target: "snowmint_etcd", $($rest)+)
    };
}

#[cfg(not(feature = "tracing"))]
macro_rules! event {
    ($($rest:tt)*) => {
        ()
    };
}

pub(crate) use event;
