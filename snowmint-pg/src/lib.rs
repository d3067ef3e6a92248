//! snowmint inside PostgreSQL: `snowmint_id()` mints BIGINT Snowflake IDs and
//! `snowmint_uuidv7()` UUIDv7s, unique and increasing across every backend of the server,
//! lock-free, and never repeated across a restart, whatever the clock reads then.
//!
//! # How
//!
//! The postmaster reserves one block of shared memory ([`shared`]) holding two snowmint
//! [`SharedWord`](snowmint::generator::SharedWord)s. Each backend (a process the postmaster
//! forked) builds its own generators on those words the first time it mints
//! ([`GeneratorBuilder::build_process_shared`](snowmint::GeneratorBuilder::build_process_shared)),
//! each reading the backend's own clock; every mint in every backend is then one load and one
//! compare-and-swap of the same word, so the word's one modification order makes every ID
//! unique and each backend's IDs increasing. No generator crosses a fork: the postmaster
//! never builds one.
//!
//! Settings (`postgresql.conf`, read at server start): `snowmint.layout`, `snowmint.node`,
//! `snowmint.epoch_ms` and `snowmint.tick_ms` for layouts given as fields,
//! `snowmint.max_clock_wait_ms`, `snowmint.mark_interval_ms` (see [`settings`]).

use std::cell::{Cell, OnceCell, RefCell};

use pgrx::prelude::*;
use pgrx::{PgSqlErrorCode, Uuid};
use snowmint::clock::MonotonicClock;
use snowmint::generator::ProcessShared;
use snowmint::{ClockBehind, Generator, Id, Layout, Snapshot};

mod settings;
mod shared;

::pgrx::pg_module_magic!(name, version);

/// Milliseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const PG_EPOCH_UNIX_MS: i64 = 946_684_800_000;

/// How many ticks a backend whose clock reads behind the shared word's tick (the backends'
/// clocks are anchored one by one) mints on that tick instead of waiting.
const BORROW_TICKS: u64 = 8;

/// The UUIDv7 counter's word: 48 bits of Unix milliseconds and a 16-bit counter.
const UUID_WORD: Layout = Layout::builder("snowmint-uuidv7", 64)
    .time(48)
    .sequence(16)
    .epoch_ms(0)
    .build_const();

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // SAFETY: a global PostgreSQL sets while it loads shared_preload_libraries.
    let preloading = unsafe { pg_sys::process_shared_preload_libraries_in_progress };
    // Loaded later (by CREATE EXTENSION or a call), the library defines nothing: settings read
    // only at start cannot be defined after it, and there is no shared memory to mint from.
    // Every function then fails, saying to preload it.
    if preloading {
        settings::define();
        shared::install_hooks();
    }
}

/// A backend's generators, built on its first mint.
struct Minters {
    ids: Minter,
    uuids: Minter,
}

/// One generator, and the least ID the mark does not yet cover.
struct Minter {
    generator: Generator<MonotonicClock, ProcessShared<'static>>,
    shared: &'static shared::Shared,
    interval_ms: u64,
    /// Every ID below this one has its time below the mark (the first ID of the mark's tick,
    /// as of the last time this backend looked); 0 until it first looks.
    admitted_below: Cell<u64>,
}

thread_local! {
    /// The backend's generators, or why they could not be built (a setting, read once).
    static MINTERS: OnceCell<Result<Minters, String>> = const { OnceCell::new() };
    /// The layout of `snowmint.layout`, read once (a layout given as fields leaks its node
    /// field names: once per backend, never per call).
    static LAYOUT: OnceCell<Result<Layout, String>> = const { OnceCell::new() };
}

/// The layout the settings give, in a server that preloaded the library.
fn configured_layout() -> Result<Layout, String> {
    shared::shared()?;
    LAYOUT.with(|cell| cell.get_or_init(settings::layout).clone())
}

