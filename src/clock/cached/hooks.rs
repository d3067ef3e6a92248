//! The hooks that let snowmint's own loom models, fuzz targets and tests run a cached clock's
//! refresher step by step (`--cfg snowmint_test_hooks`, not for users): a driven clock starts no
//! thread, and the caller runs each wake-up.

use std::time::Duration;

use super::handle::{CachedClock, Private};
use super::refresher::Step;
use super::sentinel::{UNCACHED, kind};
use crate::clock::interface::Clock;
use crate::sync::Ordering;

/// [`FIRST_READING`](super::sentinel::FIRST_READING): the least value of the word that is a
/// reading.
pub const FIRST_READING: u64 = super::sentinel::FIRST_READING;
/// [`PROBE_EVERY`](super::refresher::PROBE_EVERY): how often the refresher probes for readers.
pub const PROBE_EVERY: u64 = super::refresher::PROBE_EVERY;
/// [`IDLE_PARK`](super::refresher::IDLE_PARK): how long a parked refresher sleeps.
pub const IDLE_PARK: Duration = super::refresher::IDLE_PARK;

impl<C: Clock + Send + Sync + 'static> CachedClock<Private<C>> {
    /// A private cache whose refresher is the caller's: nothing starts a thread, and the
    /// caller runs each wake-up with [`drive_refresh`](Self::drive_refresh). For loom models
    /// and fuzz targets, which must run the real protocol step by step.
    #[doc(hidden)]
    pub fn driven(source: C) -> Self {
        Self::with_driver(source, true)
    }

    /// Makes the calling thread the refresher of a [`driven`](Self::driven) clock: a reader
    /// that finds the clock parked unparks it.
    #[doc(hidden)]
    pub fn drive_attach(&self) {
        // Every hold of the runner lock is a fork section, as in `wake`.
        let _section = crate::fork::enter();
        let mut runner = self
            .home
            .shared
            .runner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        runner.thread = Some(crate::sync::current());
        runner.generation = crate::fork::generation();
    }

    /// The refresher's `wake`th wake-up, run by the caller of a [`driven`](Self::driven)
    /// clock: every [`PROBE_EVERY`]th publishes a probe instead of a reading.
    #[doc(hidden)]
    pub fn drive_refresh(&self, wake: u64) -> Step {
        self.home.shared.refresh(self.home.word, wake)
    }

    /// Whether a parked refresher stays parked, asked by the caller of a
    /// [`driven`](Self::driven) clock after it was unparked.
    #[doc(hidden)]
    pub fn drive_still_parked(&self) -> bool {
        self.home.shared.still_parked(self.home.word)
    }

    /// The raw word: a reading, or one of the values below the first reading (0: a probe is
    /// out, 1: parked, 2: uncached).
    #[doc(hidden)]
    pub fn drive_word(&self) -> u64 {
        let word = self.home.word.load(Ordering::Acquire);
        if word < FIRST_READING && word != UNCACHED {
            kind(word)
        } else {
            word
        }
    }
}
