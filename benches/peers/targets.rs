//! The "Targets" table: the targets, each measured in paired rounds and given a
//! verdict, and what they need (the spinning process, the idle count, the rounds' arithmetic).

use std::hint::{black_box, spin_loop};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use snowmint::{Generator, Layout, clock::CachedClock, shard::Shards};

use crate::contenders::{
    Contender, FerroidHot, FerroidShard1, ferroid_own_of, hot_set, snowmint_local_fixed_shards,
    snowmint_local_shards, twitter_set,
};
use crate::measure::{
    Saturation, check, ids_per_s, ns_per_id, paced_run, percentile, saturation as saturation_of,
    saturation_rate,
};
use crate::rounds::{Rounds, Spread, rotated, shown_or_inconclusive};
use crate::summary::{Cell, RATIO_NOTE, Summary, columns};
use crate::support::HOT;
use crate::{PACE_NS, S1_THREADS};

/// Rounds of the paired comparisons, after one round of warm-up: a multiple of 6, so that
/// three contenders run in each of their six orders equally often.
const PAIRED_ROUNDS: usize = 24;
/// Rounds of the saturation targets, after one of warm-up: a multiple of 4, so that each of
/// the two contenders runs first equally often.
const SATURATION_ROUNDS: usize = 4;
/// One run of a saturation target, per contender and round.
const TARGET_SATURATION_RUN: Duration = Duration::from_millis(300);
/// How long the idle target holds its generators before it counts wake-ups, and how long it
/// counts.
const IDLE_SETTLE: Duration = Duration::from_millis(200);
const IDLE_WINDOW: Duration = Duration::from_secs(2);
/// Set in the environment of the [`Spinner`]'s process: it spins this many seconds and exits.
pub const SPIN_ENV: &str = "SNOWMINT_SPIN_SECONDS";
/// The longest a spinner spins if nobody kills it: the busy saturation target takes
/// 2 × (`SATURATION_ROUNDS` + 1) runs of `TARGET_SATURATION_RUN`, 3 s.
const SPIN_LIMIT: Duration = Duration::from_secs(15);
/// IDs per contender per round of the paired scenario 2, shared out among the threads.
const PAIRED_IDS: u64 = 4_000_000;
/// IDs per contender per round of the per-thread pairing, shared out among the threads: a
/// few milliseconds of minting at 1 ns or so per ID.
const PER_THREAD_IDS: u64 = 8_000_000;
/// Mints per contender per round of the paired scenario 5.
const PAIRED_PACED_MINTS: usize = 50_000;

/// A bound the issue sets on a figure.
#[derive(Clone, Copy)]
enum Bound {
    /// At most this figure (a ratio, a rate).
    AtMost(f64),
    /// At least this percentage.
    AtLeast(f64),
    /// At least this ratio.
    NoLessThan(f64),
}

impl Bound {
    /// "met", or how `figure` compares with the bound it missed; "inconclusive" without a
    /// figure.
    fn verdict(self, figure: Option<f64>) -> String {
        let Some(figure) = figure else {
            return "inconclusive".to_owned();
        };
        match self {
            Bound::AtMost(bound) if figure <= bound => "met".to_owned(),
            Bound::AtLeast(bound) | Bound::NoLessThan(bound) if figure >= bound => "met".to_owned(),
            Bound::AtMost(bound) => format!("missed: {figure:.2} is above {bound:.2}"),
            Bound::AtLeast(bound) => format!("missed: {figure:.1}% is below {bound}%"),
            Bound::NoLessThan(bound) => format!("missed: {figure:.2} is below {bound:.2}"),
        }
    }
}

