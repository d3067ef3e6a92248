//! Minting in async code: the waits of [`Mint::mint`] taken on a runtime's timer instead of on
//! the thread. One retry loop ([`Retry`]) over a small sealed [`Timer`]; each runtime module
//! (`tokio`, `smol`) gives it its timer and its own `MintAsync` extension trait.
//!
//! A generator waits in two places: for the next tick when the current one is full, and, under
//! [`ClockBehind::Wait`](crate::ClockBehind::Wait) (or `TickTock` when it cannot toggle), for a
//! clock that reads behind the last minted tick. An async mint attempts with the `try_` methods
//! inside [`without_waiting`], which never wait: a full tick fails with
//! [`Error::SequenceExhausted`] and a clock behind with [`Error::ClockBehind`], both saying how
//! long to wait, and the task sleeps that long on its runtime's timer before the next attempt.
//! Every attempt is one reservation (one compare-and-swap), complete when it returns: nothing is
//! reserved across an `.await`, so dropping the future at any point loses nothing.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::generator::without_waiting;

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

/// The state one async mint keeps between its attempts: the sleep it waits on, and when it
/// first found the clock behind (the policy's `max_ms` bounds the whole wait, not each sleep).
pub(crate) struct Retry<T: Timer> {
    /// Kept once made, so a mint that waits many times makes one sleep.
    sleep: Option<T::Sleep>,
    /// Whether `sleep` is armed: the next poll waits for it before attempting.
    armed: bool,
    /// When this mint first found the clock behind, while it still is.
    behind_since: Option<Instant>,
}

impl<T: Timer> Retry<T> {
    pub(crate) fn new() -> Self {
        Retry {
            sleep: None,
            armed: false,
            behind_since: None,
        }
    }

    /// Attempts with `attempt` (a `try_` mint, which never waits inside [`without_waiting`]),
    /// sleeping on the timer between attempts for as long as the last one's error says, until
    /// an attempt succeeds or fails with an error that no wait within the policy cures.
    pub(crate) fn poll_mint<R>(
        &mut self,
        cx: &mut Context<'_>,
        mut attempt: impl FnMut() -> Result<R>,
    ) -> Poll<Result<R>> {
        loop {
            if self.armed {
                if let Some(sleep) = &mut self.sleep {
                    ready!(Pin::new(sleep).poll(cx));
                }
                self.armed = false;
            }
            let err = match without_waiting(&mut attempt) {
                Ok(minted) => return Poll::Ready(Ok(minted)),
                Err(err) => err,
            };
            let Some(pause) = self.pause(&err) else {
                return Poll::Ready(Err(err));
            };
            match &mut self.sleep {
                Some(sleep) => T::reset(sleep, pause),
                None => self.sleep = Some(T::sleep(pause)),
            }
            self.armed = true;
        }
    }

    /// How long to sleep before the next attempt after `err`, or `None` if the blocking mint
    /// would fail with it: until the next tick for a full tick; for a clock behind by no more
    /// than the policy's `max_ms`, until it catches up, but never past `max_ms` after it was
    /// first found behind.
    fn pause(&mut self, err: &Error) -> Option<Duration> {
        match *err {
            Error::SequenceExhausted { retry_after, .. } => {
                self.behind_since = None;
                Some(retry_after)
            }
            Error::ClockBehind {
                behind_ms,
                max_wait_ms,
                ..
            } if behind_ms <= max_wait_ms => {
                let since = *self.behind_since.get_or_insert_with(Instant::now);
                let left = Duration::from_millis(max_wait_ms).saturating_sub(since.elapsed());
                (!left.is_zero()).then(|| Duration::from_millis(behind_ms).min(left))
            }
            _ => None,
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
                this.retry.poll_mint(cx, || this.generator.try_mint())
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
                    .poll_mint(cx, || this.generator.try_mint_batch(this.out))
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
