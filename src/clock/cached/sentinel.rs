//! What a cached clock's word holds: a reading from [`FIRST_READING`] up, or below it a
//! sentinel that says why there is no reading to serve.

/// A sentinel's kind (its two low bits): the refresher probed for readers. A reader publishes
/// a precise reading.
pub(crate) const STALE: u64 = 0;
/// A sentinel's kind: no refresher awake. A reader publishes a precise reading and wakes it.
/// Also the word's first value.
pub(crate) const PARKED: u64 = 1;
/// The sentinel for a clock whose refresher could not be started: every reading reads the
/// source. Final, so it needs no generation.
pub(crate) const UNCACHED: u64 = 2;
/// The least value of a cached clock's word that is a reading (2004-11-03 in Unix
/// milliseconds). Below it the word holds a sentinel: its kind in the two low bits and a
/// generation above them, so a sentinel written again later is a different value, and a
/// compare-and-swap from the old one fails (see
/// [publishing](crate::docs::internals#publishing-a-reading)). A source reading below it is
/// returned but never cached.
pub(crate) const FIRST_READING: u64 = 1 << 40;

/// The next sentinel generation. `std`'s atomic under loom too (a `static`): its values only
/// need to differ, nothing is published through it. Fork: the child counts on from the copy;
/// its words are its own.
static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A sentinel of `kind` never written before (until the generations wrap, after 2^38 of them).
pub(super) fn sentinel(kind: u64) -> u64 {
    // Relaxed: see `GENERATIONS`. Async-signal-safe: the fork handler calls it.
    let generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (generation % (FIRST_READING >> 2)) << 2 | kind
}

/// The kind of a word below [`FIRST_READING`].
pub(super) fn kind(word: u64) -> u64 {
    word & 3
}
