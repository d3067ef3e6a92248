//! The tails section: p50, p99, p99.9 and max of single mint calls on one thread, on the
//! Twitter layout, where a tick's sequence runs out and where the clock steps back: near the
//! layout's ceiling, at it (ticks filling), and across a step back of the clock under each
//! policy (see the bench's docs).

use std::hint::spin_loop;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

use ferroid::generator::AtomicSnowflakeGenerator;
use ferroid::id::SnowflakeTwitterId;
use ferroid::time::TimeSource;
use snowflake_me::ClockDriftStrategy;
use snowmint::clock::CachedClock;
use snowmint::{Clock, ClockBehind, Error, Generator, Layout};

use crate::contenders::{
    Contender, Order, Spec, each_shared, ferroid_clock, snowflake_me_builder, twitter_set,
};
use crate::measure::{Gap, check_ids, paced_run, percentile, wall_ms};
use crate::summary::{Cell, Summary, columns};
use crate::support::EPOCH_MS;

/// Set to `1` in the environment, the bench runs only this section.
pub const TAILS_ONLY_ENV: &str = "SNOWMINT_TAILS_ONLY";

/// Near the ceiling: one mint every 250 ns, 4.0 M/s against the layout's 4.096 M/s (97.7%),
/// for 0.1 s.
const NEAR_PACE_NS: u64 = 250;
const NEAR_MINTS: usize = 400_000;
/// The same share of sonyflake's ceiling: 25,000/s of 25,600/s, for 0.1 s.
const SONYFLAKE_NEAR_PACE_NS: u64 = 40_000;
const SONYFLAKE_NEAR_MINTS: usize = 2_500;
/// At the ceiling: back to back, 100 full ticks of 4,096 IDs (sonyflake: 10 of 256 in 10 ms).
const AT_MINTS: usize = 409_600;
const SONYFLAKE_AT_MINTS: usize = 2_560;

/// Across a step back: one mint every 500 ns for 1.5 s, the clock stepped back 0.25 s in.
const STEP_PACE_NS: u64 = 500;
const STEP_WINDOW_NS: u64 = 1_500_000_000;
const STEP_AT_NS: u64 = 250_000_000;
/// The steps back, in ms.
const STEPS_MS: [u64; 2] = [5, 1_000];

/// The figures of a table row of single calls' latencies: p99.99 beside the p99.9, since on a
/// 12-bit sequence one call in 4,096 (0.024%) finds its tick full.
const LATENCY_COLUMNS: [&str; 5] = ["p50", "p99", "p99.9", "p99.99", "max"];

/// The section: its three tables, and each row's p99.9 for the plot.
pub fn tails(summary: &mut Summary) {
    let clock = quanta::Clock::new();
    near_and_at_ceiling(summary, &clock);
    step_back(summary, &clock);
}

/// Tables "near the ceiling" and "at the ceiling": every contender of the Twitter set.
fn near_and_at_ceiling(summary: &mut Summary, clock: &quanta::Clock) {
    let set = twitter_set();
    let names: Vec<String> = columns(&["mints", "every", "achieved"])
        .into_iter()
        .chain(columns(&LATENCY_COLUMNS))
        .collect();
    let near = summary.table(
        "Tails: near the ceiling, one thread, Twitter layout (ns per call; one mint every \
         250 ns = 4.0 M/s of 4.096 M/s, sonyflake 40 µs = 25,000/s of 25,600/s)",
        &names,
    );
    let at = summary.table(
        "Tails: at the ceiling (back to back, ticks filling), one thread, Twitter layout (ns \
         per call; 100 full ticks' worth: 409,600 mints, sonyflake 2,560)",
        &names,
    );
    summary.note(
        near,
        "achieved: the rate the loop kept, over the run's wall time (a run that starts partway \
         through a tick can pass the ceiling by the rest of that tick's IDs); a contender \
         whose call (with the loop's own reads) takes longer than the period falls behind it, \
         and the next mint is one period after the last, with no catching up.",
    );
    summary.note(
        at,
        "On a layout with a sequence ceiling, one call in 4,096 (0.024%; sonyflake: one in \
         256, 0.4%) finds its tick full and waits for the next, which it shows in the p99.99 \
         and the max, not the p99.9 (sonyflake's p99.9 shows it); a generator that fills a \
         tick in 40 µs waits most of a ms. uuid-v7, ulid, scru128 and xid have no ceiling at \
         this rate, and yitter borrows ticks ahead instead of waiting (achieved above 4.096 M/s).",
    );
    println!("\ntails (ns per call, quanta raw counter around each mint):");
    each_shared!(&set, |x| {
        let sonyflake = x.spec().name == "sonyflake";
        let (pace, count) = if sonyflake {
            (SONYFLAKE_NEAR_PACE_NS, SONYFLAKE_NEAR_MINTS)
        } else {
            (NEAR_PACE_NS, NEAR_MINTS)
        };
        paced_row(summary, near, "near", x, clock, pace, count);
        let count = if sonyflake {
            SONYFLAKE_AT_MINTS
        } else {
            AT_MINTS
        };
        paced_row(summary, at, "at", x, clock, 0, count);
    });
}

