//! Running a [`Contender`]: its checks, the one timed loop, saturation runs and paced runs.

use std::collections::HashSet;
use std::hint::{black_box, spin_loop};
use std::sync::Barrier;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use snowmint::Clock;
use snowmint::shard::ShardedGenerator;

use crate::contenders::{Contender, Order, Spec};
use crate::support::on_threads;

/// The furthest an ID's time may be from the wall clock read right after it, in a check.
const MOST_GAP_MS: u64 = 2_000;

pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/// The largest gaps between an ID's time and the wall clock read right after it, in ticks.
#[derive(Clone, Copy, Default)]
pub struct Gap {
    /// The most an ID's tick was after the wall clock's.
    pub ahead: i64,
    /// The most an ID's tick was before the wall clock's.
    pub behind: i64,
}

impl Gap {
    pub fn record(&mut self, spec: &Spec, id: u128, wall_ms: u64) {
        let gap = spec.ticks(id) - spec.wall_ticks(wall_ms);
        self.ahead = self.ahead.max(gap);
        self.behind = self.behind.max(-gap);
    }

    pub fn merge(self, other: Gap) -> Gap {
        Gap {
            ahead: self.ahead.max(other.ahead),
            behind: self.behind.max(other.behind),
        }
    }

    pub fn largest(self) -> i64 {
        self.ahead.max(self.behind)
    }
}

/// Panics unless all IDs are unique and, as far as the contender promises ([`Spec::order`]),
/// each thread's strictly increase (or their times never go back) and every ID's time was
/// within `MOST_GAP_MS` of the wall clock read right after it (`gap`; ahead, its
/// [`Spec::drift_ms`] more): a contender minting constant or time-less IDs, or on another
/// layout than its [`Spec`] says, fails.
pub fn check_ids(spec: &Spec, config: &str, per_thread: &[Vec<u128>], gap: Gap) {
    let contender = spec.name;
    if spec.order != Order::Unordered {
        let (out_of_order, promise): (fn(&Spec, u128, u128) -> bool, _) = match spec.order {
            Order::ByTime => (
                |spec, a, b| spec.ticks(a) > spec.ticks(b),
                "its time went back",
            ),
            _ => (|_, a, b| a >= b, "not strictly increasing"),
        };
        for (thread, ids) in per_thread.iter().enumerate() {
            if let Some(pair) = ids
                .windows(2)
                .find(|pair| out_of_order(spec, pair[0], pair[1]))
            {
                panic!(
                    "CHECK FAILED: {contender} ({config}): thread {thread} minted {} then {}: \
                     {promise}",
                    pair[0], pair[1]
                );
            }
        }
        let (ahead_ms, behind_ms) = (
            gap.ahead.unsigned_abs() * spec.tick_ms,
            gap.behind.unsigned_abs() * spec.tick_ms,
        );
        assert!(
            ahead_ms < MOST_GAP_MS + spec.drift_ms && behind_ms < MOST_GAP_MS,
            "CHECK FAILED: {contender} ({config}): an ID's time was {} ms from the wall \
             clock's (ahead {} ticks, behind {}): not the layout its spec says",
            ahead_ms.max(behind_ms),
            gap.ahead,
            gap.behind
        );
    }
    let total: usize = per_thread.iter().map(Vec::len).sum();
    let unique: HashSet<u128> = per_thread.iter().flatten().copied().collect();
    assert_eq!(
        unique.len(),
        total,
        "CHECK FAILED: {contender} ({config}): {} duplicate IDs among {total}",
        total - unique.len()
    );
}

/// Mints `check_per_thread` IDs through `c` on each of `threads` threads, as the timed loop
/// does, reading the wall clock after each mint; checks them ([`check_ids`]) and returns the
/// largest gaps.
pub fn check<C: Contender>(c: &C, config: &str, threads: usize) -> Gap {
    let spec = c.spec();
    let results = on_threads(threads, || {
        c.with_local(|local| {
            let mut gap = Gap::default();
            let ids: Vec<u128> = (0..spec.check_per_thread)
                .map(|_| {
                    let id = c.mint(local);
                    gap.record(spec, id, wall_ms());
                    id
                })
                .collect();
            (ids, gap)
        })
    });
    let gap = results
        .iter()
        .fold(Gap::default(), |all, (_, _, (_, gap))| all.merge(*gap));
    let per_thread: Vec<Vec<u128>> = results.into_iter().map(|(_, _, (ids, _))| ids).collect();
    check_ids(
        spec,
        &format!("{config}, {threads} threads"),
        &per_thread,
        gap,
    );
    gap
}

/// Panics unless `threads` threads, spawned as the timed loop spawns them, each mint from a
/// shard of their own.
pub fn check_distinct_shards<C: Clock + Send + Sync>(
    name: &str,
    generator: &ShardedGenerator<C>,
    threads: usize,
) {
    let shards = distinct_shards(generator, threads);
    assert_eq!(
        shards, threads,
        "CHECK FAILED: {name}: {threads} threads minted from only {shards} shards"
    );
}

