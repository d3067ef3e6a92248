//! The [`Clock`] trait, sealed in its one internal method, and its impls for references
//! and `Arc`s of clocks.

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
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(Frozen(1_656_432_460_105))
///     .build()?;
/// let parts = Layout::TWITTER.decode(generator.mint()?)?;
/// assert_eq!(parts.unix_ms(), 1_656_432_460_105);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Clock {
    /// The current time in milliseconds since the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    /// use std::time::{SystemTime, UNIX_EPOCH};
    ///
    /// let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    /// assert!(MonotonicClock::new().unix_ms().abs_diff(wall) < 1_000);
    /// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::{CachedClock, ManualClock}};
    ///
    /// let source = ManualClock::new(1_700_000_000_000);
    /// let cached = CachedClock::new(source.clone());
    /// cached.unix_ms(); // starts the refresher
    /// source.advance(3);
    /// assert_eq!(cached.unix_ms_precise(), 1_700_000_000_003); // read from the source
    /// assert_eq!(source.unix_ms_precise(), source.unix_ms()); // the default: `unix_ms`
    /// ```
    ///
    /// [`CachedClock`]: super::CachedClock
    fn unix_ms_precise(&self) -> u64 {
        self.unix_ms()
    }

    /// A generator's fast-path reading: the clock's reading as cheaply as it can give it,
    /// which may be a value below `cached::FIRST_READING` (before November 2004) when the
    /// clock has no fresh reading to give; the generator then takes its slow path, which reads
    /// [`unix_ms`](Clock::unix_ms). The default is `unix_ms`. A [`CachedClock`] returns its
    /// word as it stands, so the check for "no fresh reading" is the generator's range check.
    ///
    /// Sealed: only snowmint can name [`Token`](seal::Token), so only snowmint calls or
    /// overrides this method.
    ///
    /// [`CachedClock`]: super::CachedClock
    #[doc(hidden)]
    #[inline]
    fn unix_ms_or_stale(&self, _: seal::Token) -> u64 {
        self.unix_ms()
    }

    /// Whether a forked child of this process never gets from
    /// [`unix_ms_or_stale`](Clock::unix_ms_or_stale) a reading (a value from
    /// `cached::FIRST_READING` up) this clock gave before the fork. A generator's confirmed
    /// step mints on the tick of a reading a swap confirmed while the clock still gives that
    /// reading; on such a clock, an inherited generator's confirmed reading never comes again
    /// in the child, so the step needs no fork check. `false` unless the clock
    /// says so: a [`CachedClock`] does (its word takes, in a child, only readings above every
    /// one it held before the fork).
    ///
    /// Sealed, as [`unix_ms_or_stale`](Clock::unix_ms_or_stale).
    ///
    /// [`CachedClock`]: super::CachedClock
    #[doc(hidden)]
    #[inline(always)]
    fn fork_fenced(&self, _: seal::Token) -> bool {
        false
    }
}

/// The argument that seals [`Clock::unix_ms_or_stale`]: a type of no size that no path
/// outside snowmint names.
pub(crate) mod seal {
    /// Passed to [`Clock::unix_ms_or_stale`](super::Clock::unix_ms_or_stale) by snowmint's
    /// generators.
    #[derive(Debug, Clone, Copy)]
    pub struct Token;
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

    #[inline]
    fn unix_ms_or_stale(&self, seal: seal::Token) -> u64 {
        (**self).unix_ms_or_stale(seal)
    }

    #[inline(always)]
    fn fork_fenced(&self, seal: seal::Token) -> bool {
        (**self).fork_fenced(seal)
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

    #[inline]
    fn unix_ms_or_stale(&self, seal: seal::Token) -> u64 {
        (**self).unix_ms_or_stale(seal)
    }

    #[inline(always)]
    fn fork_fenced(&self, seal: seal::Token) -> bool {
        (**self).fork_fenced(seal)
    }
}
