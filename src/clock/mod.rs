//! Where generators read the time.
//!
//! [`Clock`] is one method: the current time in Unix milliseconds. The default,
//! [`MonotonicClock`], reads quanta's monotonic counter plus an offset to the wall clock that
//! it re-checks off the reading path; what it does when the wall clock goes back is its
//! [`WallClockBack`] mode. [`ManualClock`] is set by hand, for tests and simulations.

mod manual;
mod monotonic;

pub use manual::ManualClock;
pub use monotonic::{MonotonicClock, MonotonicClockBuilder, WallClockBack};

/// A source of time for a generator.
///
/// A generator reads its clock once per mint attempt, so `unix_ms` is on the hot path: keep it
/// to a counter read and a little arithmetic (no system call, no lock).
///
/// A clock may go backwards (a custom clock following the wall clock, say); the generator
/// detects that and applies its [`ClockBehind`](crate::ClockBehind) policy.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, Generator, Layout};
///
/// /// A clock stuck at one instant.
/// struct Frozen(u64);
///
/// impl Clock for Frozen {
///     fn unix_ms(&self) -> u64 {
///         self.0
///     }
/// }
///
/// let generator = Generator::builder(Layout::TWITTER).clock(Frozen(1_656_432_460_105)).build()?;
/// let parts = Layout::TWITTER.decode(generator.mint()?)?;
/// assert_eq!(parts.timestamp_ms(), 1_656_432_460_105);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Clock {
    /// The current time in milliseconds since the Unix epoch.
    fn unix_ms(&self) -> u64;
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn unix_ms(&self) -> u64 {
        (**self).unix_ms()
    }
}

impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    #[inline]
    fn unix_ms(&self) -> u64 {
        (**self).unix_ms()
    }
}
