//! A one-thread model of the rules in `generator.rs`: the configuration, the state (as a
//! snapshot shows it) and the counters, and what a reservation does from them. The model reads
//! one clock reading per reservation ([`Model::reserve`]); a target whose clock has two
//! readings builds its reservation from the same steps ([`Model::regression`],
//! [`Model::full_tick`], [`Model::take`]), with each step's reading explicit.

// Each target uses part of this module.
#![allow(dead_code)]

use std::time::Duration;

use snowmint::{Error, Layout, Snapshot, generator::Stats};

use super::{Call, Minted, Outcome, Policy};

/// The generator's configuration, state and counters.
#[derive(Debug, Clone)]
pub(crate) struct Model {
    pub(crate) layout: Layout,
    pub(crate) policy: Policy,
    /// The sequence range's bounds.
    pub(crate) first: u64,
    pub(crate) last: u64,
    /// How many ticks ahead of the clock a full tick may move the state.
    pub(crate) borrow: u64,
    pub(crate) tick: u64,
    pub(crate) timeline: u64,
    /// The last sequence minted; `max_sequence` in the initial state (tick 0, "full"), and
    /// after a resume into a range that starts above it.
    pub(crate) sequence: u64,
    /// The highest tick minted on the other timeline (on this one it is `tick`).
    pub(crate) other_high: u64,
    /// The counters `stats()` shows (`waits` stays 0: nothing here waits).
    pub(crate) stats: Stats,
}

impl Model {
    /// A new generator: tick 0, counted as full, on timeline 0.
    pub(crate) fn new(
        layout: &Layout,
        policy: Policy,
        (first, last): (u64, u64),
        borrow: u64,
    ) -> Self {
        Model {
            layout: *layout,
            policy,
            first,
            last,
            borrow,
            tick: 0,
            timeline: 0,
            sequence: layout.max_sequence(),
            other_high: 0,
            stats: Stats::default(),
        }
    }

    /// The generator a snapshot shows, with fresh counters.
    pub(crate) fn from_snapshot(
        layout: &Layout,
        policy: Policy,
        borrow: u64,
        snapshot: &Snapshot,
    ) -> Self {
        Model {
            layout: *layout,
            policy,
            first: *snapshot.sequence_range.start(),
            last: *snapshot.sequence_range.end(),
            borrow,
            tick: snapshot.last_tick,
            timeline: snapshot.timeline,
            sequence: snapshot.sequence,
            other_high: snapshot.other_timeline_tick,
            stats: Stats::default(),
        }
    }

    /// A generator resumed from the model's state with a policy, range and borrow bound: same
    /// state, fresh counters; a sequence below the new range counts the tick as full.
    pub(crate) fn resumed(&self, policy: Policy, (first, last): (u64, u64), borrow: u64) -> Self {
        let sequence = if self.tick == 0 || self.sequence < first {
            self.layout.max_sequence()
        } else {
            self.sequence
        };
        Model {
            policy,
            first,
            last,
            borrow,
            sequence,
            stats: Stats::default(),
            ..self.clone()
        }
    }

