//! Minting in Tokio tasks: [`MintAsync`] gives every generator `mint_async` and
//! `mint_batch_async`, which wait on Tokio's timer where [`Mint::mint`] waits on the thread.
//!
//! A generator waits for the next tick when the current one is full, and for a clock that reads
//! behind its last tick when its [`ClockBehind`](crate::ClockBehind) policy is `Wait` (or
//! `TickTock` and it cannot toggle). The async methods never wait on the thread and never spin:
//! each attempt is [`Mint::mint_or_wait`] (or [`Mint::mint_batch_or_wait`]), and between
//! attempts the task sleeps on [`tokio::time`](::tokio::time) for as long as its
//! [`Attempt::Wait`](crate::Attempt::Wait) says (until the next tick, or until the clock
//! catches up), so the executor thread runs other tasks meanwhile. The
//! policy's bounds hold as for the blocking mint: a regression of more than `max_ms`, or one
//! that lasts longer than `max_ms` in total, is the same [`Error::ClockBehind`](crate::Error::ClockBehind) that
//! [`Mint::mint`] returns.
//!
//! The futures are cancel safe: dropped at any point, they have reserved nothing and leave the
//! generator as if they had never been polled. They are `Send` when the generator is `Sync`,
//! so any worker of a multi-thread runtime may run them; a
//! [`LocalGenerator`](crate::LocalGenerator) mints in a local task
//! ([`tokio::task::LocalSet`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html), or a
//! current-thread runtime).
//!
//! # Which generator keeps a task's IDs in order
//!
//! A task's IDs are in the order of the generator it mints from, and a task moves between
//! worker threads. A shared [`Generator`](crate::Generator) (and a marked, leased, sno or
//! 128-bit generator over one) returns each ID above every ID it returned before, on any
//! thread, so each task's IDs increase wherever it runs. A
//! [`ShardedGenerator`](crate::shard::ShardedGenerator) keeps its order per thread: a task that
//! moves to another worker mints from that worker's shard, so its IDs are unique and ordered
//! by time to the tick, but one may be below the task's previous one. Mint from a shared
//! generator where a task's IDs must increase (a log or a cursor keyed by ID).
//!
//! One wait stays on the thread: a [`MarkedGenerator`](crate::mark::MarkedGenerator) over a
//! mark file writes the file (durably) on the minting thread once per interval of ID
//! time, as its blocking mint does.
//!
//! # Examples
//!
//! ```
//! use snowmint::tokio::MintAsync;
//! use snowmint::{Generator, Id, Layout};
//!
//! # fn main() -> snowmint::Result<()> {
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
//! let generator = Generator::builder(Layout::SONYFLAKE).node("machine", 1).build()?;
//! runtime.block_on(async {
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
//!
//! Tasks spawned on a multi-thread runtime, each minting from one shared generator: each task's
//! IDs increase, whichever workers run it.
//!
//! ```
//! use snowmint::tokio::MintAsync;
//! use snowmint::{Generator, Layout};
//! use std::sync::Arc;
//!
//! # fn main() -> snowmint::Result<()> {
//! let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_time().build().unwrap();
//! let generator = Arc::new(Generator::builder(Layout::TWITTER).node("machine", 1).build()?);
//! runtime.block_on(async {
//!     let tasks: Vec<_> = (0..16)
//!         .map(|_| {
//!             let generator = Arc::clone(&generator);
//!             tokio::spawn(async move {
//!                 let mut ids = Vec::new();
//!                 for _ in 0..1_000 {
//!                     ids.push(generator.mint_async().await?);
//!                     tokio::task::yield_now().await; // free to move to another worker
//!                 }
//!                 Ok::<_, snowmint::Error>(ids)
//!             })
//!         })
//!         .collect();
//!     for task in tasks {
//!         let ids = task.await.unwrap()?;
//!         assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
//!     }
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

/// Tokio's timer.
struct Tokio;

impl Timer for Tokio {
    type Sleep = Pin<Box<::tokio::time::Sleep>>;

    fn sleep(duration: Duration) -> Self::Sleep {
        Box::pin(::tokio::time::sleep(duration))
    }

    fn reset(sleep: &mut Self::Sleep, duration: Duration) {
        sleep
            .as_mut()
            .reset(::tokio::time::Instant::now() + duration);
    }
}

/// Minting that waits on Tokio's timer: [`mint_async`](Self::mint_async) and
/// [`mint_batch_async`](Self::mint_batch_async) on every [`Mint`] generator: [`Generator`],
/// [`LocalGenerator`], [`ShardedGenerator`], [`MarkedGenerator`], the 128-bit
/// [`Uuid7Generator`] and [`UlidGenerator`], and [`SnoGenerator`] (a blanket impl over
/// [`Mint`], so a generator of your own that implements it gets these too). See the
/// [module docs](self) for how it waits.
///
/// # Examples
///
/// ```
/// use snowmint::tokio::MintAsync;
/// use snowmint::{Generator, Layout};
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> snowmint::Result<()> {
///     let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_local()?;
///     let a = generator.mint_async().await?;
///     let b = generator.mint_async().await?;
///     assert!(b > a);
///     Ok(())
/// }
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
    /// Mints the next ID as [`mint`](Mint::mint) does, sleeping on Tokio's timer (never on the
    /// thread) when the tick is full or the policy waits for the clock.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Mint::mint): [`Error::ClockBehind`](crate::Error::ClockBehind) when the
    /// clock reads behind by more than the policy's `max_ms`, or still after `max_ms` of sleep;
    /// [`Error::Forked`](crate::Error::Forked) at once, never retried, in the child of a
    /// `fork()` of the process that built the generator.
    ///
    /// # Panics
    ///
    /// When it must sleep outside a Tokio runtime with the time driver enabled.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: each attempt reserves its ID and returns it in the same poll,
    /// so a future dropped before it completes (in `select!`, under a timeout) has minted
    /// nothing, and the generator is as if it had never been polled.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::tokio::MintAsync;
    /// use snowmint::sno::SnoGenerator;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> snowmint::Result<()> {
    /// let generator = SnoGenerator::builder().partition(7).build()?;
    /// assert_eq!(generator.mint_async().await?.partition(), 7);
    /// # Ok(())
    /// # }
    /// ```
    fn mint_async(&self) -> MintFuture<'_, Self>;

    /// Mints up to `out.len()` consecutive IDs of one tick as [`mint_batch`](Mint::mint_batch)
    /// does, writes them to the front of `out` and returns how many, sleeping on Tokio's timer
    /// (never on the thread) when the tick is full or the policy waits for the clock.
    ///
    /// # Errors
    ///
    /// As for [`mint_async`](Self::mint_async). Nothing is handed out on error.
    ///
    /// # Panics
    ///
    /// As for [`mint_async`](Self::mint_async).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: `out` is written only by the poll that completes the future,
    /// so a future dropped before then has minted nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::tokio::MintAsync;
    /// use snowmint::{Generator, Id, Layout};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> snowmint::Result<()> {
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let mut ids = [Id::default(); 64];
    /// let written = generator.mint_batch_async(&mut ids).await?;
    /// assert!(ids[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok(())
    /// # }
    /// ```
    fn mint_batch_async<'a>(&'a self, out: &'a mut [Self::Id]) -> MintBatchFuture<'a, Self>;
}

super::futures_on!(Tokio);