/// One row of a paced table: `count` mints of `c`, one every `pace` ns (0: back to back).
fn paced_row<C: Contender>(
    summary: &mut Summary,
    table: usize,
    which: &str,
    c: &C,
    clock: &quanta::Clock,
    pace: u64,
    count: usize,
) {
    let name = c.spec().name;
    let (latencies, _, took) = paced_run(c, clock, pace, count, &format!("tails {which}"));
    let achieved = count as f64 / took.as_secs_f64();
    let achieved = if achieved < 1e5 {
        format!("{achieved:.0}/s")
    } else {
        format!("{:.2} M/s", achieved / 1e6)
    };
    let every = if pace == 0 {
        "back to back".to_owned()
    } else {
        format!("{pace} ns")
    };
    let mut figures = vec![count.to_string(), every, achieved];
    figures.extend(latency_figures(&latencies));
    println!("tails {which}: {name:<16} {}", figures.join(", "));
    for (column, figure) in columns(&["mints", "every", "achieved"])
        .iter()
        .chain(&columns(&LATENCY_COLUMNS))
        .zip(figures)
    {
        summary.set(table, name, column, Cell::Text(figure));
    }
    summary.bar(
        &format!("{which} ceiling: {name}"),
        percentile(&latencies, 0.999) as f64,
    );
}

/// p50, p99, p99.9 and max of sorted `latencies`.
fn latency_figures(latencies: &[u64]) -> Vec<String> {
    if latencies.is_empty() {
        return vec!["n/a".to_owned(); LATENCY_COLUMNS.len()];
    }
    vec![
        percentile(latencies, 0.5).to_string(),
        percentile(latencies, 0.99).to_string(),
        percentile(latencies, 0.999).to_string(),
        percentile(latencies, 0.9999).to_string(),
        latencies[latencies.len() - 1].to_string(),
    ]
}

// ---------------------------------------------------------------------------------------------
// Across a step back of the clock
// ---------------------------------------------------------------------------------------------

/// A clock that reads `inner` less `back` ms, which the run sets to step it back.
struct SteppedClock<C> {
    inner: C,
    back: Arc<AtomicU64>,
}

impl<C: Clock> Clock for SteppedClock<C> {
    fn unix_ms(&self) -> u64 {
        self.inner.unix_ms() - self.back.load(Ordering::Relaxed)
    }

    fn unix_ms_precise(&self) -> u64 {
        self.inner.unix_ms_precise() - self.back.load(Ordering::Relaxed)
    }
}

/// ferroid's ticker clock less `back` ms: ferroid reads the time through a `TimeSource` of
/// the caller's.
struct SteppedFerroidClock {
    inner: ferroid::time::MonotonicClock,
    back: Arc<AtomicU64>,
}

impl TimeSource<u64> for SteppedFerroidClock {
    fn current_millis(&self) -> u64 {
        TimeSource::<u64>::current_millis(&self.inner) - self.back.load(Ordering::Relaxed)
    }
}

/// What a run across a step saw: every call's latency, sorted, and the refused calls'.
struct Stepped {
    latencies: Vec<u64>,
    refused: Vec<u64>,
}

