//! `tracing` events from the cold paths (feature `tracing`): one per overflow, clock
//! regression, toggle and borrow. Without the feature the macro expands to `()`,
//! and its arguments are never evaluated. The hot path never calls it.

/// Emits a `tracing` event at `$level` (`debug`, `info`, `warn`, `error`) with target
/// `snowmint`.
#[cfg(feature = "tracing")]
macro_rules! event {
    ($level:ident, $($arg:tt)+) => {
        tracing::$level!(target: "snowmint", $($arg)+)
    };
}

/// Without the `tracing` feature: nothing.
#[cfg(not(feature = "tracing"))]
macro_rules! event {
    ($level:ident, $($arg:tt)+) => {
        ()
    };
}

pub(crate) use event;