/// How many distinct shards `threads` threads, spawned as the timed loop spawns them and alive
/// together as in the timed loop, mint from: a thread gives its shard back when it exits, so
/// each holds its shard until every one has taken its own.
pub fn distinct_shards<C: Clock + Send + Sync>(
    generator: &ShardedGenerator<C>,
    threads: usize,
) -> usize {
    let together = Barrier::new(threads);
    on_threads(threads, || {
        let shard = std::ptr::from_ref(generator.local()) as usize;
        together.wait();
        shard
    })
    .into_iter()
    .map(|(_, _, shard)| shard)
    .collect::<HashSet<usize>>()
    .len()
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/// The wall time in which `threads` threads, started together at a barrier once each holds
/// what it mints through, each minted `iters` IDs through `c`: from the first thread's start to
/// the last thread's end.
pub fn timed<C: Contender>(c: &C, threads: usize, iters: u64) -> Duration {
    let barrier = Barrier::new(threads);
    let spans = on_threads(threads, || {
        c.with_local(|local| {
            barrier.wait();
            let start = Instant::now();
            for _ in 0..iters {
                black_box(c.mint(local));
            }
            (start, Instant::now())
        })
    });
    let start = spans.iter().map(|span| span.2.0).min().expect("one thread");
    let end = spans.iter().map(|span| span.2.1).max().expect("one thread");
    end - start
}

/// ns per ID per thread of `c` minting `iters` IDs on each of `threads` threads.
pub fn ns_per_id<C: Contender>(c: &C, threads: usize, iters: u64) -> f64 {
    timed(c, threads, iters).as_nanos() as f64 / iters as f64
}

/// Aggregate IDs/s of `c` minting `iters` IDs on each of `threads` threads.
pub fn ids_per_s<C: Contender>(c: &C, threads: usize, iters: u64) -> f64 {
    (threads as u64 * iters) as f64 / timed(c, threads, iters).as_secs_f64()
}

/// Times `c` on `threads` threads as `id` of `group` (see the bench's docs for how to read the
/// figure).
pub fn bench_threads<C: Contender>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    c: &C,
    threads: usize,
) {
    group.bench_function(id, |b| b.iter_custom(|iters| timed(c, threads, iters)));
}

/// Runs `bench` and says so if snowmint's tick filled meanwhile (`full_ticks`: see
/// [`Contender::full_ticks`]): on 41/0/22 the figure is then
/// at the layout's ceiling (2^22 IDs per ms), not the code's own cost.
pub fn noting_full_ticks(name: &str, full_ticks: impl Fn() -> Option<u64>, bench: impl FnOnce()) {
    let before = full_ticks();
    bench();
    if let (Some(before), Some(after)) = (before, full_ticks())
        && after > before
    {
        let full = after - before;
        let times = if full == 1 { "once" } else { "times" };
        let count = if full == 1 {
            String::new()
        } else {
            format!("{full} ")
        };
        eprintln!(
            "note: {name}: snowmint found its tick's sequence full {count}{times} while timed; \
             this figure is at the layout's ceiling (2^22 IDs per ms), not the code's own cost"
        );
    }
}

/// IDs/s of `c` on `threads` threads minting for `run`, counted over whole ticks: the IDs
/// whose time is a tick after every thread's first and before every thread's last, divided by
/// those ticks' length. Each thread's IDs' ticks never go back (the checks make sure), so its
/// ticks come in order and it counts them as they come. `None` where the run spanned no whole
/// tick in which every thread minted: on a busy machine a thread can sit descheduled for most
/// of a run, and the run then says nothing about the generator. A run lasts at least three
/// of the contender's ticks (xid's are seconds), so that it spans a whole one. A contender
/// whose ticks are not the clock's ([`Spec::drift_ms`]) is counted over the run's wall time
/// instead: every ID, from the first thread's start to the last one's end.
///
/// Over whole ticks, a rate above the layout's ceiling means some tick held more IDs than the
/// layout has values for: the contender repeated IDs.
pub fn saturation_rate<C: Contender>(c: &C, threads: usize, run: Duration) -> Option<f64> {
    saturation(c, threads, run).map(|saturation| saturation.rate)
}

/// What [`saturation`] counts over a run's whole ticks.
#[derive(Debug, Clone, Copy)]
pub struct Saturation {
    /// IDs/s over every whole tick ([`saturation_rate`]).
    pub rate: f64,
    /// IDs/s over the whole ticks in which some thread minted: what the contender made of the
    /// ticks it had a core in.
    pub minted_rate: f64,
    /// The whole ticks in which no thread minted an ID, and all the whole ticks. A thread that
    /// waits for the next tick mints as soon as it sees it begin, so a tick without any ID is
    /// one in which no minting thread had a core (descheduled).
    pub empty_ticks: u64,
    pub whole_ticks: u64,
}

