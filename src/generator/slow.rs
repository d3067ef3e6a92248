//! The slow path, out of line: the reservation loop that waits for a full tick, handles a
//! clock behind the state by the [`ClockBehind`] policy, retries lost compare-and-swaps, and
//! counts and reports what it met.

use std::time::{Duration, Instant};

use super::minter::{Generator, Run};
use super::policy::{ClockBehind, Event};
use super::state::State;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::id::Id;
use crate::mint::{Attempt, OnFull};
use crate::pause::{self, Point};
use crate::sync::{AtomicU64, Backoff, CasBackoff, Ordering, TickWait};
use crate::trace;

/// How many times a slow-path mint starts over (see `Generator::reserve_slow`) before a clock
/// seen behind while waiting for a tick is waited out rather than started over from.
const MAX_RESTARTS: u32 = 4;

/// How a pass of the slow path ends.
enum Pass {
    /// The reservation succeeded.
    Reserved(Run),
    /// Start over from a fresh load of the state and a precise reading.
    Restart,
    /// Under [`OnFull::Answer`]: nothing reserved, try again after this long.
    Wait(Duration),
}

/// Where a wait for the clock (a full tick, a clock behind) leaves a pass.
enum Next {
    /// Mint at this tick.
    Tick(u64),
    /// The clock went back meanwhile: start over (see [`Pass::Restart`]).
    Restart,
    /// Under [`OnFull::Answer`]: the caller waits this long.
    Wait(Duration),
}

impl<C: Clock, S: State> Generator<C, S> {
    /// [`next_id`](Self::next_id) when the fast path fails, out of line.
    #[cold]
    #[inline(never)]
    pub(super) fn next_id_slow(&self, on_full: OnFull) -> Result<Id> {
        let run = self.reserve_slow(1, on_full)?;
        Ok(Id::from_u64(run.first | self.plan.node_bits))
    }

    /// [`reserve`](Self::reserve) in full, out of line: a loop that starts from a fresh load of
    /// the state and a fresh reading (any reading after the load will do; see `# Orderings`)
    /// until a reservation succeeds or fails. A pass ends in a restart when the clock went
    /// back while the thread waited for a full tick, or when a toggle won the CAS: the next
    /// pass reads the clock precisely. After [`MAX_RESTARTS`] restarts a clock seen behind
    /// while waiting for a tick is waited out as [`ClockBehind::Wait`] would, so a clock whose
    /// precise readings alternate across a tick boundary cannot keep a thread looping.
    #[cold]
    #[inline(never)]
    pub(super) fn reserve_slow(&self, want: u64, on_full: OnFull) -> Result<Run> {
        self.reserve_slow_passes(want, on_full).map(Attempt::waited)
    }

    /// [`reserve_slow`](Self::reserve_slow) under [`OnFull::Answer`]: never waits.
    #[cold]
    #[inline(never)]
    pub(super) fn reserve_or_wait_slow(&self, want: u64) -> Result<Attempt<Run>> {
        self.reserve_slow_passes(want, OnFull::Answer)
    }

    /// The loop of [`reserve_slow`](Self::reserve_slow), which answers [`Attempt::Wait`] only
    /// under [`OnFull::Answer`].
    pub(super) fn reserve_slow_passes(&self, want: u64, on_full: OnFull) -> Result<Attempt<Run>> {
        self.built_here()?;
        let mut restarts = 0;
        loop {
            let current = self.state.load();
            pause::point(Point::Mint);
            let reading = if restarts == 0 {
                self.clock.unix_ms()
            } else {
                self.clock.unix_ms_precise()
            };
            let now = self.ticks(reading)?;
            let settle = restarts >= MAX_RESTARTS;
            let pass = if now < current >> self.plan.time_shift {
                self.reserve_behind(current, now, want, on_full, settle)?
            } else {
                self.advance(current, now, want, on_full, settle)?
            };
            match pass {
                Pass::Reserved(run) => return Ok(Attempt::Minted(run)),
                Pass::Restart => restarts += 1,
                Pass::Wait(wait) => return Ok(Attempt::Wait(wait)),
            }
        }
    }