/// One call of `mint` every `STEP_PACE_NS` for `STEP_WINDOW_NS`, `back` set to `step_ms`
/// `STEP_AT_NS` in; `mint` gives `None` for a refused call. Checks the IDs minted
/// ([`check_ids`]) as `spec` promises.
fn stepped_run(
    spec: &Spec,
    config: &str,
    clock: &quanta::Clock,
    back: &AtomicU64,
    step_ms: u64,
    mut mint: impl FnMut() -> Option<u128>,
) -> Stepped {
    let slots = (STEP_WINDOW_NS / STEP_PACE_NS) as usize;
    let mut latencies = Vec::with_capacity(slots);
    let mut ids = Vec::with_capacity(slots);
    let mut gap = Gap::default();
    let mut refused = Vec::new();
    let mut stepped = false;
    let base = clock.raw();
    let mut due = 0;
    while due < STEP_WINDOW_NS {
        while clock.delta_as_nanos(base, clock.raw()) < due {
            spin_loop();
        }
        if !stepped && due >= STEP_AT_NS {
            back.store(step_ms, Ordering::Relaxed);
            stepped = true;
        }
        let start = clock.raw();
        let minted = mint();
        let end = clock.raw();
        let latency = clock.delta_as_nanos(start, end);
        latencies.push(latency);
        match minted {
            Some(id) => {
                gap.record(spec, id, wall_ms());
                ids.push(id);
            }
            None => refused.push(latency),
        }
        // No catching up after a stall: the next mint is one period after this one.
        due = (due + STEP_PACE_NS).max(clock.delta_as_nanos(base, end));
    }
    check_ids(spec, config, &[ids], gap);
    latencies.sort_unstable();
    refused.sort_unstable();
    Stepped { latencies, refused }
}

