//! What snowmint owns across `fork()`: one set of handlers, a gate and a fork count.
//!
//! A child of `fork()` has one thread, the one that forked, and a copy of every lock,
//! once-cell and word of its parent as they stood at that instant. Whatever another thread
//! was in the middle of stays half done in the child forever: a once-cell stays "running", a
//! lock stays taken. snowmint's protocol has three parts, registered once per process before
//! anything they guard can exist.
//!
//! - **The gate.** Every section that would leave something half done (initialising the
//!   process-wide clock, which calibrates quanta's counter inside quanta's own once-cell;
//!   building a [`MonotonicClock`](crate::clock::MonotonicClock), which may do the same;
//!   holding a monotonic clock's writer lock; starting a cached clock's refresher while
//!   holding its runner lock) runs inside [`enter`]'s [`Section`]. The `prepare` handler
//!   closes the gate and waits until no section is in flight; `parent` and `child` open it
//!   again. So at the instant of the fork no thread is inside a section, and the child finds
//!   every once-cell either done or never started and every lock free. The sections are short
//!   (the longest is quanta's calibration, under a millisecond), and a section never waits
//!   for another inside it, so `prepare` waits at most that long. A thread already inside a
//!   section may enter again (the process-wide clock's initialisation builds its source); a
//!   section that can be skipped ([`try_enter`]: a re-anchor, which the next reading retries)
//!   is skipped while a fork is prepared, so a reader never waits for a fork.
//! - **The fork count.** The `child` handler adds one to [`generation`]. A generator records
//!   the count when it is built and compares it on every mint: one load of a word that is
//!   written only at a fork. A generator built in the parent and used in the child fails with
//!   [`Error::Forked`](crate::Error::Forked), since the child would repeat the parent's IDs.
//! - **The cached clocks.** The `child` handler marks every cached clock's reading stale: the
//!   child has none of its parent's refresher threads, so its first reading is precise and
//!   starts a refresher of its own.
//!
//! The handlers are registered by the first generator, cached clock or monotonic clock, and
//! registration itself cannot be left half done: a compare-and-swap records which process is
//! registering, and a child forked before its parent finished (the C library orders
//! registration and fork, so the handler either runs in the child or was never registered)
//! registers its own instead of waiting for a thread it does not have.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use crate::pause::{self, Point};

/// How many times this process's lineage has forked into a child with the handlers
/// registered: written only by the `child` handler. On a cache line of its own, which every
/// mint reads: the gate beside it is written by every section.
static GENERATION: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// The handlers' registration: [`UNREGISTERED`], [`REGISTERED`], or the process ID (plus one)
/// of the process whose thread is registering them.
static HANDLERS: AtomicU64 = AtomicU64::new(UNREGISTERED);
const UNREGISTERED: u64 = 0;
const REGISTERED: u64 = u64::MAX;

/// The gate: [`CLOSED`] while a fork is being prepared, and below it how many sections are in
/// flight.
static GATE: AtomicU64 = AtomicU64::new(0);
const CLOSED: u64 = 1 << 63;