fn build() -> Result<Minters, String> {
    let shared = shared::shared()?;
    let layout = configured_layout()?;
    let nodes = settings::nodes(&layout)?;
    let resume = shared.resume()?;
    let policy = ClockBehind::Wait {
        max_ms: settings::max_clock_wait_ms(),
    };
    let resumed = |layout: Layout, nodes: &[(&'static str, u64)]| {
        Generator::resume(&Snapshot::at_mark(layout, nodes, resume))
            .clock(MonotonicClock::new())
            .on_clock_behind(policy)
            .borrow_ahead(BORROW_TICKS)
    };
    let ids = resumed(layout, &nodes)
        .build_process_shared(&shared.ids)
        .map_err(|e| format!("snowmint.layout and snowmint.node: {e}"))?;
    let uuids = resumed(UUID_WORD, &[])
        .build_process_shared(&shared.uuids)
        .map_err(|e| e.to_string())?;
    let interval_ms = settings::mark_interval_ms();
    let minter = |generator| Minter {
        generator,
        shared,
        interval_ms,
        admitted_below: Cell::new(0),
    };
    Ok(Minters {
        ids: minter(ids),
        uuids: minter(uuids),
    })
}

/// Runs `f` on the backend's generators, raising an ERROR with the reason they or `f` failed.
fn with_minters<T>(f: impl FnOnce(&Minters) -> Result<T, String>) -> T {
    let result = MINTERS.with(|cell| match cell.get_or_init(build) {
        Ok(minters) => f(minters),
        Err(reason) => Err(reason.clone()),
    });
    result.unwrap_or_else(|reason| {
        raise(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            &reason,
        )
    })
}

/// The layout of `snowmint.layout`, for the decoding functions.
fn with_layout<T>(f: impl FnOnce(&Layout) -> Result<T, String>) -> T {
    let result = configured_layout().and_then(|layout| f(&layout));
    result.unwrap_or_else(|reason| raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, &reason))
}

/// Raises an ERROR: the statement fails with `reason`, and the call never returns.
fn raise(code: PgSqlErrorCode, reason: &str) -> ! {
    let reason = reason.to_owned();
    ereport!(ERROR, code, reason);
}

impl Minter {
    /// The next ID, once the mark is above its time. The mark is read only when the ID is at
    /// or past the first ID of the mark's tick: one compare per ID otherwise.
    #[inline]
    fn mint(&self) -> Result<Id, String> {
        let id = self.generator.mint().map_err(|e| e.to_string())?;
        if id.to_u64() >= self.admitted_below.get() {
            self.admit(id)?;
        }
        Ok(id)
    }

    /// Raises the mark above `id`'s time if it is not, and remembers the first ID of the
    /// mark's tick: every ID below it has its time below the mark.
    #[cold]
    fn admit(&self, id: Id) -> Result<(), String> {
        let parts = self.generator.decode(id).map_err(|e| e.to_string())?;
        self.shared.admit(parts.unix_ms(), self.interval_ms)?;
        let first = self.generator.layout().min_id_at(self.shared.mark());
        // Past the layout's last tick, no ID is below it: 0 keeps every mint on this path.
        self.admitted_below.set(first.map_or(0, Id::to_u64));
        Ok(())
    }
}

/// The next ID of `snowmint.layout` for `snowmint.node`: unique across every backend and
/// increasing within each, for a column default.
#[pg_extern(volatile, parallel_safe)]
fn snowmint_id() -> i64 {
    with_minters(|minters| {
        let id = minters.ids.mint()?;
        // A layout of 64 bits mints IDs above a BIGINT's range once its time is far enough
        // from its epoch: refused, never wrapped to a negative number.
        i64::try_from(id.to_u64()).map_err(|_| {
            format!(
                "the ID {id} does not fit a BIGINT (at most 2^63 - 1); expected a layout whose \
                 IDs stay below 2^63 (an unused top bit, or a later epoch)"
            )
        })
    })
}

/// The next UUIDv7: 48 bits of Unix milliseconds, then a counter shared by every backend (so
/// UUIDs increase across backends), then random bits.
#[pg_extern(volatile, parallel_safe)]
fn snowmint_uuidv7() -> Uuid {
    with_minters(|minters| {
        let word = minters.uuids.mint()?.to_u64();
        // The word's layout: 48 bits of Unix milliseconds (its epoch is 0), a 16-bit counter.
        let unix_ms = u128::from(word >> 16);
        let counter = u128::from(word & 0xffff);
        let random = u128::from(random_u64()? >> 6); // 58 bits
        // unix_ms | version 7 | counter's top 12 bits | variant 0b10 | its low 4 bits | random
        let value = unix_ms << 80
            | 0x7 << 76
            | counter >> 4 << 64
            | 0b10 << 62
            | (counter & 0xf) << 58
            | random;
        Ok(Uuid::from_bytes(value.to_be_bytes()))
    })
}

/// 64 bits from the operating system's random source, drawn 64 values at a time: one system
/// call per 64 UUIDs, not per UUID. Each value is handed out once.
fn random_u64() -> Result<u64, String> {
    const BATCH: usize = 64;
    /// Values drawn and not yet handed out: `values[next..]`.
    struct Pool {
        values: [u64; BATCH],
        next: usize,
    }
    thread_local! {
        static POOL: RefCell<Pool> = const { RefCell::new(Pool { values: [0; BATCH], next: BATCH }) };
    }
    POOL.with_borrow_mut(|pool| {
        if pool.next == BATCH {
            let mut bytes = [0u8; BATCH * 8];
            getrandom::fill(&mut bytes).map_err(|e| format!("the random source failed: {e}"))?;
            for (value, chunk) in pool.values.iter_mut().zip(bytes.chunks_exact(8)) {
                *value = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            }
            pool.next = 0;
        }
        let value = std::mem::take(&mut pool.values[pool.next]);
        pool.next += 1;
        Ok(value)
    })
}

