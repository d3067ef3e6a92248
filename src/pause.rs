//! Pause points: named places in snowmint's code where a test can stop one thread, to fork,
//! kill or race another process against it at exactly that point.
//!
//! Compiled in only under `--cfg snowmint_pause_points`, which exists for snowmint's own
//! fault-injection tests (`tests/fork_points.rs`, `tests/fork_mint.rs`,
//! `tests/fork_windows.rs`, `tests/mark_fork.rs`); without it every point is an empty inline
//! function. A point pauses only in the process that armed it, so a forked child passes
//! through the points its parent armed.

/// A place where a test can pause a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(snowmint_pause_points), allow(unreachable_pub, dead_code))]
pub enum Point {
    /// The fork handlers' registration, before the handlers are installed.
    Registration,
    /// The process-wide clock's first initialisation, inside its once-cell, before its source
    /// is built.
    GlobalInit,
    /// A monotonic clock's overdue reading, inside its fork section, after it read the
    /// counter time it would take the writer lock at and before its compare-and-swap takes it.
    Elect,
    /// A monotonic clock's re-anchor, with its writer lock taken.
    Reanchor,
    /// A cached clock's refresher start, with its runner lock taken, before the thread is
    /// spawned.
    RefresherStart,
    /// A cached clock's reader that replaced `PARKED` with its reading, before it wakes the
    /// refresher or starts one.
    Wake,
    /// A mint, between the load of the generator's state and its compare-and-swap.
    Mint,
    /// The `prepare` fork handler waiting for a section in flight (reported, never paused).
    ForkWaits,
    /// A mark file's write, with the store's write lock and the file's `.lock` taken, before
    /// the new mark is written.
    MarkWrite,
}

#[cfg(snowmint_pause_points)]
mod armed {
    use super::Point;
    use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};
    use std::time::{Duration, Instant};

    const POINTS: usize = 9;
    const IDLE: u8 = 0;
    const REACHED: u8 = 1;
    const RELEASED: u8 = 2;

    /// The process that armed each point (0: not armed).
    static ARMED_BY: [AtomicU32; POINTS] = [const { AtomicU32::new(0) }; POINTS];
    /// Each point's progress: idle, reached by a thread now paused there, released.
    static STATE: [AtomicU8; POINTS] = [const { AtomicU8::new(IDLE) }; POINTS];

    fn index(point: Point) -> usize {
        match point {
            Point::Registration => 0,
            Point::GlobalInit => 1,
            Point::Elect => 2,
            Point::Reanchor => 3,
            Point::RefresherStart => 4,
            Point::Wake => 5,
            Point::Mint => 6,
            Point::ForkWaits => 7,
            Point::MarkWrite => 8,
        }
    }

    /// Pauses the first thread of the arming process that reaches `point` until the test
    /// releases it.
    #[inline]
    pub(crate) fn point(point: Point) {
        let i = index(point);
        // Relaxed: a test arms a point before it starts the thread that will reach it.
        if ARMED_BY[i].load(Ordering::Relaxed) != 0 {
            pause(i);
        }
    }

    #[cold]
    #[inline(never)]
    fn pause(i: usize) {
        if ARMED_BY[i].load(Ordering::Relaxed) != std::process::id() {
            return;
        }
        if STATE[i]
            .compare_exchange(IDLE, REACHED, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        while STATE[i].load(Ordering::Acquire) != RELEASED {
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    /// Records that a thread reached `point`, without pausing it.
    #[inline]
    pub(crate) fn reached(point: Point) {
        let i = index(point);
        if ARMED_BY[i].load(Ordering::Relaxed) == std::process::id() {
            let _ = STATE[i].compare_exchange(IDLE, REACHED, Ordering::AcqRel, Ordering::Relaxed);
        }
    }

    /// A point armed by this process: the first thread to reach it pauses until
    /// [`release`](Armed::release) (or the drop of this value).
    #[derive(Debug)]
    pub struct Armed {
        index: usize,
    }

    /// Arms `point` in this process.
    ///
    /// # Panics
    ///
    /// When the point is armed already.
    pub fn arm(point: Point) -> Armed {
        let index = index(point);
        STATE[index].store(IDLE, Ordering::Release);
        let armed = ARMED_BY[index].compare_exchange(
            0,
            std::process::id(),
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
        assert!(armed.is_ok(), "pause point {point:?} is armed already");
        Armed { index }
    }

    impl Armed {
        /// Waits until a thread reached the point, for at most `timeout`: whether one did.
        pub fn wait_reached(&self, timeout: Duration) -> bool {
            let deadline = Instant::now() + timeout;
            while STATE[self.index].load(Ordering::Acquire) == IDLE {
                if Instant::now() >= deadline {
                    return false;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
            true
        }

        /// Whether a thread reached the point.
        pub fn is_reached(&self) -> bool {
            STATE[self.index].load(Ordering::Acquire) != IDLE
        }

        /// Lets the paused thread go on, and disarms the point.
        pub fn release(self) {}
    }

    impl Drop for Armed {
        fn drop(&mut self) {
            ARMED_BY[self.index].store(0, Ordering::Release);
            STATE[self.index].store(RELEASED, Ordering::Release);
        }
    }
}

#[cfg(snowmint_pause_points)]
pub use armed::{Armed, arm};
#[cfg(snowmint_pause_points)]
pub(crate) use armed::{point, reached};

/// Without `--cfg snowmint_pause_points`: nothing.
#[cfg(not(snowmint_pause_points))]
#[inline(always)]
pub(crate) fn point(_: Point) {}

/// Without `--cfg snowmint_pause_points`: nothing.
#[cfg(not(snowmint_pause_points))]
#[inline(always)]
pub(crate) fn reached(_: Point) {}
