//! Minting in smol tasks: [`MintAsync`] gives every generator `mint_async` and
//! `mint_batch_async`, which wait on smol's timer where [`Mint::mint`] waits on the thread.
//!
//! The timer is [`async_io::Timer`], the timer of smol's reactor.
//!
//! A generator waits for the next tick when the current one is full, and for a clock that reads
//! behind its last tick when its [`ClockBehind`](crate::ClockBehind) policy is `Wait` (or
//! `TickTock` and it cannot toggle). The async methods never wait on the thread and never spin:
//! each attempt is [`Mint::mint_or_wait`] (or [`Mint::mint_batch_or_wait`]), and between
//! attempts the task sleeps on the timer for as long as its [`Attempt::Wait`](crate::Attempt::Wait)
//! says (until the next tick, or until the clock catches up), so the executor thread runs other tasks meanwhile. The policy's bounds hold as
//! for the blocking mint: a regression of more than `max_ms`, or one that lasts longer than
//! `max_ms` in total, is the same [`Error::ClockBehind`](crate::Error::ClockBehind) that
//! [`Mint::mint`] returns.
//!
//! The futures are cancel safe: dropped at any point, they have reserved nothing and leave the
//! generator as if they had never been polled. They are `Send` when the generator is `Sync`;
//! a [`LocalGenerator`](crate::LocalGenerator) mints in a local task (a `LocalExecutor`, or
//! `block_on`). The timer works on any executor: smol's reactor drives it, on the thread in
//! `block_on` and on its own thread otherwise.
//!
//! A task's IDs are in the order of the generator it mints from, and a task may move between
//! an executor's threads: a shared [`Generator`](crate::Generator) returns each ID above every
//! ID it returned before, on any thread, so each task's IDs increase; a
//! [`ShardedGenerator`](crate::shard::ShardedGenerator) keeps its order per thread, so a task
//! that moves between threads moves between shards, and one of its IDs may be below its
//! previous one. Mint from a shared generator where a task's IDs must increase.
//!
//! One wait stays on the thread: a [`MarkedGenerator`](crate::mark::MarkedGenerator) over a
//! mark file writes the file (durably) on the minting thread once per interval of ID
//! time, as its blocking mint does.
//!
//! # Examples
//!
//! ```
//! use snowmint::smol::MintAsync;
//! use snowmint::{Generator, Id, Layout};
//!
//! # fn main() -> snowmint::Result<()> {
//! let generator = Generator::builder(Layout::SONYFLAKE).node("machine", 1).build()?;
//! async_io::block_on(async {
//!     // 600 IDs: more than two 10 ms ticks hold (256 each), so the task sleeps between them.
//!     let mut ids = Vec::new();
//!     for _ in 0..600 {
//!         ids.push(generator.mint_async().await?);
//!     }
//!     assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
//!
//!     let mut batch = [Id::default(); 300];
//!     let written = generator.mint_batch_async(&mut batch).await?;
//!     assert!((1..=256).contains(&written)); // one tick's worth at most
//!     assert!(batch[0] > ids[599]);
//!     Ok(())
//! })
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::{Retry, Timer};
use crate::error::Result;
use crate::mint::Mint;

/// smol's timer.
struct Smol;

impl Timer for Smol {
    type Sleep = async_io::Timer;

    fn sleep(duration: Duration) -> Self::Sleep {
        async_io::Timer::after(duration)
    }

    fn reset(sleep: &mut Self::Sleep, duration: Duration) {
        sleep.set_after(duration);
    }
}

/// Minting that waits on smol's timer: [`mint_async`](Self::mint_async) and
/// [`mint_batch_async`](Self::mint_batch_async) on every [`Mint`] generator: [`Generator`],
/// [`LocalGenerator`], [`ShardedGenerator`], [`MarkedGenerator`], the 128-bit
/// [`Uuid7Generator`] and [`UlidGenerator`], and [`SnoGenerator`] (a blanket impl over
/// [`Mint`], so a generator of your own that implements it gets these too). See the
/// [module docs](self) for how it waits.
///
/// # Examples
///
/// ```
/// use snowmint::smol::MintAsync;
/// use snowmint::{Generator, Layout};
///
/// # fn main() -> snowmint::Result<()> {
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_local()?;
/// async_io::block_on(async {
///     let a = generator.mint_async().await?;
///     let b = generator.mint_async().await?;
///     assert!(b > a);
///     Ok(())
/// })
/// # }
/// ```
///
/// [`Generator`]: crate::Generator
/// [`LocalGenerator`]: crate::LocalGenerator
/// [`ShardedGenerator`]: crate::shard::ShardedGenerator
/// [`MarkedGenerator`]: crate::mark::MarkedGenerator
/// [`SnoGenerator`]: crate::sno::SnoGenerator
/// [`Uuid7Generator`]: crate::id128::Uuid7Generator
/// [`UlidGenerator`]: crate::id128::UlidGenerator
pub trait MintAsync: Mint {
    /// Mints the next ID as [`mint`](Mint::mint) does, sleeping on smol's timer (never on the
    /// thread) when the tick is full or the policy waits for the clock.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Mint::mint): [`Error::ClockBehind`](crate::Error::ClockBehind) when the
    /// clock reads behind by more than the policy's `max_ms`, or still after `max_ms` of sleep;
    /// [`Error::Forked`](crate::Error::Forked) at once, never retried, in the child of a
    /// `fork()` of the process that built the generator.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: each attempt reserves its ID and returns it in the same poll,
    /// so a future dropped before it completes (in a race, under a timeout) has minted
    /// nothing, and the generator is as if it had never been polled.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::smol::MintAsync;
    /// use snowmint::sno::SnoGenerator;
    ///
    /// # async_io::block_on(async {
    /// let generator = SnoGenerator::builder().partition(7).build()?;
    /// assert_eq!(generator.mint_async().await?.partition(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// # })?;
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint_async(&self) -> MintFuture<'_, Self>;

    /// Mints up to `out.len()` consecutive IDs of one tick as [`mint_batch`](Mint::mint_batch)
    /// does, writes them to the front of `out` and returns how many, sleeping on smol's timer
    /// (never on the thread) when the tick is full or the policy waits for the clock.
    ///
    /// # Errors
    ///
    /// As for [`mint_async`](Self::mint_async). Nothing is handed out on error.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: `out` is written only by the poll that completes the future,
    /// so a future dropped before then has minted nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::smol::MintAsync;
    /// use snowmint::{Generator, Id, Layout};
    ///
    /// # async_io::block_on(async {
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let mut ids = [Id::default(); 64];
    /// let written = generator.mint_batch_async(&mut ids).await?;
    /// assert!(ids[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// # })?;
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint_batch_async<'a>(&'a self, out: &'a mut [Self::Id]) -> MintBatchFuture<'a, Self>;
}

super::futures_on!(Smol);