/// An ID's time, as snowmint.layout decodes it.
#[pg_extern(immutable, parallel_safe)]
fn snowmint_time(id: i64) -> TimestampWithTimeZone {
    with_layout(|layout| {
        let ms = decode(layout, id)?.unix_ms();
        to_timestamptz(ms)
    })
}

/// An ID's node value: of the layout's one node field, or of the field named.
#[pg_extern(immutable, parallel_safe)]
fn snowmint_node(id: i64, field: default!(Option<&str>, "NULL")) -> i64 {
    with_layout(|layout| {
        let parts = decode(layout, id)?;
        let names: Vec<&str> = layout.node_fields().map(|f| f.name()).collect();
        let name = match (field, names.as_slice()) {
            (Some(name), _) => name,
            (None, [only]) => only,
            (None, _) => {
                return Err(format!(
                    "layout {} has the node fields {}; expected snowmint_node(id, field)",
                    layout.name(),
                    names.join(", ")
                ));
            }
        };
        parts.node(name).map(|n| n as i64).ok_or_else(|| {
            format!(
                "layout {} has no node field {name:?}; its node fields: {}",
                layout.name(),
                names.join(", ")
            )
        })
    })
}

/// An ID's sequence value.
#[pg_extern(immutable, parallel_safe)]
fn snowmint_sequence(id: i64) -> i64 {
    with_layout(|layout| Ok(decode(layout, id)?.sequence() as i64))
}

/// The least ID of `snowmint.layout` minted at or after `at`: an inclusive lower bound for a
/// range of IDs by time (a partition's `FROM`, a page's start).
#[pg_extern(immutable, parallel_safe)]
fn snowmint_min_id(at: TimestampWithTimeZone) -> i64 {
    with_layout(|layout| {
        let id = layout.min_id_at(unix_ms(at)?).map_err(|e| e.to_string())?;
        Ok(id.to_u64() as i64)
    })
}

/// The greatest ID of `snowmint.layout` minted at or before `at`'s millisecond.
#[pg_extern(immutable, parallel_safe)]
fn snowmint_max_id(at: TimestampWithTimeZone) -> i64 {
    with_layout(|layout| {
        let id = layout.max_id_at(unix_ms(at)?).map_err(|e| e.to_string())?;
        Ok(id.to_u64() as i64)
    })
}

fn decode(layout: &Layout, id: i64) -> Result<snowmint::Parts<'_>, String> {
    let id = u64::try_from(id).map_err(|_| format!("{id} is not an ID: IDs are not negative"))?;
    layout.decode(Id::from_u64(id)).map_err(|e| e.to_string())
}

fn to_timestamptz(unix_ms: u64) -> Result<TimestampWithTimeZone, String> {
    let micros = i64::try_from(unix_ms)
        .ok()
        .and_then(|ms| ms.checked_sub(PG_EPOCH_UNIX_MS))
        .and_then(|ms| ms.checked_mul(1_000));
    micros
        .and_then(|us| TimestampWithTimeZone::try_from(us).ok())
        .ok_or_else(|| format!("{unix_ms} ms is outside timestamptz's range"))
}

fn unix_ms(at: TimestampWithTimeZone) -> Result<u64, String> {
    if !at.is_finite() {
        return Err("an infinite timestamp has no ID; expected a finite one".to_owned());
    }
    let micros: i64 = pg_sys::TimestampTz::from(at);
    let ms = micros.div_euclid(1_000) + PG_EPOCH_UNIX_MS;
    u64::try_from(ms)
        .map_err(|_| format!("{at} is before 1970; expected a time after the layout's epoch"))
}

/// The tests `cargo pgrx test` runs inside the server (`src/tests.rs`).
#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    include!("tests.rs");
}

/// What `cargo pgrx test` needs at the crate's root: the server settings of the test cluster.
#[cfg(test)]
pub mod pg_test {
    /// Nothing to set up beyond the settings.
    pub fn setup(_options: Vec<&str>) {}

    /// The library preloaded, a twitter layout for node 7.
    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![
            "shared_preload_libraries = 'snowmint_pg'",
            "snowmint.layout = 'twitter'",
            "snowmint.node = '7'",
        ]
    }
}