    /// The CAS loop, from a state `current` and a clock reading `now` taken after it. A
    /// reading at or behind the state's tick mints on the state's tick. `settle`: see
    /// [`next_tick`](Self::next_tick). A lost CAS retries with the reading, except on a
    /// tick-tock layout, where a reading is used only on a state it was read after (the
    /// [module docs](self), step 3), and the pass ends in [`Pass::Restart`].
    #[inline(always)]
    fn advance(
        &self,
        mut current: u64,
        mut now: u64,
        want: u64,
        on_full: OnFull,
        settle: bool,
    ) -> Result<Pass> {
        let plan = &self.plan;
        let backoff = CasBackoff::new();
        loop {
            let Some(first) = self.first_after(current, now) else {
                match self.next_tick(current, on_full, settle)? {
                    Next::Tick(later) => now = later,
                    // The clock went back while this thread waited: start over from the state.
                    Next::Restart => return Ok(Pass::Restart),
                    Next::Wait(wait) => return Ok(Pass::Wait(wait)),
                }
                continue;
            };
            let (run, next) = plan.run(first, want);
            // AcqRel on success publishes the tick this thread read (see `# Orderings`);
            // Acquire on failure, as for the first load.
            match self.state.swap_if(current, next) {
                Ok(_) => return Ok(Pass::Reserved(run)),
                // Tick-tock: a winner on the other timeline, or behind this reading, may come
                // from a toggle after it (module docs, step 3).
                Err(actual)
                    if plan.tick_mask != 0
                        && ((actual ^ current) & plan.tick_mask != 0
                            || now > actual >> plan.time_shift) =>
                {
                    return Ok(Pass::Restart);
                }
                // A word other clocks write: a winner further ahead of this reading than
                // borrowing explains is another clock's time, not this one's; start over from
                // a fresh reading, which applies the `ClockBehind` policy if it is still
                // behind.
                Err(actual)
                    if S::OTHER_CLOCKS && self.is_behind(actual >> plan.time_shift, now) =>
                {
                    return Ok(Pass::Restart);
                }
                Err(actual) => {
                    current = actual;
                    // Back off (see `CasBackoff`): threads that retry at once only bounce
                    // the line between their cores, while a thread that pauses lets the
                    // winner mint its next IDs from its own cache. The retry keeps the value
                    // the failed CAS saw, as loading the state again after the pause took
                    // the line from the winner and measured twice as slow.
                    backoff.lost();
                }
            }
        }
    }

    /// A clock reading as ticks since the epoch, within the ticks a generator mints in.
    #[inline(always)]
    fn ticks(&self, unix_ms: u64) -> Result<u64> {
        self.ticks_in_range(unix_ms)
            .ok_or_else(|| self.time_error(unix_ms))
    }

    /// [`ticks`](Self::ticks), `None` for a reading outside the ticks a generator mints in.
    #[inline(always)]
    fn ticks_in_range(&self, unix_ms: u64) -> Option<u64> {
        self.ticks_since_epoch(unix_ms.checked_sub(self.plan.epoch_ms)?)
    }

    #[cold]
    #[inline(never)]
    fn time_error(&self, unix_ms: u64) -> Error {
        let since = unix_ms.checked_sub(self.plan.epoch_ms);
        if since.is_some_and(|since| since < self.plan.tick_ms.get()) {
            Error::EpochTick {
                layout: self.layout.name(),
                unix_ms,
                first_ms: self.plan.epoch_ms + self.plan.tick_ms.get(),
            }
        } else {
            self.layout.time_error(unix_ms)
        }
    }

    /// Whether a clock reading `now` is behind the tick `last` by more than borrowing
    /// explains: a regression.
    #[inline(always)]
    fn is_behind(&self, last: u64, now: u64) -> bool {
        now.saturating_add(self.cold.borrow_ticks) < last
    }