/// [`saturation_rate`], with the ticks in which no thread minted counted apart. For a
/// contender whose ticks are not the clock's, the rate over the run's wall time, no tick
/// empty.
pub fn saturation<C: Contender>(c: &C, threads: usize, run: Duration) -> Option<Saturation> {
    let spec = c.spec();
    let run = run.max(Duration::from_millis(3 * spec.tick_ms));
    let runs = on_threads(threads, || {
        c.with_local(|local| {
            let started = Instant::now();
            let deadline = started + run;
            // (tick, IDs minted in it), in order.
            let mut ticks: Vec<(i64, u64)> = Vec::with_capacity(4096);
            let mut tick = spec.ticks(c.mint(local));
            let mut minted = 1;
            loop {
                for _ in 0..64 {
                    let next = spec.ticks(c.mint(local));
                    if next == tick {
                        minted += 1;
                    } else {
                        ticks.push((tick, minted));
                        (tick, minted) = (next, 1);
                    }
                }
                let now = Instant::now();
                if now >= deadline {
                    ticks.push((tick, minted));
                    return (started, now, ticks);
                }
            }
        })
    });
    let runs: Vec<_> = runs.into_iter().map(|(_, _, run)| run).collect();
    if spec.drift_ms > 0 {
        let started = runs.iter().map(|run| run.0).min().expect("one thread");
        let ended = runs.iter().map(|run| run.1).max().expect("one thread");
        let minted: u64 = runs
            .iter()
            .flat_map(|(_, _, ticks)| ticks)
            .map(|(_, minted)| minted)
            .sum();
        let rate = minted as f64 / (ended - started).as_secs_f64();
        return Some(Saturation {
            rate,
            minted_rate: rate,
            empty_ticks: 0,
            whole_ticks: 0,
        });
    }
    let first = runs.iter().map(|(_, _, ticks)| ticks[0].0).max();
    let last = runs
        .iter()
        .map(|(_, _, ticks)| ticks[ticks.len() - 1].0)
        .min();
    let (first, last) = (first.expect("one thread"), last.expect("one thread"));
    if last - first < 2 {
        eprintln!(
            "note: {}: a saturation run of {run:?} on {threads} threads spanned no whole tick \
             in which every thread minted (a busy machine): inconclusive",
            spec.name
        );
        return None;
    }
    let whole: Vec<(i64, u64)> = runs
        .iter()
        .flat_map(|(_, _, ticks)| ticks)
        .filter(|(tick, _)| first < *tick && *tick < last)
        .copied()
        .collect();
    let minted: u64 = whole.iter().map(|(_, minted)| minted).sum();
    let whole_ticks = (last - first - 1) as u64;
    let minted_in: std::collections::HashSet<i64> = whole.iter().map(|(tick, _)| *tick).collect();
    let empty_ticks = whole_ticks - minted_in.len() as u64;
    let per_s = |ticks: u64| {
        if ticks == 0 {
            0.0
        } else {
            minted as f64 * 1000.0 / (ticks * spec.tick_ms) as f64
        }
    };
    Some(Saturation {
        rate: per_s(whole_ticks),
        minted_rate: per_s(whole_ticks - empty_ticks),
        empty_ticks,
        whole_ticks,
    })
}

/// Percentile `q` of sorted `values`.
pub fn percentile(sorted: &[u64], q: f64) -> u64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// One mint every `pace` ns (0: back to back), `count` times, on this thread: each call's
/// latency, sorted, the largest gaps to the wall clock, and how long the mints took. Panics
/// unless the IDs pass [`check_ids`] (`config` names the run in its message).
pub fn paced_run<C: Contender>(
    c: &C,
    clock: &quanta::Clock,
    pace: u64,
    count: usize,
    config: &str,
) -> (Vec<u64>, Gap, Duration) {
    let spec = c.spec();
    let mut latencies = Vec::with_capacity(count);
    let mut ids = Vec::with_capacity(count);
    let mut gap = Gap::default();
    let took = c.with_local(|local| {
        let base = clock.raw();
        let mut due = 0;
        for _ in 0..count {
            while clock.delta_as_nanos(base, clock.raw()) < due {
                spin_loop();
            }
            let start = clock.raw();
            let id = c.mint(local);
            let end = clock.raw();
            gap.record(spec, id, wall_ms());
            latencies.push(clock.delta_as_nanos(start, end));
            ids.push(id);
            // No catching up after a stall: the next mint is one period after this one.
            due = (due + pace).max(clock.delta_as_nanos(base, end));
        }
        Duration::from_nanos(clock.delta_as_nanos(base, clock.raw()))
    });
    check_ids(spec, config, &[ids], gap);
    latencies.sort_unstable();
    (latencies, gap, took)
}
