//! What a generator does when its clock reads behind ([`ClockBehind`]), and what it reports:
//! [`Event`]s and [`Stats`].

/// What a generator does when its clock reads behind the last tick it minted.
///
/// Regressions come from the wall clock going back (the default clock's
/// [`MonotonicClock`](crate::clock::MonotonicClock) source reports a step back unless built
/// with [`WallClockBack::Slew`](crate::clock::WallClockBack::Slew)), from restarts resumed from
/// a [`Snapshot`](crate::Snapshot) on a host whose clock is behind, and from a
/// [`ManualClock`](crate::clock::ManualClock) in a test. Whatever the policy, no ID is ever
/// repeated.
///
/// How far behind is measured to the earliest time the generator can mint at: the start of the
/// last minted tick, or of the tick after it when that one is full, less the ticks
/// [`borrow_ahead`](crate::GeneratorBuilder::borrow_ahead) lets the state run ahead of the
/// clock. That distance is what `max_ms` bounds, what
/// [`Error::ClockBehind`](crate::Error::ClockBehind)'s `behind_ms` says and what
/// [`mint_or_wait`](crate::Mint::mint_or_wait) answers as its wait, so that attempting again
/// after the wait mints. (Under `TickTock` a toggle may become possible sooner, once the clock
/// passes the other timeline's last minted tick; the distance does not count it.)
///
/// The counter's drift is never a regression: the default clock's source slews it (see the
/// [clock module's table](crate::clock#choosing-a-clock)); only a real step of the wall clock
/// back, above the source's step threshold, is.
///
/// | policy | on a regression | order of the IDs | pick it when |
/// |---|---|---|---|
/// | `Wait { max_ms }` (default, 1 s) | spins until the clock catches up, at most `max_ms` | strictly increasing | short regressions are rare and a stall is better than an error |
/// | `Error` | fails at once with [`Error::ClockBehind`](crate::Error::ClockBehind) | strictly increasing | the caller has a better fallback (retry elsewhere, shed load) |
/// | `TickTock { max_ms }` | keeps minting at the earlier time on the other timeline; a second regression into time the other timeline has used waits as `Wait { max_ms }` | increasing within each timeline; across a toggle, IDs sort by time first, then timeline (sno's order) | minting must not stall on a clock step back, and the layout has a tick-tock bit |
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Error, Generator, Layout, clock::ManualClock};
///
/// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 1_000);
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(clock.clone())
///     .on_clock_behind(ClockBehind::Error)
///     .build()?;
/// generator.mint()?;
/// clock.set(Layout::TWITTER.epoch_ms() + 990);
/// assert!(matches!(generator.mint(), Err(Error::ClockBehind { behind_ms: 10, .. })));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockBehind {
    /// Spin (politely: spin hints, then yielding) re-reading the clock until it catches up, for
    /// at most `max_ms` milliseconds of real time; fail with
    /// [`Error::ClockBehind`](crate::Error::ClockBehind) at once if the clock is more than
    /// `max_ms` behind, and when the wait runs out.
    Wait {
        /// The longest wait, and the largest regression waited out, in milliseconds.
        max_ms: u64,
    },
    /// Fail with [`Error::ClockBehind`](crate::Error::ClockBehind) at once, saying how far
    /// behind the clock reads.
    Error,
    /// Toggle the layout's tick-tock bit and keep minting at the earlier time on the other
    /// timeline, if that timeline has not minted at or after that time; otherwise behave as
    /// `Wait { max_ms }` (so `max_ms: 0` fails at once). Needs a layout with a tick-tock bit
    /// ([`LayoutBuilder::tick_tock`](crate::layout::LayoutBuilder::tick_tock)).
    TickTock {
        /// The longest wait, and the largest regression waited out, when toggling is not
        /// possible, in milliseconds.
        max_ms: u64,
    },
}

impl Default for ClockBehind {
    /// Wait out regressions of up to one second.
    fn default() -> Self {
        ClockBehind::Wait { max_ms: 1_000 }
    }
}

/// A notification of a stall or a regression, sent by a generator built with
/// [`GeneratorBuilder::notify`](crate::GeneratorBuilder::notify).
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Generator, Layout, clock::ManualClock, generator::Event};
/// use std::sync::mpsc;
///
/// let (tx, rx) = mpsc::sync_channel(16);
/// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(&clock)
///     .on_clock_behind(ClockBehind::Error)
///     .notify(tx)
///     .build()?;
/// generator.mint()?;
/// clock.set(Layout::TWITTER.epoch_ms() + 5);
/// assert!(generator.mint().is_err());
/// assert_eq!(rx.try_recv(), Ok(Event::Regression { last_tick: 10, clock_tick: 5 }));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A thread found tick `tick` full and waits for the next one.
    Overflow {
        /// The full tick, counted from the epoch.
        tick: u64,
    },
    /// A thread read the clock at tick `clock_tick`, behind the last minted tick `last_tick`;
    /// the generator's [`ClockBehind`] policy handles it.
    Regression {
        /// The last minted tick, counted from the epoch.
        last_tick: u64,
        /// The tick the clock read.
        clock_tick: u64,
    },
}

/// A generator's counters of the events its cold paths handled, read with
/// [`Generator::stats`](crate::Generator::stats).
///
/// Each counter only grows; reading them never slows minting (they are updated on cold paths
/// only, with relaxed increments on their own cache line).
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::ManualClock};
///
/// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
/// for _ in 0..4097 {
///     if generator.try_mint().is_err() {
///         clock.advance(1);
///     }
/// }
/// let stats = generator.stats();
/// assert_eq!((stats.overflows, stats.regressions, stats.toggles), (1, 0, 0));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Mints that found their tick's sequence exhausted.
    pub overflows: u64,
    /// Mints that waited: for a full tick to pass, or for a clock behind to catch up.
    pub waits: u64,
    /// Mints that read the clock behind the last minted tick.
    pub regressions: u64,
    /// Regressions handled by moving to the other timeline (tick-tock).
    pub toggles: u64,
    /// Ticks borrowed: full ticks answered by running ahead of the clock instead of waiting
    /// ([`GeneratorBuilder::borrow_ahead`](crate::GeneratorBuilder::borrow_ahead)), each
    /// counted once however many threads found it full.
    pub borrows: u64,
    /// The furthest ahead of the clock a borrow has taken the generator, in ticks: at most the
    /// bound given to [`GeneratorBuilder::borrow_ahead`](crate::GeneratorBuilder::borrow_ahead).
    pub max_ahead_ticks: u64,
    /// Events not sent because the channel given to
    /// [`GeneratorBuilder::notify`](crate::GeneratorBuilder::notify) was full.
    pub events_dropped: u64,
}
