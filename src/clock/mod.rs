//! Where generators read the time.
//!
//! [`Clock`] is one method: the current time in Unix milliseconds. The default,
//! [`MonotonicClock`], reads quanta's monotonic counter plus an offset to the wall clock that
//! it re-checks off the reading path; what it does when the wall clock goes back is its
//! [`WallClockBack`] mode. [`CachedClock`] wraps a clock and serves a reading a background
//! thread refreshes, for hot paths where even a counter read costs too much; [`GlobalClock`] is
//! the process's one such clock, read from a `static`. [`ManualClock`] is
//! set by hand, for tests and simulations.

#[cfg(not(loom))]
mod cached;
#[cfg(not(loom))]
mod global;
mod manual;
mod monotonic;

#[cfg(not(loom))]
pub use cached::CachedClock;
#[cfg(not(loom))]
pub use global::GlobalClock;
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

    /// The current time as fresh as this clock can read it, for the places where a stale
    /// reading would cost: a generator reads it when its tick is full (a stale reading would
    /// wait for a tick that has already begun) and before it treats a reading behind its last
    /// tick as a regression (a stale reading is not one). Every other mint reads
    /// [`unix_ms`](Clock::unix_ms).
    ///
    /// The default is `unix_ms`. A clock whose `unix_ms` may lag, like [`CachedClock`],
    /// overrides it with a read of its source; it must never read behind what `unix_ms` read
    /// before it, unless the time really went back.
    fn unix_ms_precise(&self) -> u64 {
        self.unix_ms()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn unix_ms(&self) -> u64 {
        (**self).unix_ms()
    }

    #[inline]
    fn unix_ms_precise(&self) -> u64 {
        (**self).unix_ms_precise()
    }
}

impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    #[inline]
    fn unix_ms(&self) -> u64 {
        (**self).unix_ms()
    }

    #[inline]
    fn unix_ms_precise(&self) -> u64 {
        (**self).unix_ms_precise()
    }
}
