//! Clocks and clock faults: where time comes from, what a generator does when the clock goes
//! back, and how it survives a restart.
//!
//! NTP steps the wall clock back, VMs pause, and containers restart on a host whose clock is
//! behind the last ID they minted. Through all of it a generator never repeats an ID: what it
//! does instead is its [`ClockBehind`] policy, and it says so in an error or in its
//! [`Stats`].
//!
//! # Where time comes from
//!
//! Every generator reads [`CachedClock::global`] unless its builder is given another
//! [`Clock`]: one load of a reading a background thread keeps fresh from a [`MonotonicClock`].
//! [`CachedClock`] says how fresh, what a lag costs (neither capacity nor correctness), and
//! what happens when no thread can start; [After `fork()`](#after-fork) says what a child
//! gets.
//!
//! [`MonotonicClock`] is quanta's counter anchored to the wall clock and re-checked once a
//! second: drift is slewed (never a step back), steps forward are followed at once, and a step
//! back above the threshold (10 ms) is reported to the generator's policy
//! ([`WallClockBack::Report`]) or run off at half speed ([`WallClockBack::Slew`]). Use it
//! directly for a process that must run no background thread, or give
//! [`CachedClock::new`] a source of your own. [`ManualClock`] is set by hand, for tests; any
//! type implementing [`Clock`] can drive a generator.
//!
//! The [clock module's table](crate::clock#choosing-a-clock) says, for each clock, what a
//! reading costs, how fresh it is, and what it does on a step back, on drift, when idle, after
//! `fork()` and with a starved refresh thread.
//!
//! ```
//! use snowmint::{Generator, Layout, clock::{CachedClock, MonotonicClock, WallClockBack}};
//! use std::time::Duration;
//!
//! // No background thread: the anchored counter, read on every mint.
//! let clock = MonotonicClock::builder()
//!     .recheck(Duration::from_millis(500))
//!     .on_wall_clock_back(WallClockBack::Slew)
//!     .build();
//! let generator = Generator::builder(Layout::TWITTER)
//!     .node("machine", 1)
//!     .clock(clock)
//!     .build()?;
//! assert!(generator.mint()? < generator.mint()?);
//!
//! // The default clock, explicitly, and a private cache over a clock of your own.
//! let builder = Generator::builder(Layout::TWITTER).node("machine", 1);
//! let default = builder.clone().clock(CachedClock::global()).build()?;
//! let own = builder.clock(CachedClock::new(MonotonicClock::new())).build()?;
//! assert!(default.mint()? < default.mint()? && own.mint()? < own.mint()?);
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # After `fork()`
//!
//! The child of a `fork()` has only the thread that forked, and a copy of everything else as
//! it stood at that instant. The clocks are correct in the child whenever the fork comes, also
//! while another thread of the parent is in the middle of one of their steps:
//!
//! - A cached clock's reading is marked stale in the child (by a `pthread_atfork` handler), so
//!   the child's first read takes its source's time and starts a refresher thread of the
//!   child's own, through clocks inherited from the parent and new ones alike.
//! - A [`MonotonicClock`] goes on from its parent's anchor, and re-anchors in the child as it
//!   would have in the parent.
//! - A fork never splits the steps that would leave something half done in the child: the
//!   process-wide clock's first initialisation (which also calibrates quanta's counter, once
//!   per process), building a [`MonotonicClock`], a re-anchor, and starting a refresher. A
//!   fork that comes during one of them waits until it ends (under a millisecond; a re-anchor
//!   takes microseconds). The other way round, a reading of a clock that is already made never
//!   waits for a fork: a re-anchor or a refresher's wake-up due while a fork is under way is
//!   left to a later reading. Only the process's first reading of the default clock and the
//!   building of a [`MonotonicClock`] wait for a fork under way, until it returns.
//!
//! So a child's first read never hangs, its clock never runs slow, and its cached readings
//! never go stale for want of a refresher. A generator is another matter: one built in the
//! parent would repeat the parent's IDs in the child (see [`Error::Forked`]).
//!
//! # Clock faults
//!
//! A reading behind the last minted tick is a regression. A generator never mints below its
//! last tick on a timeline; its [`ClockBehind`] policy (set with
//! [`GeneratorBuilder::on_clock_behind`]; the table on [`ClockBehind`] compares them) waits a
//! bounded time, fails with [`Error::ClockBehind`], or, on a layout with a tick-tock bit
//! ([`LayoutBuilder::tick_tock`], as in sno), moves to the other timeline and keeps minting at
//! the earlier time. The tick-tock bit, the time and the sequence change together in the
//! generator's one `AtomicU64`, in one compare-and-swap. Each timeline's highest minted tick is
//! kept on the cold path, and a generator enters a timeline only above it, so the two
//! timelines never overlap.
//!
//! ```
//! use snowmint::{ClockBehind, Error, Generator, Layout, clock::ManualClock};
//!
//! // Twitter's shape with one machine bit given to tick-tock.
//! let layout = Layout::builder("twitter-tt", 64)
//!     .unused(1)
//!     .time(41)
//!     .tick_tock()
//!     .node("machine", 9)
//!     .sequence(12)
//!     .epoch_ms(1_288_834_974_657)
//!     .build()?;
//! let clock = ManualClock::new(1_700_000_000_000);
//! let generator = Generator::builder(layout)
//!     .node("machine", 1)
//!     .clock(clock.clone())
//!     .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
//!     .build()?;
//! let before = generator.decode(generator.mint()?)?;
//! clock.set(1_699_999_999_000); // NTP steps the clock back one second
//! let after = generator.decode(generator.mint()?)?; // no wait, no error
//! assert_eq!(after.unix_ms(), 1_699_999_999_000);
//! assert_eq!((before.timeline(), after.timeline()), (Some(0), Some(1)));
//! assert_eq!(generator.stats().toggles, 1);
//!
//! // With `Error`, the same kind of step back fails, saying how far behind the clock is.
//! let clock = ManualClock::new(1_700_000_000_000);
//! let generator = Generator::builder(Layout::TWITTER)
//!     .node("machine", 1)
//!     .clock(clock.clone())
//!     .on_clock_behind(ClockBehind::Error)
//!     .build()?;
//! let first = generator.mint()?;
//! clock.set(1_699_999_999_750);
//! assert!(matches!(generator.mint(), Err(Error::ClockBehind { behind_ms: 250, .. })));
//! clock.set(1_700_000_000_001);
//! assert!(generator.mint()? > first); // never a repeated or lower ID
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Restarts
//!
//! A clean shutdown can hand its state on: [`Generator::snapshot`] exports the layout, node
//! fields, last tick, sequence and timelines, and [`Generator::resume`] builds a generator
//! that continues above them. Take the snapshot once minting has stopped. If the host clock is
//! now behind the snapshot, the resumed generator's policy applies: it never repeats an ID
//! minted before the restart. With the `serde` feature, [`Snapshot`] and [`Layout`] serialize
//! (a stored layout is checked again when it is read back).
//!
//! A crash leaves no snapshot. A [`MarkFile`] keeps a mark ahead of minting instead: a
//! [`MarkedGenerator`] over the file durably writes `time + interval` to it before it returns
//! the first ID at or past the current mark, so every ID it ever returned is below the mark on
//! disk, and [`MarkFile::resume`] starts the next process above it. Per ID that costs one
//! relaxed load and a compare; per interval of ID time, one durable write (the guarantee and
//! the cost are detailed on [`MarkFile`]). The file's [`MarkFileStore`] is one [`MarkStore`];
//! the etcd lease ([`fleets`](super::fleets)) is another of the same idea.
//!
//! ```
//! use snowmint::{ClockBehind, Generator, Layout, clock::ManualClock};
//! use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
//! use std::time::Duration;
//!
//! // A clean restart: snapshot, resume, continue above.
//! let clock = ManualClock::new(1_700_000_000_000);
//! let generator = Generator::builder(Layout::TWITTER).node("machine", 5).clock(&clock).build()?;
//! let last = generator.mint()?;
//! let snapshot = generator.snapshot();
//! let resumed = Generator::resume(&snapshot).clock(&clock).build()?;
//! assert!(resumed.mint()? > last);
//!
//! // A crash, then a restart on a clock 500 ms behind: an error, never a repeated ID.
//! let path = std::env::temp_dir().join(format!("snowmint-guide-{}.mark", std::process::id()));
//! let file = MarkFile::open(&path, Duration::from_secs(1))?;
//! let generator = file.resume(Layout::TWITTER).node("machine", 5).clock(clock.clone()).build()?;
//! let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
//! let id = generator.mint()?;
//! assert!(generator.mark() > Layout::TWITTER.decode(id)?.unix_ms());
//! drop(generator); // no snapshot
//!
//! clock.set(1_699_999_999_500);
//! let file = MarkFile::open(&path, Duration::from_secs(1))?;
//! let generator = file
//!     .resume(Layout::TWITTER).node("machine", 5)
//!     .clock(clock.clone())
//!     .on_clock_behind(ClockBehind::Error)
//!     .build()?;
//! let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
//! assert!(generator.mint().is_err()); // behind the mark: fails instead of repeating
//! std::fs::remove_file(&path).ok();
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # Counters and notifications
//!
//! [`Generator::stats`] returns the [`Stats`] so far: overflows (mints that found their tick
//! full), waits, regressions, tick-tock toggles and borrowed ticks. They are updated on the
//! cold paths only, on a cache line of their own, so reading them costs minting nothing.
//!
//! [`GeneratorBuilder::notify`] sends an [`Event`] to a bounded channel when a thread stalls on
//! a full tick or a regression is handled, at most once per tick of each kind, without ever
//! waiting for the receiver. A steady stream of [`Event::Overflow`] means the generator is
//! over its layout's capacity, not bursting: see [`throughput`](super::throughput).
//!
//! [`CachedClock`]: crate::clock::CachedClock
//! [`CachedClock::global`]: crate::clock::CachedClock::global
//! [`CachedClock::new`]: crate::clock::CachedClock::new
//! [`Clock`]: crate::Clock
//! [`ClockBehind`]: crate::ClockBehind
//! [`Error::ClockBehind`]: crate::Error::ClockBehind
//! [`Error::Forked`]: crate::Error::Forked
//! [`Event`]: crate::generator::Event
//! [`Event::Overflow`]: crate::generator::Event::Overflow
//! [`MarkedGenerator`]: crate::mark::MarkedGenerator
//! [`Generator::resume`]: crate::Generator::resume
//! [`Generator::snapshot`]: crate::Generator::snapshot
//! [`Generator::stats`]: crate::Generator::stats
//! [`GeneratorBuilder::notify`]: crate::GeneratorBuilder::notify
//! [`GeneratorBuilder::on_clock_behind`]: crate::GeneratorBuilder::on_clock_behind
//! [`MarkFile`]: crate::mark::MarkFile
//! [`MarkFile::resume`]: crate::mark::MarkFile::resume
//! [`Layout`]: crate::Layout
//! [`LayoutBuilder::tick_tock`]: crate::layout::LayoutBuilder::tick_tock
//! [`ManualClock`]: crate::clock::ManualClock
//! [`MarkStore`]: crate::mark::MarkStore
//! [`MonotonicClock`]: crate::clock::MonotonicClock
//! [`MarkFileStore`]: crate::mark::MarkFileStore
//! [`Snapshot`]: crate::Snapshot
//! [`Stats`]: crate::generator::Stats
//! [`WallClockBack::Report`]: crate::clock::WallClockBack::Report
//! [`WallClockBack::Slew`]: crate::clock::WallClockBack::Slew