/// The Twitter layout with a tick-tock bit where the machine field's top bit was: 41 time
/// bits, the tick-tock bit, 9 machine bits, 12 sequence bits (the ceiling stays 4.096 M/s).
fn twitter_tick_tock() -> Layout {
    Layout::builder("twitter-tick-tock", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(EPOCH_MS)
        .build()
        .expect("valid tick-tock layout")
}

/// The table across a step back: snowmint under each policy, ferroid, snowflake_me under each
/// of its strategies, and a row for each peer that reads the system clock itself.
fn step_back(summary: &mut Summary, clock: &quanta::Clock) {
    let names: Vec<String> = columns(&["calls", "refused", "refused: p50 / max"])
        .into_iter()
        .chain(columns(&LATENCY_COLUMNS))
        .collect();
    let table = summary.table_of(
        "contender, policy, step back",
        "Tails: across a step back of the clock, one thread (ns per call; one call every \
         500 ns for 1.5 s, the clock stepped back 0.25 s in; a refused call counts as a call)",
        &names,
    );
    summary.note(
        table,
        "snowmint runs on its default clock read through a wrapper that subtracts the step; \
         Wait and TickTock are given max_ms = twice the step. TickTock runs on 41 time bits, \
         the tick-tock bit and 9 machine bits (one machine bit fewer than Twitter's 10), 12 \
         sequence bits; its IDs after the step are lower than those before it (the earlier \
         time, on the other timeline), so its check asks uniqueness only. ferroid runs on its \
         ticker clock through a TimeSource that subtracts the step, and waits (yielding) until \
         the clock is back at its last tick: it has no policy to choose. snowflake_me takes a \
         clock of the caller's (Builder::clock_source, here the system clock less the step) \
         and a ClockDriftStrategy: Wait (its default; max_clock_drift_ms = twice the step), \
         Error, and LastTimestamp (it keeps minting at its last time).",
    );
    println!("\ntails across a step back (ns per call):");
    for step_ms in STEPS_MS {
        let max_ms = 2 * step_ms;
        for (policy, label) in [
            (
                ClockBehind::Wait { max_ms },
                format!("Wait {{ max_ms: {max_ms} }}"),
            ),
            (ClockBehind::Error, "Error".to_owned()),
            (
                ClockBehind::TickTock { max_ms },
                format!("TickTock {{ max_ms: {max_ms} }}"),
            ),
        ] {
            let layout = if matches!(policy, ClockBehind::TickTock { .. }) {
                twitter_tick_tock()
            } else {
                Layout::TWITTER
            };
            let back = Arc::new(AtomicU64::new(0));
            let generator = Generator::builder(layout)
                .default_nodes()
                .on_clock_behind(policy)
                .clock(SteppedClock {
                    inner: CachedClock::global(),
                    back: Arc::clone(&back),
                })
                .build()
                .expect("valid layout");
            let mut spec = Spec::of_layout("snowmint", &layout);
            if matches!(policy, ClockBehind::TickTock { .. }) {
                spec.order = Order::Unordered;
            }
            let row = format!("snowmint, {label}, {step_ms} ms");
            let run = stepped_run(&spec, &row, clock, &back, step_ms, || {
                match generator.mint() {
                    Ok(id) => Some(id.to_u64().into()),
                    Err(Error::ClockBehind { .. }) => None,
                    Err(error) => panic!("CHECK FAILED: {row}: {error}"),
                }
            });
            step_row(summary, table, &row, &run);
        }
        let back = Arc::new(AtomicU64::new(0));
        let ferroid: AtomicSnowflakeGenerator<SnowflakeTwitterId, _> =
            AtomicSnowflakeGenerator::new(
                0,
                SteppedFerroidClock {
                    inner: ferroid_clock(),
                    back: Arc::clone(&back),
                },
            );
        let spec = Spec::snowflake("ferroid", 41, 22, 12);
        let row = format!("ferroid, waits, {step_ms} ms");
        let run = stepped_run(&spec, &row, clock, &back, step_ms, || {
            let id = ferroid.next_id(|_| thread::yield_now());
            Some(id.to_raw().into())
        });
        step_row(summary, table, &row, &run);
        for (strategy, label) in [
            (
                ClockDriftStrategy::Wait,
                format!("Wait, max_clock_drift_ms {max_ms}"),
            ),
            (ClockDriftStrategy::Error, "Error".to_owned()),
            (
                ClockDriftStrategy::LastTimestamp,
                "LastTimestamp".to_owned(),
            ),
        ] {
            let back = Arc::new(AtomicU64::new(0));
            let source = Arc::clone(&back);
            let generator = snowflake_me_builder(5)
                .clock_source(move || (wall_ms() - source.load(Ordering::Relaxed)) as i64)
                .clock_drift_strategy(strategy)
                .max_clock_drift_ms(max_ms as i64)
                .finalize()
                .expect("valid snowflake_me configuration");
            let spec = Spec::snowflake("snowflake_me", 41, 22, 12);
            let row = format!("snowflake_me, {label}, {step_ms} ms");
            let run = stepped_run(&spec, &row, clock, &back, step_ms, || {
                match generator.next_id() {
                    Ok(id) => Some(id.as_u64().into()),
                    Err(snowflake_me::Error::ClockDrift { .. }) => None,
                    Err(error) => panic!("CHECK FAILED: {row}: {error}"),
                }
            });
            step_row(summary, table, &row, &run);
        }
    }
    let set = twitter_set();
    each_shared!(&set, |x| {
        let name = x.spec().name;
        let why = match name {
            "snowmint" | "ferroid" | "snowflake_me" => None,
            "snowmint-monotonic" => Some(
                "not stepped: snowmint's generator on another clock; its policies are \
                 snowmint's rows",
            ),
            "ulid" => Some(
                "not stepped: its monotonic Generator's generate reads SystemTime internally \
                 (generate_from_datetime, which takes the caller's time, is not the form run \
                 here)",
            ),
            "yitter" | "sonyflake" => {
                Some("cannot be stepped: reads the system clock (chrono) internally")
            }
            _ => Some("cannot be stepped: reads SystemTime internally"),
        };
        if let Some(why) = why {
            summary.set(table, name, "calls", Cell::Text(why.to_owned()));
        }
    });
}

/// One row of the step table.
fn step_row(summary: &mut Summary, table: usize, row: &str, run: &Stepped) {
    let refused = match run.refused.last() {
        Some(longest) => format!("{} / {longest}", percentile(&run.refused, 0.5)),
        None => "—".to_owned(),
    };
    let mut figures = vec![
        run.latencies.len().to_string(),
        run.refused.len().to_string(),
        refused,
    ];
    figures.extend(latency_figures(&run.latencies));
    println!("tails step: {row:<40} {}", figures.join(", "));
    for (column, figure) in columns(&["calls", "refused", "refused: p50 / max"])
        .iter()
        .chain(&columns(&LATENCY_COLUMNS))
        .zip(figures)
    {
        summary.set(table, row, column, Cell::Text(figure));
    }
    summary.bar(
        &format!("step: {row}"),
        percentile(&run.latencies, 0.999) as f64,
    );
}
