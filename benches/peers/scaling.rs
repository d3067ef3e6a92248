//! The scaling scenario: 1, 2, 4, 8 and 16 threads on 41/0/22, three pairings, each as paired
//! rounds of aggregate IDs/s (see the bench's docs).

use std::thread;

use crate::contenders::{
    Contender, FerroidHot, FerroidShard, FerroidShard1, FerroidShard2, FerroidShard3,
    ferroid_own_of, hot_set, snowmint_local_fixed_shards, snowmint_local_shards, snowmint_sharded,
};
use crate::measure::{check, distinct_shards, ids_per_s};
use crate::rounds::{Rounds, rotated, shown_or_inconclusive};
use crate::summary::{Cell, RATIO_NOTE, Summary};

/// Set to `1` in the environment, the bench runs only this scenario.
pub const SCALING_ONLY_ENV: &str = "SNOWMINT_SCALING_ONLY";
/// The thread counts.
const THREADS: [usize; 5] = [1, 2, 4, 8, 16];
/// Rounds per row, after one of warm-up: a multiple of 4, so that each contender of a pair
/// runs first equally often.
const ROUNDS: usize = 8;
/// IDs per contender per round, shared out among the threads: 50 to 100 ms of minting for
/// each contender on the 2-core machine, so a row takes one to two seconds there.
const PER_THREAD_IDS: u64 = 64_000_000;
const SHARDED_IDS: u64 = 32_000_000;
const SHARED_IDS: u64 = 16_000_000;

/// One table of the scenario: what its rows pair, and how many IDs a round mints.
struct Pairing {
    table: usize,
    /// The two contenders, as the plot names them.
    names: [String; 2],
    columns: [String; 4],
    ids: u64,
}

impl Pairing {
    fn new(summary: &mut Summary, title: &str, [a, b]: [&str; 2], ids: u64) -> Pairing {
        let columns = [
            format!("{a}: M IDs/s"),
            format!("{b}: M IDs/s"),
            format!("{a} ÷ {b}, IDs/s"),
            "notes".to_owned(),
        ];
        let table = summary.table_of("threads", title, &columns);
        summary.note(table, RATIO_NOTE);
        Pairing {
            table,
            names: [a.to_owned(), b.to_owned()],
            columns,
            ids,
        }
    }