/// The targets, each with its verdict:
///
/// - scenario 2 (41/0/22, one shared generator, 1 and 2 threads): snowmint's ns per ID per
///   thread ÷ ferroid's ≤ 0.8 on 1 thread and ≤ 1 on 2 (and `snowmint-monotonic`'s ratio,
///   without a target);
/// - per thread, a `LocalGenerator` whose type fixes 41/0/22 against ferroid's
///   `BasicSnowflakeGenerator` (the scaling table's pairing), 1 and 2 threads: ≥ 1.25× its
///   aggregate IDs/s;
/// - default-built `LocalGenerator`s, one per thread, on 2 threads: ns per ID per thread ÷
///   ferroid's shared generator's on 2 threads ≤ 0.5 (twice its aggregate IDs/s);
/// - scenario 5 (one mint every 500 ns, Twitter layout): snowmint's p99.9 ÷ ferroid's ≤ 1
///   (and `snowmint-monotonic`'s, without a target);
/// - scenario 1 (Twitter layout, one shared generator): ≥ 99.5% of the ceiling with 1, 2 and
///   8 threads, and ≥ 97% with 2 threads while another process spins on every core
///   ([`Spinner`]), ferroid's figure beside it; for that last run also the % of the ceiling
///   over the ticks in which a minting thread had a core, and the share of ticks in which
///   none had (no ID minted), which separates what the generator makes of its time on a core
///   from the time the scheduler gave it;
/// - the default clock, idle: at most 10 wake-ups a second of [`CachedClock::global`] while
///   default-built generators are held but not used.
///
/// Every contender is built as a user builds it, and checked first, as in the scenarios. The
/// ratios come from rounds that measure the contenders of a row back to back, in an order
/// that changes from round to round (every rotation, forwards and backwards), each divided by
/// ferroid's within the round, so that drift in the machine's speed (another tenant,
/// frequency) falls on all of them alike instead of on whichever criterion happened to time
/// during it. A round of scenarios 2 and 3 mints `PAIRED_IDS` per contender, shared out among
/// the threads; of scenario 5, `PAIRED_PACED_MINTS` at one every `PACE_NS`. Scenario 1's
/// percentages are medians of `SATURATION_ROUNDS` rounds of `TARGET_SATURATION_RUN` each, in
/// alternating order.
pub fn targets(summary: &mut Summary) {
    let columns = columns(&["median (lowest–highest)", "target", "verdict", "beside it"]);
    let table = summary.table_of(
        "target",
        &format!(
            "Targets (ratios: medians of per-round ratios to ferroid's shared \
             AtomicSnowflakeGenerator over {PAIRED_ROUNDS} rounds; saturation: medians of \
             {SATURATION_ROUNDS} rounds)"
        ),
        &columns,
    );
    summary.note(table, RATIO_NOTE);
    println!("\ntargets:");
    // A row's figure (`None` where no round gave one), and beside it what else it shows and
    // how many of its rounds were inconclusive.
    let mut row = |name: &str,
                   shown: String,
                   figure: Option<f64>,
                   target: Option<(Bound, &str)>,
                   beside: String,
                   inconclusive: Option<String>| {
        let beside = match inconclusive {
            Some(note) => format!("{beside}; {note}"),
            None => beside,
        };
        let (target, verdict) = target
            .map_or(("none".to_owned(), "—".to_owned()), |(bound, text)| {
                (text.to_owned(), bound.verdict(figure))
            });
        println!("target {name}: {shown}; target {target}: {verdict}; {beside}");
        for (column, text) in columns.iter().zip([shown, target, verdict, beside]) {
            summary.set(table, name, column, Cell::Text(text));
        }
    };
    let at_most_1 = Some((Bound::AtMost(1.0), "≤ 1.00"));

    // Scenario 2.
    let hot = hot_set();
    for threads in [1, 2] {
        check(&hot.snowmint, "targets, s2", threads);
        check(&hot.snowmint_monotonic, "targets, s2", threads);
        check(&hot.ferroid, "targets, s2", threads);
        let iters = PAIRED_IDS / threads as u64;
        let rounds: Rounds<3> = rotated(PAIRED_ROUNDS, |k| {
            Some(match k {
                0 => ns_per_id(&hot.snowmint, threads, iters),
                1 => ns_per_id(&hot.snowmint_monotonic, threads, iters),
                _ => ns_per_id(&hot.ferroid, threads, iters),
            })
        });
        let snowmint_target = if threads == 1 {
            Some((Bound::AtMost(0.8), "≤ 0.80"))
        } else {
            at_most_1
        };
        for (k, contender, target) in [
            (0, "snowmint", snowmint_target),
            (1, "snowmint-monotonic", None),
        ] {
            let ratio = rounds.ratio_to_last(k);
            row(
                &format!("s2 hot path, shared, {threads} thr: {contender} ÷ ferroid (ns/ID)"),
                shown_or_inconclusive(ratio, 2, ""),
                ratio.map(|ratio| ratio.median),
                target,
                medians_beside(&rounds, k, "ns per ID per thread", 2),
                rounds.note(),
            );
        }
    }

    // Per-thread generators whose type fixes the layout against ferroid's, per thread: IDs/s.
    for threads in [1, 2] {
        let fixed = snowmint_local_fixed_shards(threads);
        let rounds = if threads == 1 {
            per_thread_rounds(&fixed, &ferroid_own_of::<FerroidHot>(threads), threads)
        } else {
            per_thread_rounds(&fixed, &ferroid_own_of::<FerroidShard1>(threads), threads)
        };
        let ratio = rounds.ratio_to_last(0);
        row(
            &format!(
                "per-thread LocalGenerator<_, Hot> ÷ ferroid Basic, {threads} thr (aggregate \
                 IDs/s)"
            ),
            shown_or_inconclusive(ratio, 2, ""),
            ratio.map(|ratio| ratio.median),
            Some((Bound::NoLessThan(1.25), "≥ 1.25")),
            medians_beside(&rounds, 0, "M IDs/s", 0),
            rounds.note(),
        );
    }

    // Per-thread generators against ferroid's shared one, on 2 threads: twice its aggregate
    // IDs/s is half its ns per ID per thread.
    let threads = 2;
    let local = snowmint_local_shards(threads);
    check(&local, "targets, per-thread", threads);
    check(&hot.ferroid, "targets, per-thread", threads);
    let iters = PAIRED_IDS / threads as u64;
    let rounds: Rounds<2> = rotated(PAIRED_ROUNDS, |k| {
        Some(match k {
            0 => ns_per_id(&local, threads, iters),
            _ => ns_per_id(&hot.ferroid, threads, iters),
        })
    });
    let ratio = rounds.ratio_to_last(0);
    row(
        "per-thread LocalGenerator, 2 thr ÷ ferroid shared, 2 thr (ns/ID)",
        shown_or_inconclusive(ratio, 2, ""),
        ratio.map(|ratio| ratio.median),
        Some((Bound::AtMost(0.5), "≤ 0.50 (2× the IDs/s)")),
        medians_beside(&rounds, 0, "ns per ID per thread", 2),
        rounds.note(),
    );

    // Scenario 5 (`paced_run` checks what it mints). A p99.9 of one round's mints is a few
    // ticks of a 10 ns timer, so the row also gives each contender's p99.9 over all rounds.
    let twitter = twitter_set();
    let clock = quanta::Clock::new();
    let mut pooled: [Vec<u64>; 3] = Default::default();
    let mut runs = 0;
    let rounds: Rounds<3> = rotated(PAIRED_ROUNDS, |k| {
        let (latencies, ..) = match k {
            0 => paced_run(
                &twitter.snowmint,
                &clock,
                PACE_NS,
                PAIRED_PACED_MINTS,
                "s5 paced",
            ),
            1 => paced_run(
                &twitter.snowmint_monotonic,
                &clock,
                PACE_NS,
                PAIRED_PACED_MINTS,
                "s5 paced",
            ),
            _ => paced_run(
                &twitter.ferroid,
                &clock,
                PACE_NS,
                PAIRED_PACED_MINTS,
                "s5 paced",
            ),
        };
        let p999 = percentile(&latencies, 0.999) as f64;
        // The warm-up round's three runs are left out, as `rotated` leaves out its figures.
        runs += 1;
        if runs > 3 {
            pooled[k].extend(latencies);
        }
        Some(p999)
    });
    let overall: Vec<u64> = pooled
        .iter_mut()
        .map(|latencies| {
            latencies.sort_unstable();
            percentile(latencies, 0.999)
        })
        .collect();
    for (k, contender, target) in [(0, "snowmint", at_most_1), (1, "snowmint-monotonic", None)] {
        let ratio = rounds.ratio_to_last(k);
        row(
            &format!("s5 paced, 1 per {PACE_NS} ns, twitter: {contender} ÷ ferroid (p99.9)"),
            shown_or_inconclusive(ratio, 2, ""),
            ratio.map(|ratio| ratio.median),
            target,
            format!(
                "{} (medians); over all rounds {} / {} ns",
                medians_beside(&rounds, k, "ns", 0),
                overall[k],
                overall[2]
            ),
            rounds.note(),
        );
    }

    // Scenario 1, and with another process spinning on every core.
    let ceiling = twitter
        .snowmint
        .spec()
        .ceiling
        .expect("the Twitter layout's ceiling") as f64;
    // A round is inconclusive where a run spanned no whole tick ([`saturation_rate`]).
    let saturation = |threads: usize| -> Rounds<2> {
        rotated(SATURATION_ROUNDS, |k| {
            let rate = match k {
                0 => saturation_rate(&twitter.snowmint, threads, TARGET_SATURATION_RUN),
                _ => saturation_rate(&twitter.ferroid, threads, TARGET_SATURATION_RUN),
            };
            rate.map(|rate| 100.0 * rate / ceiling)
        })
    };
    let mut saturation_row = |name: &str, rounds: Rounds<2>, bound: f64| {
        let [snowmint, ferroid]: [Option<Spread>; 2] = [0, 1].map(|k| rounds.spread(k));
        row(
            name,
            shown_or_inconclusive(snowmint, 1, "%"),
            snowmint.map(|snowmint| snowmint.median),
            Some((Bound::AtLeast(bound), &format!("≥ {bound}%"))),
            format!(
                "ferroid {}",
                shown_or_inconclusive(ferroid, 1, "%").replace("**", "")
            ),
            rounds.note(),
        );
    };
    for threads in S1_THREADS {
        check(&twitter.snowmint, "targets, s1", threads);
        check(&twitter.ferroid, "targets, s1", threads);
        saturation_row(
            &format!("s1 saturation, twitter, shared, {threads} thr: snowmint, % of ceiling"),
            saturation(threads),
            99.5,
        );
    }
    // Every core busy: each run's ticks in which no minting thread had a core are counted
    // apart, as is the rate over the others.
    let mut detail: [Vec<Saturation>; 2] = Default::default();
    let mut runs = 0;
    let busy = {
        let _spinner = Spinner::start();
        rotated(SATURATION_ROUNDS, |k| {
            let run = match k {
                0 => saturation_of(&twitter.snowmint, 2, TARGET_SATURATION_RUN),
                _ => saturation_of(&twitter.ferroid, 2, TARGET_SATURATION_RUN),
            };
            // The warm-up round's two runs are left out, as `rotated` leaves out its figures.
            runs += 1;
            if runs > 2 {
                detail[k].extend(run);
            }
            run.map(|run| 100.0 * run.rate / ceiling)
        })
    };
    saturation_row(
        "s1 saturation, twitter, shared, 2 thr, every core busy: snowmint, % of ceiling",
        busy,
        97.0,
    );
    let [on_core, ferroid_on_core] = detail.each_ref().map(|runs| {
        let rates: Vec<f64> = runs
            .iter()
            .map(|run| 100.0 * run.minted_rate / ceiling)
            .collect();
        let empty: Vec<f64> = runs
            .iter()
            .map(|run| 100.0 * run.empty_ticks as f64 / run.whole_ticks.max(1) as f64)
            .collect();
        (Spread::of(rates.into_iter()), Spread::of(empty.into_iter()))
    });
    row(
        "s1 saturation, twitter, shared, 2 thr, every core busy, ticks a minting thread had a \
         core in: snowmint, % of ceiling",
        shown_or_inconclusive(on_core.0, 1, "%"),
        on_core.0.map(|spread| spread.median),
        Some((Bound::AtLeast(97.0), "≥ 97%")),
        format!(
            "ferroid {}; ticks in which no minting thread had a core (no ID): {} of \
             snowmint's, {} of ferroid's",
            shown_or_inconclusive(ferroid_on_core.0, 1, "%").replace("**", ""),
            shown_or_inconclusive(on_core.1, 1, "%").replace("**", ""),
            shown_or_inconclusive(ferroid_on_core.1, 1, "%").replace("**", ""),
        ),
        None,
    );

    // The default clock while its generators sit idle.
    let (wakeups, idle) = idle_wakeups();
    let rate = wakeups as f64 / idle.as_secs_f64();
    row(
        "idle: CachedClock::global() wake-ups per second, default-built generators held",
        format!("**{rate:.1}/s**"),
        Some(rate),
        Some((Bound::AtMost(10.0), "≤ 10/s")),
        format!(
            "{wakeups} wake-ups in {:.2} s, after {} ms of settling",
            idle.as_secs_f64(),
            IDLE_SETTLE.as_millis()
        ),
        None,
    );
}

