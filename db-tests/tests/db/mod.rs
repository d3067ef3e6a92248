//! The database tests' shared workload and checks: IDs minted on four threads from one
//! generator on a manual clock, in rounds at known times, each thread inserting its rows in
//! batches; then what the database must return for a time window and in ID order.

pub mod id128;

use std::error::Error as StdError;
use std::sync::Barrier;
use std::thread;

use snowmint::{Error, Generator, Id, Layout, clock::ManualClock};

use crate::common::clocks::{T0, on_manual_clock};
use crate::common::threads::on_threads;

/// The layout minted: every ID fits a signed 64-bit column.
pub const LAYOUT: Layout = Layout::TWITTER;
/// Threads minting from the one generator, each with its own connection.
pub const THREADS: usize = 4;
/// IDs each thread mints and inserts.
pub const PER_THREAD: usize = 25_000;
/// Rows per insert: one round's IDs on one thread.
pub const BATCH: usize = 1_000;
/// Rounds: in each, every thread mints [`BATCH`] IDs at [`round_ms`]`(round)`, 4,000 of the
/// 4,096 a twitter tick holds, so no mint waits for the clock.
pub const ROUNDS: usize = PER_THREAD / BATCH;
/// The window of [`check_window`]: the rounds minted in `[round_ms(5), round_ms(12))`.
pub const WINDOW: (u64, u64) = (round_ms(5), round_ms(12));

/// The manual clock's reading while the IDs of `round` are minted: 10 ms apart.
pub const fn round_ms(round: usize) -> u64 {
    T0 + 10 * round as u64
}

/// One minted ID with where and when it was minted.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub id: Id,
    /// The minting thread, `0..THREADS`.
    pub thread: i32,
    /// The ID's index among its thread's, `0..PER_THREAD`, in minting order.
    pub seq: i32,
    /// The manual clock's reading when it was minted.
    pub minted_ms: i64,
}

/// Mints `THREADS * PER_THREAD` IDs from one generator on [`THREADS`] threads, in
/// [`ROUNDS`] rounds at [`round_ms`], and has each thread insert each round's rows with its own
/// connection (`connect` runs once per thread); returns the rows per thread.
pub fn mint_and_insert<C>(
    connect: impl Fn() -> C + Sync,
    insert: impl Fn(&mut C, &[Row]) + Sync,
) -> Vec<Vec<Row>> {
    let (generator, clock): (Generator<ManualClock>, ManualClock) =
        on_manual_clock(Generator::builder(LAYOUT).node("machine", 1), round_ms(0));
    let barrier = Barrier::new(THREADS);
    on_threads(THREADS, |thread| {
        let mut rounds = Rounds {
            barrier: &barrier,
            clock: &clock,
            waited: 0,
        };
        let mut connection = connect();
        let mut rows = Vec::with_capacity(PER_THREAD);
        for round in 0..ROUNDS {
            let batch: Vec<Row> = (0..BATCH)
                .map(|i| Row {
                    id: generator.try_mint().expect("a round fits in one tick"),
                    thread: thread as i32,
                    seq: (round * BATCH + i) as i32,
                    minted_ms: round_ms(round) as i64,
                })
                .collect();
            rounds.wait();
            insert(&mut connection, &batch);
            rows.extend(batch);
            rounds.wait();
        }
        rows
    })
}

/// One thread's place in the rounds: two barrier waits a round, the first after every thread
/// has minted (one then moves the clock to the next round's), the second before any mints the
/// next. A thread that panics keeps its place until the last round, so the others finish and
/// the panic fails the test instead of hanging it.
struct Rounds<'a> {
    barrier: &'a Barrier,
    clock: &'a ManualClock,
    waited: usize,
}

impl Rounds<'_> {
    fn wait(&mut self) {
        let minted = self.waited.is_multiple_of(2);
        let round = self.waited / 2;
        self.waited += 1;
        if self.barrier.wait().is_leader() && minted {
            self.clock.set(round_ms(round + 1));
        }
    }
}

impl Drop for Rounds<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            while self.waited < 2 * ROUNDS {
                self.wait();
            }
        }
    }
}

