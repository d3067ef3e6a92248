//! The hot path: a single mint's confirmed step (a compare of the clock reading, a compare of
//! the word against the confirmed tick's last ID, one compare-and-swap), a reservation that
//! takes one load, one clock reading and one compare-and-swap, and the entry points that inline
//! them. Whatever the reservation cannot finish (a full tick, a lost CAS, a reading behind the
//! state or outside the layout) starts over out of line in [`slow`](super::slow).

use super::minter::{Generator, Plan, ReservedIds, Run};
use super::state::State;
use crate::clock::Clock;
use crate::error::Result;
use crate::fork;
use crate::id::Id;
use crate::mint::{Attempt, OnFull};
use crate::pause::{self, Point};

impl Plan {
    /// The run of up to `want` states from `first` (as many as its tick's range has left), and
    /// its last state: the one a CAS installs to reserve the run. For a single mint (`want`
    /// the constant 1 after inlining) this folds to `first` itself.
    #[inline(always)]
    pub(super) fn run(&self, first: u64, want: u64) -> (Run, u64) {
        let count = if want == 1 {
            1
        } else {
            want.min(((self.seq_last - (first & self.seq_mask)) >> self.seq_shift) + 1)
        };
        (
            Run { first, count },
            first + ((count - 1) << self.seq_shift),
        )
    }
}

impl<C: Clock, S: State> Generator<C, S> {
    #[inline(always)]
    pub(super) fn next_id(&self, on_full: OnFull) -> Result<Id> {
        if S::OWNED {
            let reading = self.clock.unix_ms_or_stale(crate::clock::seal::Token);
            if self.may_step() {
                if let Some(id) = self.state.step_confirmed(reading, self.plan.seq_one) {
                    return Ok(Id::from_u64(id));
                }
            }
            return self.next_id_missed(on_full);
        }
        if S::CONFIRMS {
            let reading = self.clock.unix_ms_or_stale(crate::clock::seal::Token);
            let word = self.state.load_word();
            let (word, confirmed) = if self.may_step() {
                let plan = &self.plan;
                match self.state.step_confirmed_from(
                    word,
                    reading,
                    plan.seq_one,
                    plan.epoch_ms,
                    plan.time_shift,
                ) {
                    Ok(id) => return Ok(Id::from_u64(id)),
                    Err(missed) => missed,
                }
            } else {
                (word, false)
            };
            return self.next_id_missed_from(word, reading, confirmed, on_full);
        }
        match self.reserve_fast(1) {
            Some(run) => Ok(Id::from_u64(run.first | self.plan.node_bits)),
            // A tail call: the inlined mint keeps no frame of its own.
            None => self.next_id_slow(on_full),
        }
    }

    /// Whether a confirmed step may mint without the fork count's compare, or the count
    /// matches. The step mints only on a reading a swap confirmed, which a swap does only in a
    /// process the generator may mint in. A fork-fenced clock never gives that reading again
    /// in a forked child, so there the reading's compare is the fork check; any other clock's
    /// reading is not, and the fork count is compared.
    #[inline(always)]
    fn may_step(&self) -> bool {
        self.clock.fork_fenced(crate::clock::seal::Token) || fork::generation() == self.plan.forks
    }

    #[cold]
    #[inline(never)]
    fn next_id_missed(&self, on_full: OnFull) -> Result<Id> {
        match self.reserve_fast(1) {
            Some(run) => Ok(Id::from_u64(run.first | self.plan.node_bits)),
            None => self.next_id_slow(on_full),
        }
    }

    /// A shared word's single mint whose confirmed step missed: the reservation, from the word
    /// the step found and the reading it compared (`confirmed`: the confirmed one).
    #[cold]
    #[inline(never)]
    fn next_id_missed_from(
        &self,
        word: u64,
        reading: u64,
        confirmed: bool,
        on_full: OnFull,
    ) -> Result<Id> {
        if self.plan.tick_mask != 0 {
            // On a layout with a tick-tock bit a reading is used only on a state loaded after
            // it: a toggle since the reading may have moved the word back (see `# Design`).
            return self.next_id_missed(on_full);
        }
        let forked = fork::generation() != self.plan.forks;
        let current = self.state.state_of(word);
        // A reading whose tick is not the confirmed one's, on the word's tick: the slow path
        // moved the word to that tick (it confirms nothing: its readings are not the clock's
        // word's), or the swap that did has not stored its confirm yet, or a late confirm of
        // an older tick overwrote it. Confirming it here keeps the rest of the tick's mints
        // on the step.
        let reconfirm = !confirmed;
        match self.reserve_fast_from(current, reading, 1, forked, reconfirm) {
            Some((run, _)) => Ok(Id::from_u64(run.first | self.plan.node_bits)),
            None => self.next_id_slow(on_full),
        }
    }