/// Checks `a` and `b` on `threads` threads, then times their aggregate IDs/s (in millions) in
/// `PAIRED_ROUNDS` paired rounds of `PER_THREAD_IDS` each.
fn per_thread_rounds<A: Contender, B: Contender>(a: &A, b: &B, threads: usize) -> Rounds<2> {
    check(a, "targets, per-thread", threads);
    check(b, "targets, per-thread", threads);
    let iters = PER_THREAD_IDS / threads as u64;
    rotated(PAIRED_ROUNDS, |k| {
        Some(
            match k {
                0 => ids_per_s(a, threads, iters),
                _ => ids_per_s(b, threads, iters),
            } / 1e6,
        )
    })
}

/// `a / b unit` of contender `k`'s and the last contender's median figures, with `decimals`
/// decimals; "no conclusive round" where there were none.
fn medians_beside<const N: usize>(
    rounds: &Rounds<N>,
    k: usize,
    unit: &str,
    decimals: usize,
) -> String {
    rounds.medians().map_or_else(
        || "no conclusive round".to_owned(),
        |medians| {
            format!(
                "{:.decimals$} / {:.decimals$} {unit}",
                medians[k],
                medians[N - 1]
            )
        },
    )
}

/// Builds default-built generators of every form, mints a little from each, and holds them
/// unused for `IDLE_SETTLE` and then `IDLE_WINDOW`: how many times the default clock's
/// refresher woke in the window, and the window's length.
fn idle_wakeups() -> (u64, Duration) {
    let shared = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build()
        .expect("valid layout");
    let local = Generator::builder(HOT).build_local().expect("valid layout");
    let sharded = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .build_sharded(Shards::SplitSequence(2))
        .expect("valid layout and shard count");
    let local_shards = Generator::builder(HOT)
        .build_local_shards(Shards::SplitSequence(2))
        .expect("valid layout and shard count");
    for _ in 0..1_000 {
        black_box(shared.mint().expect("mint"));
        black_box(local.mint().expect("mint"));
        black_box(sharded.mint().expect("mint"));
        for generator in &local_shards {
            black_box(generator.mint().expect("mint"));
        }
    }
    thread::sleep(IDLE_SETTLE);
    let (before, start) = (CachedClock::global().wakeups(), Instant::now());
    thread::sleep(IDLE_WINDOW);
    let (after, idle) = (CachedClock::global().wakeups(), start.elapsed());
    black_box((&shared, &local, &sharded, &local_shards));
    (after - before, idle)
}