thread_local! {
    /// How many sections the current thread is inside: an inner one enters even while the
    /// gate is closed, since `prepare` is waiting for the outer one to end.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// The fork count of this process: it differs from the count a generator recorded when the
/// generator was built in an ancestor of this process.
#[inline(always)]
pub(crate) fn generation() -> u64 {
    // Relaxed: the count is written only by the child handler, in a child with one thread,
    // before any code of the child reads it.
    GENERATION.load(Ordering::Relaxed)
}

/// Registers the handlers (once per process) and returns the fork count, for a generator to
/// record when it is built.
pub(crate) fn watch() -> u64 {
    register();
    generation()
}

/// A section of code that no fork may split: see the module's documentation. Ends when
/// dropped.
#[must_use = "the section ends when the value is dropped"]
pub(crate) struct Section {
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Enters a section, waiting while a fork is being prepared (at most for the sections in
/// flight to end).
pub(crate) fn enter() -> Section {
    register();
    if DEPTH.get() > 0 {
        // Inside a section already: `prepare` waits for that one, so this one cannot be split
        // either. Relaxed: the outer section's Acquire ordered this thread after the opening.
        GATE.fetch_add(1, Ordering::Relaxed);
        return Section::entered();
    }
    let backoff = crate::sync::Backoff::new();
    loop {
        if let Some(section) = try_enter_open() {
            return section;
        }
        backoff.snooze();
    }
}

/// Enters a section unless a fork is being prepared. For work that can be left to a later
/// call (a re-anchor), so that the caller never waits for a fork.
pub(crate) fn try_enter() -> Option<Section> {
    register();
    if DEPTH.get() > 0 {
        GATE.fetch_add(1, Ordering::Relaxed);
        return Some(Section::entered());
    }
    try_enter_open()
}

/// One attempt to enter through an open gate.
fn try_enter_open() -> Option<Section> {
    let mut gate = GATE.load(Ordering::Relaxed);
    loop {
        if gate & CLOSED != 0 {
            return None;
        }
        // Acquire: pairs with the Release of the gate's opening, so the section sees what
        // the fork's handlers wrote. Relaxed on failure: it tries again from the value read.
        match GATE.compare_exchange_weak(gate, gate + 1, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => return Some(Section::entered()),
            Err(now) => gate = now,
        }
    }
}

impl Section {
    fn entered() -> Self {
        DEPTH.set(DEPTH.get() + 1);
        Section {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get() - 1);
        // Release: what the section wrote happens before `prepare` sees the count drop, and
        // so before the fork copies it.
        GATE.fetch_sub(1, Ordering::Release);
    }
}

/// Registers the fork handlers, once per process.
#[inline]
fn register() {
    // Acquire: pairs with the Release of the registration's end.
    if HANDLERS.load(Ordering::Acquire) != REGISTERED {
        register_slow();
    }
}

#[cold]
#[inline(never)]
fn register_slow() {
    let me = u64::from(std::process::id()) + 1;
    let backoff = crate::sync::Backoff::new();
    loop {
        let seen = HANDLERS.load(Ordering::Acquire);
        if seen == REGISTERED {
            return;
        }
        if seen == me {
            // Another thread of this process is registering: it exists, and ends soon.
            backoff.snooze();
            continue;
        }
        // Nobody registered, or a thread of a parent process was registering when it forked
        // (the handlers are not registered here, or the child handler would have marked them
        // so): this thread registers. Relaxed: the registration itself publishes nothing.
        if HANDLERS
            .compare_exchange(seen, me, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            pause::point(Point::Registration);
            install();
            // Release: a thread that sees the handlers registered may rely on them.
            HANDLERS.store(REGISTERED, Ordering::Release);
            return;
        }
    }
}

#[cfg(unix)]
fn install() {
    // SAFETY: `pthread_atfork` only records the three function pointers. Each is an
    // `extern "C" fn` with the signature the C library calls, valid for the life of the
    // process (static functions). `child` is async-signal-safe, as POSIX requires of a child
    // handler in a process that had threads: it performs only lock-free atomic operations on
    // `static`s, takes no lock, allocates nothing and cannot unwind. `prepare` and `parent`
    // run in the forking parent, where any code may run; they use atomics and yield, and
    // cannot unwind.
    #[allow(unsafe_code)]
    let status = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    // Without the handlers (ENOMEM) a fork is as unguarded as a process without snowmint's
    // protocol: nothing better to do than carry on.
    let _ = status;
}

#[cfg(not(unix))]
fn install() {}

/// Closes the gate and waits until no section is in flight.
extern "C" fn prepare() {
    // Acquire: pairs with each section's Release at its end.
    GATE.fetch_or(CLOSED, Ordering::Acquire);
    let mut waited = false;
    while GATE.load(Ordering::Acquire) != CLOSED {
        if !waited {
            waited = true;
            pause::reached(Point::ForkWaits);
        }
        std::thread::yield_now();
    }
}

/// Opens the gate in the parent.
extern "C" fn parent() {
    // Release: pairs with the Acquire of the next entry.
    GATE.store(0, Ordering::Release);
}

/// Runs in the child, which has one thread: counts the fork, opens the gate, marks the
/// cached clocks stale and the handlers registered (they are: this runs).
extern "C" fn child() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
    HANDLERS.store(REGISTERED, Ordering::Relaxed);
    #[cfg(not(loom))]
    crate::clock::cached::after_fork_in_child();
    GATE.store(0, Ordering::Release);
}
