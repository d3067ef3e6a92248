//! Minting in async code: the waits of [`Mint::mint`] taken on a runtime's timer instead of on
//! the thread. One retry loop ([`Retry`]) over a small sealed [`Timer`]; each runtime module
//! (`tokio`, `smol`) gives it its timer and its own `MintAsync` extension trait.
//!
//! Each attempt is [`Mint::mint_or_wait`] (or [`Mint::mint_batch_or_wait`]), which never
//! waits: it mints, or answers [`Attempt::Wait`] with how long to wait (until the next tick, or
//! until a clock behind catches up, within the [`ClockBehind`](crate::ClockBehind) policy's
//! bounds), and the task sleeps that long on its runtime's timer before the next attempt.
//! Every attempt is one reservation (one compare-and-swap), complete when it returns: nothing
//! is reserved across an `.await`, so dropping the future at any point loses nothing.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use crate::error::Result;
use crate::mint::Attempt;
#[cfg(doc)]
use crate::mint::Mint;

#[cfg(feature = "smol")]
#[cfg_attr(docsrs, doc(cfg(feature = "smol")))]
pub mod smol;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod tokio;

/// A runtime's timer, as an async mint sleeps on it.
pub(crate) trait Timer {
    /// A sleep, armed by [`sleep`](Self::sleep) and re-armed by [`reset`](Self::reset); what it
    /// resolves to is not used.
    type Sleep: Future + Unpin;

    /// A sleep that ends `duration` from now.
    fn sleep(duration: Duration) -> Self::Sleep;

    /// Re-arms `sleep` to end `duration` from now.
    fn reset(sleep: &mut Self::Sleep, duration: Duration);
}

/// The state one async mint keeps between its attempts: the sleep it waits on.
pub(crate) struct Retry<T: Timer> {
    /// Kept once made, so a mint that waits many times makes one sleep.
    sleep: Option<T::Sleep>,
    /// Whether `sleep` is armed: the next poll waits for it before attempting.
    armed: bool,
}

impl<T: Timer> Retry<T> {
    pub(crate) fn new() -> Self {
        Retry {
            sleep: None,
            armed: false,
        }
    }

    /// Attempts with `attempt` (an `_or_wait` mint, which never waits), sleeping on the timer
    /// for as long as each [`Attempt::Wait`] says, until an attempt mints or fails.
    pub(crate) fn poll_mint<R>(
        &mut self,
        cx: &mut Context<'_>,
        mut attempt: impl FnMut() -> Result<Attempt<R>>,
    ) -> Poll<Result<R>> {
        loop {
            if self.armed {
                if let Some(sleep) = &mut self.sleep {
                    ready!(Pin::new(sleep).poll(cx));
                }
                self.armed = false;
            }
            let wait = match attempt() {
                Ok(Attempt::Minted(minted)) => return Poll::Ready(Ok(minted)),
                Ok(Attempt::Wait(wait)) => wait,
                Err(err) => return Poll::Ready(Err(err)),
            };
            match &mut self.sleep {
                Some(sleep) => T::reset(sleep, wait),
                None => self.sleep = Some(T::sleep(wait)),
            }
            self.armed = true;
        }
    }
}

/// The futures of a runtime module's `MintAsync` (`MintFuture`, `MintBatchFuture`) and its
/// implementation for every [`Mint`](crate::Mint) generator, on the timer `$timer`: written
/// once here, expanded in each runtime module beside its own trait and docs.
macro_rules! futures_on {
    ($timer:ty) => {
        impl<G: Mint + ?Sized> MintAsync for G {
            fn mint_async(&self) -> MintFuture<'_, Self> {
                MintFuture {
                    generator: self,
                    retry: Retry::new(),
                }
            }

            fn mint_batch_async<'a>(
                &'a self,
                out: &'a mut [Self::Id],
            ) -> MintBatchFuture<'a, Self> {
                MintBatchFuture {
                    generator: self,
                    out,
                    retry: Retry::new(),
                }
            }
        }

        /// The future of [`MintAsync::mint_async`]: the next ID.
        #[must_use = "futures do nothing unless you `.await` or poll them"]
        pub struct MintFuture<'a, G: Mint + ?Sized> {
            generator: &'a G,
            retry: Retry<$timer>,
        }

        impl<G: Mint + ?Sized> Future for MintFuture<'_, G> {
            type Output = Result<G::Id>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                let this = self.get_mut();
                this.retry.poll_mint(cx, || this.generator.mint_or_wait())
            }
        }

        impl<G: Mint + ?Sized> fmt::Debug for MintFuture<'_, G> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct("MintFuture").finish_non_exhaustive()
            }
        }

        /// The future of [`MintAsync::mint_batch_async`]: how many IDs it wrote.
        #[must_use = "futures do nothing unless you `.await` or poll them"]
        pub struct MintBatchFuture<'a, G: Mint + ?Sized> {
            generator: &'a G,
            out: &'a mut [G::Id],
            retry: Retry<$timer>,
        }

        impl<G: Mint + ?Sized> Future for MintBatchFuture<'_, G> {
            type Output = Result<usize>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                let this = self.get_mut();
                this.retry
                    .poll_mint(cx, || this.generator.mint_batch_or_wait(this.out))
            }
        }

        impl<G: Mint + ?Sized> fmt::Debug for MintBatchFuture<'_, G> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct("MintBatchFuture")
                    .field("len", &self.out.len())
                    .finish_non_exhaustive()
            }
        }
    };
}

use futures_on;
