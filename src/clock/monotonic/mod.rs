//! The default clock's source: quanta's monotonic counter, re-anchored to the wall clock.
//!
//! A reading follows a *segment*: a line from a reading at a counter time, published in one
//! of two slots beside a generation word (`segment.rs`). Once a recheck interval, the first
//! reading past it takes the writer lock and re-anchors: it measures the wall clock against
//! the counter (`source.rs`) and publishes the next segment, slewing or stepping to it.
//! Segments, why readings never go back (the orderings), and a fork during a re-anchor: [the
//! internals page](crate::docs::internals#the-monotonic-clock).

mod anchored;
mod builder;
mod segment;
mod source;
#[cfg(test)]
mod tests;

pub use anchored::MonotonicClock;
pub use builder::{MonotonicClockBuilder, WallClockBack};
#[cfg(snowmint_loom)]
pub use source::DrivenSource;
