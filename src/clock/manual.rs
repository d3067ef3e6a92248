//! A clock set by hand.

use crate::sync::{Arc, AtomicU64, Ordering};

use super::interface::Clock;

/// A clock that reads what it was last set to: for tests, simulations and replays.
///
/// Clones share one reading, so a test keeps a clone and moves the time of a generator that
/// owns another. It can be set backwards, to exercise a generator's
/// [`ClockBehind`](crate::ClockBehind) policy.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::ManualClock};
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(clock.clone())
///     .build()?;
/// let first = generator.mint()?;
/// clock.advance(5);
/// let later = Layout::TWITTER.decode(generator.mint()?)?;
/// assert!(later.id() > first);
/// assert_eq!(later.unix_ms(), 1_700_000_000_005);
/// assert_eq!(later.sequence(), 0);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    unix_ms: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock that reads `unix_ms`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::ManualClock};
    ///
    /// assert_eq!(ManualClock::new(1_700_000_000_000).unix_ms(), 1_700_000_000_000);
    /// ```
    pub fn new(unix_ms: u64) -> Self {
        ManualClock {
            unix_ms: Arc::new(AtomicU64::new(unix_ms)),
        }
    }

    /// Sets the reading (forwards or backwards).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// clock.set(1_600_000_000_000);
    /// assert_eq!(clock.unix_ms(), 1_600_000_000_000);
    /// ```
    pub fn set(&self, unix_ms: u64) {
        // Release/Acquire: a thread that sees a generator state minted at this reading, and
        // then reads this clock, reads at least this value.
        self.unix_ms.store(unix_ms, Ordering::Release);
    }

    /// Moves the reading forward by `ms`, saturating at `u64::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// clock.clone().advance(5); // clones share the reading
    /// assert_eq!(clock.unix_ms(), 1_700_000_000_005);
    /// clock.advance(u64::MAX);
    /// assert_eq!(clock.unix_ms(), u64::MAX);
    /// ```
    pub fn advance(&self, ms: u64) {
        // A CAS loop: AcqRel publishes the new reading like `set`, Acquire reads the current.
        let _ = self
            .unix_ms
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                Some(now.saturating_add(ms))
            });
    }
}

impl Clock for ManualClock {
    #[inline]
    fn unix_ms(&self) -> u64 {
        self.unix_ms.load(Ordering::Acquire)
    }
}