    /// The clock reads `now`, behind the tick of the state `current` it was read after: mint on
    /// borrowed time, or apply the [`ClockBehind`] policy and mint, or fail.
    #[cold]
    #[inline(never)]
    fn reserve_behind(
        &self,
        mut current: u64,
        mut now: u64,
        want: u64,
        on_full: OnFull,
        settle: bool,
    ) -> Result<Pass> {
        let shift = self.plan.time_shift;
        if self.is_behind(current >> shift, now) {
            // A clock that serves a cached reading may lag: only its precise reading can tell
            // a regression.
            now = self.ticks(self.clock.unix_ms_precise())?;
        }
        if !self.is_behind(current >> shift, now) {
            // The state runs ahead of the clock on borrowed time (or of a lagging reading):
            // mint on its tick.
            return self.advance(current, now, want, on_full, settle);
        }
        self.regression(current >> shift, now);
        if let ClockBehind::TickTock { .. } = self.on_behind {
            while self.is_behind(current >> shift, now) {
                match self.toggle(current, now, want) {
                    Some(Ok(run)) => return Ok(Pass::Reserved(run)),
                    // The CAS lost: read the clock again after the state that won.
                    Some(Err(actual)) => {
                        current = actual;
                        now = self.ticks(self.clock.unix_ms_precise())?;
                    }
                    // The other timeline has minted at or after `now`: wait as `Wait` does.
                    None => break,
                }
            }
            if !self.is_behind(current >> shift, now) {
                return self.advance(current, now, want, on_full, settle);
            }
        }
        match self.clock_behind(current, on_full != OnFull::Answer)? {
            Next::Tick(now) => self.advance(self.state.load(), now, want, on_full, settle),
            Next::Wait(wait) => Ok(Pass::Wait(wait)),
            Next::Restart => Ok(Pass::Restart),
        }
    }

    /// Moves from the state `current` to the other timeline at tick `now`, if that timeline
    /// has not minted at or after `now`: `None` if it has, else the CAS's outcome (a run of up
    /// to `want` states from the start of the range, or the state that won).
    fn toggle(&self, current: u64, now: u64, want: u64) -> Option<core::result::Result<Run, u64>> {
        let plan = &self.plan;
        let timeline = current & plan.tick_mask;
        let (this, other) = if timeline == 0 { (0, 1) } else { (1, 0) };
        let marks = self.state.high_water(&self.cold.high_water);
        let [this_mark, other_mark] = [&marks[this], &marks[other]];
        // Acquire, after the state's Acquire: every mark raised before the state left the
        // other timeline is visible (see `# Orderings`).
        if now <= other_mark.load(Ordering::Acquire) {
            return None;
        }
        // Raise this timeline's mark before the CAS that leaves it.
        this_mark.fetch_max(current >> plan.time_shift, Ordering::AcqRel);
        let first = now << plan.time_shift | (timeline ^ plan.tick_mask) | plan.seq_first;
        let (run, next) = plan.run(first, want);
        // AcqRel on success: publishes the mark raised above with the new state.
        match self.state.swap_if_strong(current, next) {
            Ok(_) => {
                self.cold.toggles.fetch_add(1, Ordering::Relaxed);
                trace::event!(
                    warn,
                    layout = self.layout.name(),
                    tick = now,
                    timeline = other,
                    "clock behind the last minted tick: minting on the other timeline"
                );
                Some(Ok(run))
            }
            Err(actual) => Some(Err(actual)),
        }
    }

