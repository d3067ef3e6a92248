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
const MAX_FORK_DEPTH: u64 = 64;

/// One process-wide generator per fork count.
type Cells<F> = [OnceLock<FamilyGenerator<F>>; MAX_FORK_DEPTH as usize];

static UUID7: Cells<Uuid7> = [const { OnceLock::new() }; MAX_FORK_DEPTH as usize];
static ULID: Cells<Ulid> = [const { OnceLock::new() }; MAX_FORK_DEPTH as usize];

impl Uuid7 {
    /// The next UUIDv7 of the process's own [`Uuid7Generator`]: one call, no generator to
    /// build or keep.
    ///
    /// The process-wide generator is built on the first call (its key drawn from the
    /// operating system) and shared by every thread: its UUIDv7s are unique and increase across
    /// the whole process, as one shared generator's do, at the same cost after the first call.
    /// In the child of a `fork()` the first call builds the child's own generator, with a
    /// fresh key, so a parent and its child never share a sequence.
    ///
    /// # Errors
    ///
    /// Only where no Uuid7 can be minted correctly, each documented on its variant:
    /// [`Error::ClockBehind`] when the wall clock steps back by more than a second (the
    /// default [`ClockBehind`](crate::ClockBehind) policy waits out smaller steps),
    /// [`Error::TimeOverflow`] past 2109-05-15 ([`Error::EpochTick`] with a clock set to
    /// 1970-01-01T00:00:00.000Z or before), and
    /// [`Error::ForkDepth`] in a process more than 63 nested forks deep (its fork count
    /// past 63). A generator of your
    /// own ([`Uuid7Generator`]) chooses its clock and policy.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let a = Uuid7::now()?;
    /// let b = Uuid7::now()?;
    /// assert!(b > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// [`Uuid7Generator`]: crate::id128::Uuid7Generator
    #[inline]
    pub fn now() -> Result<Uuid7> {
        uuid7()
    }
}

impl Ulid {
    /// The next ULID of the process's own [`UlidGenerator`]: one call, no generator to build
    /// or keep.
    ///
    /// The process-wide generator is built on the first call (its key drawn from the
    /// operating system) and shared by every thread: its ULIDs are unique and increase across
    /// the whole process, as one shared generator's do, at the same cost after the first call.
    /// In the child of a `fork()` the first call builds the child's own generator, with a
    /// fresh key, so a parent and its child never share a sequence.
    ///
    /// # Errors
    ///
    /// Only where no Ulid can be minted correctly, each documented on its variant:
    /// [`Error::ClockBehind`] when the wall clock steps back by more than a second (the
    /// default [`ClockBehind`](crate::ClockBehind) policy waits out smaller steps),
    /// [`Error::TimeOverflow`] past 2109-05-15 ([`Error::EpochTick`] with a clock set to
    /// 1970-01-01T00:00:00.000Z or before), and
    /// [`Error::ForkDepth`] in a process more than 63 nested forks deep (its fork count
    /// past 63). A generator of your
    /// own ([`UlidGenerator`]) chooses its clock and policy.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let a = Ulid::now()?;
    /// let b = Ulid::now()?;
    /// assert!(b > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// [`UlidGenerator`]: crate::id128::UlidGenerator
    #[inline]
    pub fn now() -> Result<Ulid> {
        ulid()
    }
}

/// The next UUIDv7 of the process-wide generator.
#[inline]
fn uuid7() -> Result<Uuid7> {
    mint(&UUID7, Uuid7Generator::builder)
}

/// The next ULID of the process-wide generator.
#[inline]
fn ulid() -> Result<Ulid> {
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