/// Another process spinning one thread per core, until dropped: this bench's own executable,
/// run with `SPIN_ENV` set (see [`spin`]). Dropping it kills the process, also when a panic
/// unwinds past it; if this process dies without unwinding, the spinner stops on its own
/// after `SPIN_LIMIT`.
struct Spinner(Child);

impl Spinner {
    /// Starts the spinner and returns once its threads spin.
    fn start() -> Spinner {
        let mut child = Command::new(std::env::current_exe().expect("this bench's executable"))
            .env(SPIN_ENV, SPIN_LIMIT.as_secs().to_string())
            .env_remove("SNOWMINT_PAIRED_ONLY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the spinning process");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the spinner's stdout");
        let spinner = Spinner(child);
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the spinner's stdout");
        assert_eq!(line.trim(), "spinning", "the spinner did not start");
        spinner
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        // The process may have ended on its own (after `SPIN_LIMIT`): nothing to kill then.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The spinner's `main`: one thread per core spins for `seconds`, then the process ends.
pub fn spin(seconds: &str) {
    let seconds: u64 = seconds
        .parse()
        .expect("SNOWMINT_SPIN_SECONDS: whole seconds");
    let until = Instant::now() + Duration::from_secs(seconds);
    let cores = thread::available_parallelism().map_or(2, usize::from);
    thread::scope(|s| {
        for _ in 0..cores {
            s.spawn(|| {
                while Instant::now() < until {
                    for _ in 0..1_000 {
                        spin_loop();
                    }
                }
            });
        }
        let mut stdout = std::io::stdout();
        writeln!(stdout, "spinning").expect("tell the bench the threads spin");
        stdout.flush().expect("tell the bench the threads spin");
    });
}