    /// The tick of the state `current` is full: return a later tick to mint in (borrowed,
    /// when borrowing allows it, or waited for), or fail, or say how long to wait, as
    /// `on_full` says. [`Next::Restart`] when the clock goes back meanwhile under
    /// [`ClockBehind::TickTock`]: the caller starts over, and the regression is handled like
    /// any other, unless `settle` (the caller has started over [`MAX_RESTARTS`] times): then
    /// the regression is waited out as under [`ClockBehind::Wait`].
    #[cold]
    #[inline(never)]
    fn next_tick(&self, current: u64, on_full: OnFull, settle: bool) -> Result<Next> {
        let last = current >> self.plan.time_shift;
        let timeline = usize::from(current & self.plan.tick_mask != 0);
        self.cold.overflows.fetch_add(1, Ordering::Relaxed);
        let borrow = self.cold.borrow_ticks;
        let wait = TickWait::new();
        let mut counted = false;
        loop {
            // Precise: a lagging reading would wait for a tick that has already begun.
            let unix_ms = self.clock.unix_ms_precise();
            let mut now = self.ticks(unix_ms)?;
            // Whether `unix_ms` is the reading `now` comes from.
            let read_now = !self.is_behind(last, now);
            if !read_now {
                // The clock went back while this thread waited.
                if !settle && matches!(self.on_behind, ClockBehind::TickTock { .. }) {
                    return Ok(Next::Restart);
                }
                self.regression(last, now);
                now = match self.clock_behind(current, on_full != OnFull::Answer)? {
                    Next::Tick(now) => now,
                    other => return Ok(other),
                };
            }
            if now > last {
                return Ok(Next::Tick(now));
            }
            if last == self.plan.max_ticks {
                return Err(Error::LayoutExhausted {
                    layout: self.layout.name(),
                    last_ms: self.layout.max_unix_ms(),
                });
            }
            // `now <= last`: the next tick is `last + 1 - now` ticks ahead of the clock.
            let ahead = last + 1 - now;
            if ahead <= borrow {
                // One count per borrowed tick, however many threads found `last` full: the
                // first to raise its timeline's gate counts it (Relaxed: it only elects the
                // counter).
                let gate = &self.cold.borrow_gate[timeline];
                if gate.fetch_max(last + 1, Ordering::Relaxed) < last + 1 {
                    self.cold.borrows.fetch_add(1, Ordering::Relaxed);
                    trace::event!(
                        debug,
                        layout = self.layout.name(),
                        tick = last + 1,
                        ahead_ticks = ahead,
                        "tick full: borrowing the next one, ahead of the clock"
                    );
                }
                self.cold
                    .max_ahead_ticks
                    .fetch_max(ahead, Ordering::Relaxed);
                return Ok(Next::Tick(last + 1));
            }
            match on_full {
                OnFull::Wait => {}
                OnFull::Fail => {
                    return Err(Error::SequenceExhausted {
                        layout: self.layout.name(),
                        tick: last,
                        retry_after: Duration::from_millis(
                            (ahead - borrow) * self.plan.tick_ms.get(),
                        ),
                    });
                }
                OnFull::Answer => {
                    // Until the clock reaches the first tick it may mint in: `last + 1`, less
                    // the ticks borrowing allows ahead of it. `unix_ms` is at most in tick
                    // `now`, before that one (`ahead > borrow`), so the wait is at least 1 ms
                    // (and, after a clock found behind above, a little long).
                    let next_ms =
                        self.plan.epoch_ms + (last + 1 - borrow) * self.plan.tick_ms.get();
                    return Ok(Next::Wait(Duration::from_millis(next_ms - unix_ms)));
                }
            }
            if !counted {
                self.cold.waits.fetch_add(1, Ordering::Relaxed);
                self.send(
                    &self.cold.overflow_event_tick,
                    last,
                    Event::Overflow { tick: last },
                );
                counted = true;
            }
            // The first tick this thread may mint in starts at `next_ms`, after `unix_ms`
            // (`ahead > borrow`) when that is the reading `now` comes from; after a clock
            // found behind, look again soon.
            let next_ms = self.plan.epoch_ms + (last + 1 - borrow) * self.plan.tick_ms.get();
            wait.snooze(if read_now { next_ms - unix_ms } else { 1 });
        }
    }

    /// Counts a regression from tick `last_tick` to `clock_tick`, and reports it.
    #[cold]
    fn regression(&self, last_tick: u64, clock_tick: u64) {
        self.cold.regressions.fetch_add(1, Ordering::Relaxed);
        let event = Event::Regression {
            last_tick,
            clock_tick,
        };
        self.send(&self.cold.regression_event_tick, last_tick, event);
    }