    /// Checks `a` and `b` on `threads` threads, then times them in paired rounds, back to
    /// back in alternating order, each round's threads started together at a barrier once
    /// each holds what it mints through ([`crate::measure::timed`]); sets the row `row` to
    /// their median aggregate IDs/s and the median of the per-round ratios a ÷ b, with the
    /// lowest and the highest, and `notes`.
    #[allow(clippy::too_many_arguments, reason = "one row's every input, named")]
    fn row<A: Contender, B: Contender>(
        &self,
        summary: &mut Summary,
        row: &str,
        threads: usize,
        a: &A,
        b: &B,
        mut notes: Vec<String>,
    ) {
        check(a, "scaling", threads);
        check(b, "scaling", threads);
        let full_ticks = || a.full_ticks().unwrap_or(0) + b.full_ticks().unwrap_or(0);
        let full_before = full_ticks();
        let iters = self.ids / threads as u64;
        let rounds: Rounds<2> = rotated(ROUNDS, |k| {
            Some(match k {
                0 => ids_per_s(a, threads, iters),
                _ => ids_per_s(b, threads, iters),
            })
        });
        let full = full_ticks() - full_before;
        if full > 0 {
            let ticks = if full == 1 { "tick" } else { "ticks" };
            notes.push(format!(
                "{full} full {ticks} of snowmint while timed (its clock's tick outlasted the \
                 sequence)"
            ));
        }
        notes.extend(rounds.note());
        for (k, name) in self.names.iter().enumerate() {
            if let Some(spread) = rounds.spread(k) {
                summary.point(name, threads, spread.median / 1e6);
            }
        }
        let millions = |k: usize| {
            rounds.spread(k).map_or_else(
                || "inconclusive".to_owned(),
                |spread| format!("{:.0}", spread.median / 1e6),
            )
        };
        let cells = [
            millions(0),
            millions(1),
            shown_or_inconclusive(rounds.ratio(0, 1), 2, ""),
            notes.join("; "),
        ];
        println!(
            "scaling: {row} thr: {}",
            self.columns
                .iter()
                .zip(&cells)
                .map(|(column, cell)| format!("{column} {cell}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (column, cell) in self.columns.iter().zip(cells) {
            summary.set(self.table, row, column, Cell::Text(cell));
        }
    }
}

/// The scaling scenario's three tables: on 1, 2, 4, 8 and 16 threads (those beyond
/// `available_parallelism()` marked oversubscribed), snowmint's `LocalGenerator` per thread
/// against ferroid's `BasicSnowflakeGenerator` per thread (each thread's sequence as wide as
/// the other's), snowmint's `ShardedGenerator` handle (a shard per thread, looked up per mint)
/// against its `LocalGenerator`s, and snowmint's shared `Generator` against ferroid's shared
/// `AtomicSnowflakeGenerator`; all default-built, as users build them.
pub fn scaling(summary: &mut Summary) {
    let cores = thread::available_parallelism().map_or(1, usize::from);
    let rounds = format!("medians of {ROUNDS} paired rounds");
    let per_thread = Pairing::new(
        summary,
        &format!(
            "Scaling, per thread against per thread: a generator per thread, 41/0/22 split \
             among the threads (aggregate IDs/s, {rounds})"
        ),
        ["snowmint LocalGenerator", "ferroid Basic"],
        PER_THREAD_IDS,
    );
    let fixed = Pairing::new(
        summary,
        &format!(
            "Scaling, per thread against per thread, the layout a type: a generator per thread \
             whose type fixes 41/0/22 (`build_local_shards_fixed`), as ferroid's ID type does \
             (aggregate IDs/s, {rounds})"
        ),
        ["snowmint LocalGenerator<_, Hot>", "ferroid Basic"],
        PER_THREAD_IDS,
    );
    let sharded = Pairing::new(
        summary,
        &format!(
            "Scaling, sharded against per thread: one ShardedGenerator handle, a shard per \
             thread, against a LocalGenerator per thread (aggregate IDs/s, {rounds})"
        ),
        ["snowmint ShardedGenerator", "snowmint LocalGenerator"],
        SHARDED_IDS,
    );
    let shared = Pairing::new(
        summary,
        &format!(
            "Scaling, shared against shared: one generator every thread mints from \
             (aggregate IDs/s, {rounds})"
        ),
        ["snowmint Generator", "ferroid atomic"],
        SHARED_IDS,
    );
    println!("\nscaling ({cores} cores):");
    for threads in THREADS {
        let row = if threads > cores {
            format!("{threads} (oversubscribed: {cores} cores)")
        } else {
            threads.to_string()
        };

        let local = snowmint_local_shards(threads);
        let local_fixed = snowmint_local_fixed_shards(threads);
        // ferroid's machine bits, log2(threads), are part of its ID's type.
        macro_rules! per_thread_row {
            ($id:ty) => {{
                let ferroid = ferroid_own_of::<$id>(threads);
                per_thread.row(summary, &row, threads, &local, &ferroid, vec![]);
                fixed.row(summary, &row, threads, &local_fixed, &ferroid, vec![]);
            }};
        }
        match threads {
            1 => per_thread_row!(FerroidHot),
            2 => per_thread_row!(FerroidShard1),
            4 => per_thread_row!(FerroidShard2),
            8 => per_thread_row!(FerroidShard3),
            _ => per_thread_row!(FerroidShard),
        }

        let handle = snowmint_sharded(threads);
        let shards = distinct_shards(&handle.generator, threads);
        let notes = if shards < threads {
            vec![format!(
                "the handle's {threads} threads minted from {shards} distinct shards"
            )]
        } else {
            vec![]
        };
        sharded.row(summary, &row, threads, &handle, &local, notes);

        let hot = hot_set();
        shared.row(summary, &row, threads, &hot.snowmint, &hot.ferroid, vec![]);
    }
}
