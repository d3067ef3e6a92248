//! `Uuid7::now()` and `Ulid::now()`: one process-wide generator of each, built on first use,
//! and built again, with a fresh key, in the child of a `fork()`.
//!
//! Each is a table of once-cells indexed by the process's fork count
//! ([`fork::generation`](crate::fork)): a process mints on the generator of its own count, so
//! a child (whose count is one more than its parent's) never touches the cell its parent used,
//! and builds its own. A cell is built inside a fork section, so a child finds each cell done
//! or never begun, never half built.

use std::sync::OnceLock;

use super::generator::{UlidGenerator, Uuid7Generator};
use super::ulid::Ulid;
use super::uuid7::Uuid7;
use crate::error::{Error, Result};
use crate::family::{Family, FamilyGenerator};

/// How deep a lineage of forks the process-wide generators serve: a process whose fork count
/// is this or more gets [`Error::ForkDepth`].
pub(super) const MAX_FORK_DEPTH: u64 = 64;

/// One process-wide generator per fork count.
type Cells<F> = [OnceLock<FamilyGenerator<F>>; MAX_FORK_DEPTH as usize];

static UUID7: Cells<Uuid7> = [const { OnceLock::new() }; MAX_FORK_DEPTH as usize];
static ULID: Cells<Ulid> = [const { OnceLock::new() }; MAX_FORK_DEPTH as usize];

/// The next UUIDv7 of the process-wide generator.
#[inline]
pub(super) fn uuid7() -> Result<Uuid7> {
    mint(&UUID7, Uuid7Generator::builder)
}

/// The next ULID of the process-wide generator.
#[inline]
pub(super) fn ulid() -> Result<Ulid> {
    mint(&ULID, UlidGenerator::builder)
}

/// Mints on the generator of this process's fork count, building it first if needed.
#[inline]
fn mint<F: Family>(
    cells: &'static Cells<F>,
    builder: fn() -> crate::family::FamilyBuilder<F>,
) -> Result<F> {
    loop {
        let generation = crate::fork::generation();
        // The first process of a lineage takes a branch whose cell's address is a constant:
        // its mint starts without waiting for the fork count's load.
        let cell = if generation == 0 {
            cells.first()
        } else {
            cells.get(generation as usize)
        };
        let generator = match cell.and_then(OnceLock::get) {
            Some(generator) => generator,
            None => build(cells, builder)?,
        };
        match generator.mint() {
            // This thread forked between reading the count and minting: it is the child's
            // one thread now, and mints on the child's generator.
            Err(Error::Forked { .. }) => continue,
            minted => return minted,
        }
    }
}

/// Builds the generator of this process's fork count, or finds the one another thread built.
#[cold]
#[inline(never)]
fn build<F: Family>(
    cells: &'static Cells<F>,
    builder: fn() -> crate::family::FamilyBuilder<F>,
) -> Result<&'static FamilyGenerator<F>> {
    // No fork in here: the count read inside is this process's for the whole section.
    let _section = crate::fork::enter();
    let generation = crate::fork::generation();
    let Some(cell) = cells.get(generation as usize) else {
        return Err(Error::ForkDepth {
            depth: generation,
            max: MAX_FORK_DEPTH - 1,
        });
    };
    if let Some(generator) = cell.get() {
        return Ok(generator);
    }
    let built = builder().build()?;
    // Another thread may have set it meanwhile: its generator wins, this one is dropped.
    Ok(cell.get_or_init(|| built))
}