    /// The snapshot the generator shows, for its nodes.
    pub(crate) fn snapshot(&self, nodes: &[(&'static str, u64)]) -> Snapshot {
        // A snapshot is made, not written out: from a fresh one for these nodes.
        let mut snapshot = Snapshot::at_mark(self.layout, nodes, None);
        snapshot.last_tick = self.tick;
        snapshot.sequence = if self.tick == 0 { 0 } else { self.sequence };
        snapshot.timeline = self.timeline;
        snapshot.other_timeline_tick = self.other_high;
        snapshot.sequence_range = self.first..=self.last;
        snapshot
    }

    pub(crate) fn stats(&self) -> Stats {
        self.stats
    }

    /// `call` with the clock at `unix_ms`.
    pub(crate) fn call(&mut self, unix_ms: u64, call: Call) -> Outcome {
        match call.wants() {
            // An empty buffer: nothing minted, the clock not even read.
            0 => Outcome::Ids(Vec::new()),
            want => self.reserve(unix_ms, want, call.waits()),
        }
    }

    /// `mint_many(n)`: one reservation of what is still missing at a time. With a failure,
    /// the IDs reserved before it (which the caller never sees).
    pub(crate) fn many(&mut self, unix_ms: u64, n: usize) -> (Outcome, Vec<Minted>) {
        let mut ids = Vec::new();
        while ids.len() < n {
            match self.reserve(unix_ms, (n - ids.len()) as u64, true) {
                Outcome::Ids(run) => ids.extend(run),
                failed => return (failed, ids),
            }
        }
        (Outcome::Ids(ids), Vec::new())
    }

    /// One reservation of at most `want` (at least 1) consecutive values, with the clock at
    /// `unix_ms`; `wait`: the call would wait for a full tick to pass.
    pub(crate) fn reserve(&mut self, unix_ms: u64, want: u64, wait: bool) -> Outcome {
        let layout = self.layout;
        let name = layout.name();
        let (epoch_ms, tick_ms) = (layout.epoch_ms(), layout.tick_ms());
        if unix_ms < epoch_ms {
            return Outcome::Fail(Error::BeforeEpoch {
                layout: name,
                unix_ms,
                epoch_ms,
            });
        }
        let now = (unix_ms - epoch_ms) / tick_ms;
        if now == 0 {
            return Outcome::Fail(Error::EpochTick {
                layout: name,
                unix_ms,
                first_ms: epoch_ms + tick_ms,
            });
        }
        if now > layout.max_ticks() {
            return Outcome::Fail(Error::TimeOverflow {
                layout: name,
                unix_ms,
                max_unix_ms: layout.max_unix_ms(),
            });
        }
        // Behind the state's tick by more than the borrow bound: a regression. Behind by at
        // most the bound: time already borrowed, minted on the state's tick below.
        if self.behind(now) {
            return self.regression(now, want, || unix_ms);
        }
        let (tick, first) = match self.room(now) {
            Some(start) => start,
            None => {
                self.stats.overflows += 1;
                match self.full_tick(now, wait) {
                    Ok(start) => start,
                    Err(outcome) => return outcome,
                }
            }
        };
        self.take(tick, first, want)
    }

    /// Where a reading at tick `now`, not behind the state, mints from (the tick and the first
    /// value) without leaving a full tick: a tick past the state's, or the next value of the
    /// state's; `None` when the state's tick is full.
    pub(crate) fn room(&self, now: u64) -> Option<(u64, u64)> {
        if now > self.tick {
            Some((now, self.first))
        } else if self.sequence < self.last {
            Some((self.tick, self.sequence + 1))
        } else {
            None
        }
    }

    /// Whether tick `now` is behind the state by more than borrowing explains.
    pub(crate) fn behind(&self, now: u64) -> bool {
        now.saturating_add(self.borrow) < self.tick
    }

    /// A regression to tick `now`: a toggle under tick-tock when the other timeline has not
    /// minted at or after `now`, else `ClockBehind`, how far behind measured from the reading
    /// `reading_ms` gives, read only then, to [`resume_ms`](Self::resume_ms).
    pub(crate) fn regression(
        &mut self,
        now: u64,
        want: u64,
        reading_ms: impl FnOnce() -> u64,
    ) -> Outcome {
        self.stats.regressions += 1;
        if self.policy == Policy::TickTock && now > self.other_high {
            // A toggle reserves as much of the new tick's range as the batch wants.
            let count = want.min(self.last - self.first + 1);
            (self.other_high, self.tick, self.timeline, self.sequence) =
                (self.tick, now, 1 - self.timeline, self.first + count - 1);
            self.stats.toggles += 1;
            return self.ids(self.first, count);
        }
        let layout = self.layout;
        Outcome::Fail(Error::ClockBehind {
            layout: layout.name(),
            behind_ms: self.resume_ms() - reading_ms(),
            max_wait_ms: 0,
        })
    }

    /// The earliest time (Unix ms) a mint can succeed with the clock no longer behind the
    /// state: the start of the state's tick, or of the next one when the state's is full (and
    /// not the layout's last), less the borrow bound.
    pub(crate) fn resume_ms(&self) -> u64 {
        let layout = self.layout;
        let full = self.sequence >= self.last && self.tick < layout.max_ticks();
        let tick = (self.tick + u64::from(full)).saturating_sub(self.borrow);
        layout.epoch_ms() + tick * layout.tick_ms()
    }

    /// Where to mint after the state's full tick (the next tick, from the range's first value),
    /// with the clock at tick `now`, not past the state's; or the outcome when there is no
    /// next tick yet: the layout's end, a wait (`wait`), or `SequenceExhausted`.
    pub(crate) fn full_tick(&mut self, now: u64, wait: bool) -> Result<(u64, u64), Outcome> {
        let layout = self.layout;
        if self.tick == layout.max_ticks() {
            return Err(Outcome::Fail(Error::LayoutExhausted {
                layout: layout.name(),
                last_ms: layout.max_unix_ms(),
            }));
        }
        // The next tick is `ahead` ticks ahead of the clock.
        let ahead = self.tick + 1 - now;
        if ahead <= self.borrow {
            self.stats.borrows += 1;
            self.stats.max_ahead_ticks = self.stats.max_ahead_ticks.max(ahead);
            Ok((self.tick + 1, self.first))
        } else if wait {
            Err(Outcome::Blocks)
        } else {
            Err(Outcome::Fail(Error::SequenceExhausted {
                layout: layout.name(),
                tick: self.tick,
                retry_after: Duration::from_millis((ahead - self.borrow) * layout.tick_ms()),
            }))
        }
    }

    /// Reserves at most `want` values from `first` on `tick`: the state moves to the last.
    pub(crate) fn take(&mut self, tick: u64, first: u64, want: u64) -> Outcome {
        let count = want.min(self.last - first + 1);
        (self.tick, self.sequence) = (tick, first + count - 1);
        self.ids(first, count)
    }

    /// The run of `count` values from `first` on the state's tick and timeline.
    fn ids(&self, first: u64, count: u64) -> Outcome {
        Outcome::Ids(
            (first..first + count)
                .map(|sequence| Minted {
                    tick: self.tick,
                    timeline: self.timeline,
                    sequence,
                })
                .collect(),
        )
    }
}

/// The call to make, the model after it and what the model says it does, from the model
/// `state` before it: `call`, or its `try_` form where it would wait for a full tick.
/// `model` answers a call from a state (a target's clock may be part of the state).
pub(crate) fn predict<M: Clone>(
    state: &M,
    call: Call,
    mut model: impl FnMut(&mut M, Call) -> Outcome,
) -> (Call, M, Outcome) {
    let mut after = state.clone();
    let expected = model(&mut after, call);
    if expected != Outcome::Blocks {
        return (call, after, expected);
    }
    let call = call.without_wait();
    let mut after = state.clone();
    let expected = model(&mut after, call);
    assert_ne!(expected, Outcome::Blocks, "{call:?} waits");
    (call, after, expected)
}