    /// Sends `event` about tick `tick`, unless `gate` shows one was sent for it or a later tick
    /// (and with the `tracing` feature emits it as a `tracing` event).
    #[cold]
    fn send(&self, gate: &AtomicU64, tick: u64, event: Event) {
        if self.cold.events.is_none() && !cfg!(feature = "tracing") {
            return;
        }
        // Relaxed: the gate only elects one sender per tick; the event carries its own data.
        if gate.fetch_max(tick, Ordering::Relaxed) >= tick {
            return;
        }
        #[cfg(feature = "tracing")]
        self.trace(event);
        if let Some(events) = &self.cold.events {
            if events.try_send(event).is_err() {
                self.cold.events_dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// `event` as a `tracing` event.
    #[cfg(feature = "tracing")]
    #[cold]
    fn trace(&self, event: Event) {
        match event {
            Event::Overflow { tick } => trace::event!(
                debug,
                layout = self.layout.name(),
                tick,
                "tick full: waiting for the next one"
            ),
            Event::Regression {
                last_tick,
                clock_tick,
            } => trace::event!(
                warn,
                layout = self.layout.name(),
                last_tick,
                clock_tick,
                "clock behind the last minted tick"
            ),
        }
    }

    /// The clock reads behind the tick of the state `current`, the last minted tick, by more
    /// than borrowing explains: wait until it no longer does and return that reading, or fail,
    /// as the [`ClockBehind`] policy's wait bound says. How far behind is measured to the
    /// earliest time a mint can succeed ([`resume_ms`](Self::resume_ms)): the bound, the
    /// error's `behind_ms` and the wait answered are that distance.
    ///
    /// Unless `wait` (under [`OnFull::Answer`]), the caller does the waiting: where this would
    /// wait it answers [`Next::Wait`] with that distance, capped by what is left of the
    /// policy's `max_ms`, counted from the first such answer for `current` (kept in the cold
    /// block's `behind_since`).
    #[cold]
    #[inline(never)]
    fn clock_behind(&self, current: u64, wait: bool) -> Result<Next> {
        let last = current >> self.plan.time_shift;
        let max_wait_ms = match self.on_behind {
            ClockBehind::Wait { max_ms } | ClockBehind::TickTock { max_ms } => max_ms,
            ClockBehind::Error => 0,
        };
        let max_wait = Duration::from_millis(max_wait_ms);
        let resume_ms = self.resume_ms(current);
        // A waiting caller's own start, read only once a wait is possible: a regression past
        // `max_wait_ms` (every one, under `Error`) fails without reading the time.
        let mut waiting_since = None;
        let since = |waiting_since: &mut Option<Instant>| {
            *waiting_since.get_or_insert_with(|| {
                if wait {
                    Instant::now()
                } else {
                    self.behind_since(current)
                }
            })
        };
        if !wait {
            // The first answer for `current` is when its wait began, whatever this one says.
            since(&mut waiting_since);
        }
        let backoff = Backoff::new();
        let mut counted = false;
        loop {
            let unix_ms = self.clock.unix_ms_precise();
            let now = self.ticks(unix_ms)?;
            if !self.is_behind(last, now) {
                return Ok(Next::Tick(now));
            }
            // `now + borrow < last`: the reading is before tick `last - borrow` began, so
            // before `resume_ms`.
            let behind_ms = resume_ms - unix_ms;
            let left = if behind_ms > max_wait_ms {
                Duration::ZERO
            } else {
                max_wait.saturating_sub(since(&mut waiting_since).elapsed())
            };
            if left.is_zero() {
                return Err(Error::ClockBehind {
                    layout: self.layout.name(),
                    behind_ms,
                    max_wait_ms,
                });
            }
            if !wait {
                return Ok(Next::Wait(Duration::from_millis(behind_ms).min(left)));
            }
            if !counted {
                self.cold.waits.fetch_add(1, Ordering::Relaxed);
                counted = true;
            }
            backoff.snooze();
        }
    }

    /// The earliest time (Unix ms) a mint after the state `current` can succeed with the
    /// clock no longer behind it: the start of the state's tick, or of the next tick when the
    /// state's is full (and not the layout's last), less the ticks borrowing lets the state
    /// run ahead of the clock.
    fn resume_ms(&self, current: u64) -> u64 {
        let plan = &self.plan;
        let last = current >> plan.time_shift;
        let full = current & plan.seq_mask >= plan.seq_last;
        let tick = if full && last < plan.max_ticks {
            last + 1
        } else {
            last
        };
        // At most the layout's last tick: no overflow.
        plan.epoch_ms + tick.saturating_sub(self.cold.borrow_ticks) * plan.tick_ms.get()
    }

    /// When a non-waiting mint first found the clock behind the state `current`: now, if none
    /// has yet.
    #[cold]
    fn behind_since(&self, current: u64) -> Instant {
        // A poisoned lock holds a whole `(state, instant)` pair all the same.
        let mut since = self
            .cold
            .behind_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match *since {
            Some((state, at)) if state == current => at,
            _ => {
                let now = Instant::now();
                *since = Some((current, now));
                now
            }
        }
    }
}