/// The ID bounds of [`WINDOW`]: `min_id_at` its start and `max_id_at` its last millisecond.
pub fn window_bounds() -> (Id, Id) {
    (
        LAYOUT.min_id_at(WINDOW.0).unwrap(),
        LAYOUT.max_id_at(WINDOW.1 - 1).unwrap(),
    )
}

/// Asserts that the IDs the database found between [`window_bounds`] (`by_id`, in ID order)
/// are exactly those minted in [`WINDOW`] (`minted`, by the stored minting time, in ID order):
/// 7 rounds of every thread.
pub fn check_window(by_id: &[Id], minted: &[Id], rows: &[Vec<Row>]) {
    let mut expected: Vec<Id> = rows
        .iter()
        .flatten()
        .filter(|row| (WINDOW.0..WINDOW.1).contains(&(row.minted_ms as u64)))
        .map(|row| row.id)
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 7 * THREADS * BATCH);
    assert_eq!(
        by_id.len(),
        expected.len(),
        "rows between the window's ID bounds"
    );
    assert!(by_id == expected, "the rows between the window's ID bounds");
    assert!(
        minted == expected,
        "the rows stored as minted in the window"
    );
}

/// Asserts that `threads_by_id` (each row's thread and index, `ORDER BY id`) holds every row
/// and lists each thread's rows in minting order.
pub fn check_order(threads_by_id: &[(i32, i32)]) {
    assert_eq!(threads_by_id.len(), THREADS * PER_THREAD);
    let mut next = [0; THREADS];
    for &(thread, seq) in threads_by_id {
        let next = &mut next[thread as usize];
        assert_eq!(seq, *next, "thread {thread}'s rows out of minting order");
        *next += 1;
    }
    assert_eq!(next, [PER_THREAD as i32; THREADS]);
}

/// IDs at the signed 64-bit column's ends, which must round-trip.
pub const BOUNDARIES: [Id; 3] = [
    Id::from_u64(0),
    Id::from_u64(1),
    Id::from_u64(i64::MAX as u64),
];

/// IDs above `i64::MAX`, which must be refused: the smallest, a discord ID of 2084 (when its
/// IDs pass `i64::MAX`), and the largest.
pub fn too_large() -> [Id; 3] {
    let discord = Layout::DISCORD.epoch_ms() + (1 << 41);
    [
        Id::from_u64(1 << 63),
        Layout::DISCORD.min_id_at(discord).unwrap(),
        Id::from_u64(u64::MAX),
    ]
}

/// The snowmint error in `err`'s `source()` chain (a client wraps it in its own).
pub fn snowmint_error<'a>(err: &'a (dyn StdError + 'static)) -> &'a Error {
    let mut next = Some(err);
    while let Some(err) = next {
        if let Some(found) = err.downcast_ref::<Error>() {
            return found;
        }
        next = err.source();
    }
    panic!("no snowmint::Error in the chain of {err:?}");
}

/// Asserts that `err` is the refusal to store `id` in a signed 64-bit column, naming it.
pub fn assert_too_large(err: &(dyn StdError + 'static), id: Id) {
    let found = snowmint_error(err);
    assert_eq!(found, &Error::IdTooLargeForI64 { id: id.to_u64() });
    assert!(
        found.to_string().contains(&id.to_string()),
        "{found} does not name {id}"
    );
}

/// Asserts that `err`'s message holds the refusal to store `id` (sqlx's `Query::bind` keeps
/// only the message of an encoding error; `try_bind` returns the error itself).
#[allow(dead_code)] // db_postgres.rs only: sqlx 0.8 and 0.9 on PostgreSQL
pub fn assert_too_large_message(err: &dyn std::fmt::Display, id: Id) {
    let refusal = Error::IdTooLargeForI64 { id: id.to_u64() }.to_string();
    let message = err.to_string();
    assert!(
        message.contains(&refusal),
        "{message:?} does not hold {refusal:?}"
    );
    assert!(
        message.contains(&id.to_string()),
        "{message:?} does not name {id}"
    );
}

/// Asserts that `err` is the refusal to read the negative `value` as an ID.
pub fn assert_negative(err: &(dyn StdError + 'static), value: i64) {
    assert_eq!(snowmint_error(err), &Error::NegativeId { value });
}