    #[inline(always)]
    pub(super) fn batch(&self, out: &mut [Id], on_full: OnFull) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let Run { first, count } = self.reserve(out.len() as u64, on_full)?;
        // `count <= out.len()`, and no sequence step of the run carries out of the field.
        let run = &mut out[..count as usize];
        let mut id = first | self.plan.node_bits;
        for slot in run {
            *slot = Id::from_u64(id);
            id = id.wrapping_add(self.plan.seq_one);
        }
        Ok(count as usize)
    }

    /// Reserves a run of at most `want` (at least 1) consecutive states on one tick.
    #[inline(always)]
    fn reserve(&self, want: u64, on_full: OnFull) -> Result<Run> {
        match self.reserve_fast(want) {
            Some(run) => Ok(run),
            None => self.reserve_slow(want, on_full),
        }
    }

    /// [`reserve`](Self::reserve) under [`OnFull::Answer`]: never waits.
    #[inline(always)]
    pub(super) fn reserve_or_wait(&self, want: u64) -> Result<Attempt<Run>> {
        match self.reserve_fast(want) {
            Some(run) => Ok(Attempt::Minted(run)),
            None => self.reserve_or_wait_slow(want),
        }
    }

    /// The common case of [`reserve`](Self::reserve), which is all that callers inline: a
    /// reading in the layout's range, at or past the state's tick, a tick with room and an
    /// uncontended CAS. `None` for everything else (a full tick, a lost CAS, a reading behind
    /// the state or outside the layout, a cached clock with no fresh reading), which starts
    /// over out of line, in [`reserve_slow`](Self::reserve_slow).
    #[inline(always)]
    pub(super) fn reserve_fast(&self, want: u64) -> Option<Run> {
        self.reserve_fast_at(want).map(|(run, _)| run)
    }

    /// [`reserve_fast`](Self::reserve_fast), with the clock reading whose tick the run is on.
    #[inline(always)]
    fn reserve_fast_at(&self, want: u64) -> Option<(Run, u64)> {
        // Acquire, then read the clock: a reading behind this state is a regression (or,
        // when borrowing, time already borrowed); that is for the slow path to decide.
        // A word one thread owns is loaded after the reading instead, once the shortcut
        // below has missed: nothing else writes it meanwhile.
        let shared = (!S::OWNED).then(|| self.state.load());
        let reading = self.clock.unix_ms_or_stale(crate::clock::seal::Token);
        // In the same branch as each check below, a process forked since the build: the fork
        // count is a word written only at a fork, so this is one load of a line every core
        // keeps cached, and one compare with the plan's copy.
        let forked = fork::generation() != self.plan.forks;
        if S::OWNED && want == 1 && !forked {
            // A word one thread owns, still on the tick of the reading it last confirmed: a
            // compare and a store (see `LocalState`). A shared word's single mint tried its
            // shortcut before it came here.
            if let Some(next) = self.state.step_confirmed(reading, self.plan.seq_one) {
                let run = Run {
                    first: next ^ self.plan.node_bits,
                    count: 1,
                };
                return Some((run, reading));
            }
        }
        let current = shared.unwrap_or_else(|| self.state.load());
        self.reserve_fast_from(current, reading, want, forked, false)
    }

    /// [`reserve_fast_at`](Self::reserve_fast_at) from the state `current` and the clock
    /// reading `reading`, in a process forked since the build if `forked`. The reading is
    /// taken after the load there, and before it for a shared word's single mint on a layout
    /// with no tick-tock bit: a reading that finds the state ahead of it goes to the slow path
    /// either way, which reads again before it calls anything a regression. A swap to a new tick confirms it, and so does a
    /// swap with `reconfirm` (a reading the confirmed tick is not) and every swap of a word one
    /// thread owns, whose swaps withdraw the confirmed limit.
    #[inline(always)]
    fn reserve_fast_from(
        &self,
        current: u64,
        reading: u64,
        want: u64,
        forked: bool,
        reconfirm: bool,
    ) -> Option<(Run, u64)> {
        let now = self.ticks_fast(reading)?;
        let tick = current >> self.plan.time_shift;
        if (now < tick) | forked {
            return None;
        }
        let first = self.first_after(current, now)?;
        let (run, next) = self.plan.run(first, want);
        pause::point(Point::Mint);
        // Orderings as in `advance`.
        self.state.swap_if(current, next).ok()?;
        // `next` is on tick `now`, the tick of `reading`. A shared word is confirmed only
        // where no swap lowers it: a tick-tock toggle does (see `SharedState`).
        if S::OWNED || (self.plan.steps && (now > tick || reconfirm)) {
            self.state
                .confirm(reading, next & !self.plan.seq_mask | self.plan.seq_last);
        }
        Some((run, reading))
    }

    /// The first state a reservation from `current` takes at a clock reading `now` at or past
    /// the state's tick: on a later tick from the start of the range, or the next on the same
    /// tick; `None` if the state's tick is full.
    #[inline(always)]
    pub(super) fn first_after(&self, current: u64, now: u64) -> Option<u64> {
        let plan = &self.plan;
        if now > current >> plan.time_shift {
            // A new tick, on the state's timeline, from the start of the range.
            Some(now << plan.time_shift | current & plan.tick_mask | plan.seq_first)
        } else if current & plan.seq_mask < plan.seq_last {
            Some(current + plan.seq_one)
        } else {
            None
        }
    }

    /// [`ticks_in_range`](Self::ticks_in_range) for the fast path's reading, which may be a
    /// cached clock's "no fresh reading" (a value below [`FIRST_READING`](crate::clock::cached::FIRST_READING), see
    /// [`Clock::unix_ms_or_stale`]): `None` for that too, in the same one compare when the
    /// epoch is past it, as every preset's but two is.
    #[inline(always)]
    fn ticks_fast(&self, unix_ms: u64) -> Option<u64> {
        if unix_ms < self.plan.min_ms {
            return None;
        }
        self.ticks_since_epoch(unix_ms - self.plan.epoch_ms)
    }

    /// `since` milliseconds after the epoch as ticks, `None` outside the ticks a generator
    /// mints in.
    #[inline(always)]
    pub(super) fn ticks_since_epoch(&self, since: u64) -> Option<u64> {
        let plan = &self.plan;
        let ticks = if plan.tick_ms.get() == 1 {
            since
        } else {
            since / plan.tick_ms
        };
        // One compare for both ends: tick 0 (reserved, see `start`) wraps to u64::MAX.
        (ticks.wrapping_sub(1) < plan.max_ticks).then_some(ticks)
    }

    /// Reserves up to `want` (at least 1) consecutive states of one tick with one CAS, as
    /// [`mint_batch`](Self::mint_batch) does (`wait`) or [`try_mint_batch`](Self::try_mint_batch)
    /// does: the first state, without node bits, and how many. For ID types built from the
    /// state word (sno IDs), so they need no buffer of [`Id`]s.
    #[inline]
    pub(crate) fn reserve_states(&self, want: u64, wait: bool) -> Result<(u64, u64)> {
        let on_full = if wait { OnFull::Wait } else { OnFull::Fail };
        let Run { first, count } = self.reserve(want.max(1), on_full)?;
        Ok((first, count))
    }

    /// [`reserve_states`](Self::reserve_states) as [`mint_batch_or_wait`](Self::mint_batch_or_wait)
    /// reserves: never waits.
    #[inline]
    pub(crate) fn reserve_states_or_wait(&self, want: u64) -> Result<Attempt<(u64, u64)>> {
        let attempt = self.reserve_or_wait(want.max(1))?;
        Ok(attempt.map(|Run { first, count }| (first, count)))
    }

    /// Reserves up to `want` (at least 1) consecutive IDs of one tick, as
    /// [`mint_batch`](Self::mint_batch) does, for a caller that hands them out one at a time
    /// (a sharded handle's per-thread run): the first ID, how many, and, when the fast path
    /// reserved them, the clock reading whose tick they are on, under which the caller may
    /// hand them out; the last of them is what the reservation installed in a shared word.
    /// From the slow path (a full tick, a lost CAS, a clock behind) the run is of one ID, with
    /// no reading. Under [`OnFull::Answer`] the reservation may answer a wait instead;
    /// under the other two it never does.
    #[inline]
    pub(crate) fn reserve_ids(&self, want: u64, on_full: OnFull) -> Result<Attempt<ReservedIds>> {
        let (Run { first, count }, reading) = match self.reserve_fast_at(want.max(1)) {
            Some((run, reading)) => (run, Some(reading)),
            None => match self.reserve_slow_passes(1, on_full)? {
                Attempt::Minted(run) => (run, None),
                Attempt::Wait(wait) => return Ok(Attempt::Wait(wait)),
            },
        };
        Ok(Attempt::Minted(ReservedIds {
            first: first | self.plan.node_bits,
            count,
            reading,
        }))
    }
}
