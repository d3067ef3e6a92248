//! What snowmint owns across `fork()`: one set of handlers, a gate, a fork count and the steps
//! its modules register for the child.
//!
//! A child of `fork()` has one thread, the one that forked, and a copy of every lock,
//! once-cell and word of its parent as they stood at that instant. Whatever another thread
//! was in the middle of stays half done in the child forever: a once-cell stays "running", a
//! lock stays taken. snowmint's protocol has three parts, registered once per process before
//! anything they guard can exist.
//!
//! - **The gate.** Every section that would leave something half done runs inside
//!   [`enter`]'s [`Section`]:
//!   - the process-wide clock's initialisation (`CachedClock::global`'s once-cell, and
//!     `set_global_source`), which builds its source;
//!   - building a [`MonotonicClock`](crate::clock::MonotonicClock), which calibrates quanta's
//!     counter inside quanta's own once-cell the first time in a process;
//!   - a monotonic clock's re-anchor, from before it takes the writer lock until after it
//!     releases it;
//!   - holding a cached clock's runner lock (starting or waking its refresher);
//!   - interning a layout's name (the `serde` feature's name table, a mutex);
//!   - taking or letting go of a mark file's hold (the list of held descriptors, a mutex).
//!
//!   The `prepare` handler closes the gate and waits until no section is in flight; `parent`
//!   and `child` open it again. So at the instant of the fork no thread is inside a section,
//!   and the child finds every once-cell either done or never started and every lock free.
//!
//!   *Why `prepare` waits briefly and never deadlocks.* The sections are short (the longest
//!   is quanta's calibration, under a millisecond; a refresher's start spawns a thread). No
//!   section runs code of the user's (a private clock's source is read outside its section),
//!   and none waits for the gate inside it: a thread already inside a section enters again at
//!   once (the process-wide clock's initialisation builds its source), so a section in flight
//!   always ends. A section may wait for another section's once-cell (two threads reading the
//!   process-wide clock first), never for a thread that waits at the gate: every thread enters
//!   the gate *before* it takes any lock or once-cell the sections guard, the gate being the
//!   outermost of them. A section that can be skipped ([`try_enter`]: a re-anchor, which the
//!   next reading retries; a refresher's wake-up, which the next reader retries) is skipped
//!   while a fork is under way, so a reader of a clock already made never waits for a fork;
//!   the process-wide clock's first reading and a clock's construction wait at the gate until
//!   the fork returns. Forks from two threads at once may run their `prepare` handlers at the
//!   same time (the C library releases its handler lock around each handler): the gate
//!   counts the forks being prepared and opens only when the last of them is done.
//! - **The fork count.** The `child` handler adds one to [`generation`]. A generator records
//!   the count when it is built and compares it on every mint: one load of a word that is
//!   written only at a fork. A generator built in the parent and used in the child fails with
//!   [`Error::Forked`](crate::Error::Forked), since the child would repeat the parent's IDs.
//! - **The child steps.** A module whose per-process state a child must reset registers a
//!   [`ChildStep`] before that state can exist, and the `child` handler runs each one; this
//!   module names none of them. The cached clocks' step marks every cached clock's reading
//!   stale (the child has none of its parent's refresher threads, so its first reading is
//!   precise and starts a refresher of its own); the sharded generators' drops the forking
//!   thread's run; the mark files' closes the child's copies of their holds. The list is
//!   changed only inside a section, so no fork catches it locked.
//!
//! The handlers are registered before anything they act on exists: by the first section, the
//! first generator, and each cached clock (the process-wide one on its first read, a private
//! one when it is made, before its word can hold a reading). Registration waits for no thread:
//! a thread that finds the handlers unregistered installs them, even while another thread
//! does. That other thread may not be in this process at all: a thread of an ancestor that was
//! registering when the ancestor forked, which no process ID identifies (a descendant may get
//! the ancestor's ID once it is free, or have it as the first process of a pid namespace).
//! Handlers installed twice run twice at each fork, which they allow: each `prepare` closes
//! the gate once more and its `parent` opens it once more, each `child` counts one more fork
//! (the count is only ever compared for equality) and marks the clocks stale again.
//! Registration is no section (the gate is not there yet): a fork can happen while a thread
//! registers, and needs nothing of it.
//!
//! One window stays open, in the C library rather than here: glibc runs at a fork only the
//! handlers registered before that fork's `prepare` phase began, and releases its handler lock
//! around each handler it runs. A first registration that completes while another thread's
//! fork is inside another library's `prepare` handler is skipped by that fork, though this
//! process counts the handlers as registered; a generator built in that gap and reached in
//! that one child mints there without [`Error::Forked`](crate::Error::Forked). Registering
//! before any thread exists (at load time) would close it.
//!
//! What else snowmint holds that a fork copies, and why none of it needs the gate:
//!
//! - atomics that only count or hand out distinct values (sentinel generations, cached clock
//!   slots, sharded generators' ids, the mark file's temporary names, which carry the
//!   process ID): a child goes on counting from its copy;
//! - sharded generators' shard claims, atomics with no lock: the child's copy keeps the
//!   claims of threads it does not have, and a sharded generator built in the parent fails in
//!   the child with `Error::Forked` anyway;
//! - the forking thread's run of a sharded generator's IDs (a thread-local): the child
//!   handler drops it, since the child's copy would hand out IDs its parent hands out too;
//! - thread-locals (the depth of sections here, a thread's shards of sharded generators, the
//!   async mints' "no waiting" flag, the backoff's jitter generator, which the child goes on
//!   drawing from and which decides only how long a lost CAS waits): the child's one thread
//!   keeps its own, and the threads whose values are gone are gone with them;
//! - the refresher threads of cached clocks (the child starts its own, see above) and the
//!   etcd lease's thread (a leased generator is a generator: used in the child it fails with
//!   `Error::Forked`);
//! - locks held only by a generator's cold paths (a mark file's write lock, the etcd fence's
//!   reason to stop): reached only through a generator built in the parent, which the child
//!   cannot mint from, or a mark file opened there, which the child cannot write;
//! - the mark file's `flock`, which belongs to the open file: a child forked during a
//!   write holds a copy of the descriptor that nothing in the child closes, so the writer
//!   unlocks explicitly, which releases the lock for both processes;
//! - a mark file's hold, the `flock` of `PATH.owner` kept while the file is open: the child
//!   handler closes the child's copies of the held descriptors (the parent's copies keep the
//!   locks), so a child does not keep its parent's files held.
//!
//! Pause points (`--cfg snowmint_pause_points`, for `tests/fork_points.rs`,
//! `tests/fork_mint.rs`, `tests/fork_windows.rs` and `tests/mark_fork.rs`) stop a thread inside
//! each section, in the windows between them, mid-mint or inside a mark write, so that a test
//! can fork exactly there.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, TryLockError};

use crossbeam_utils::CachePadded;

use crate::pause::{self, Point};

/// How many times this process's lineage has forked into a child with the handlers
/// registered (once more for each time they are installed): written only by the `child`
/// handler. On a cache line of its own, which every mint reads: the gate beside it is written
/// by every section.
static GENERATION: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// Whether the handlers are registered in this process. Fork: the child handler sets it (it
/// ran, so the child has the handlers); a child forked before its parent's registration ended
/// may copy `false`, and then registers handlers of its own.
static REGISTERED: AtomicBool = AtomicBool::new(false);

/// The gate: how many forks are being prepared, in units of [`FORK`] (closed while any is),
/// and below that how many sections are in flight.
static GATE: AtomicU64 = AtomicU64::new(0);
/// One fork being prepared.
const FORK: u64 = 1 << 40;
/// The sections in flight.
const SECTIONS: u64 = FORK - 1;

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
    // crossbeam's backoff, never loom's, under loom too: the gate is a `std` static that no
    // model explores, and a wait here (a test thread of the harness forking at the same time)
    // must not add a step to the model's schedule.
    let backoff = crossbeam_utils::Backoff::new();
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
        if gate >= FORK {
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

/// A step the child handler runs for a module that keeps per-process state a child must
/// reset, registered by that module (see [`ChildStep::register`]) before any of that state
/// exists: this module names none of them.
///
/// Fork: `registered` is set inside a section, after the step is in [`CHILD_STEPS`], so a
/// child copies the flag and the list together: a step its parent registered runs in the
/// child, whose own children it then runs in too.
pub(crate) struct ChildStep {
    step: fn(),
    registered: AtomicBool,
}

/// The registered [`ChildStep`]s. Fork: locked only inside a section, so no fork catches it
/// taken; the child handler takes it with `try_lock`, which then never fails but on a poisoned
/// lock, whose list is whole all the same.
static CHILD_STEPS: Mutex<Vec<&'static ChildStep>> = Mutex::new(Vec::new());

impl ChildStep {
    /// A step that runs `step` in the child: in a child with one thread, before it opens the
    /// gate; so `step` may only do what a child handler may (atomics, `close`, a `try_lock`
    /// of a lock no fork catches taken), allocate nothing and never unwind.
    pub(crate) const fn new(step: fn()) -> ChildStep {
        ChildStep {
            step,
            registered: AtomicBool::new(false),
        }
    }

    /// Registers this step, once, and the fork handlers: every child forked after this
    /// returns runs it.
    #[inline]
    pub(crate) fn register(&'static self) {
        // Acquire: pairs with the Release below, after the step is in the list.
        if !self.registered.load(Ordering::Acquire) {
            self.register_slow();
        }
    }

    #[cold]
    #[inline(never)]
    fn register_slow(&'static self) {
        // A section: no fork copies the list locked, or the step half registered.
        let _section = enter();
        let mut steps = CHILD_STEPS.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.registered.load(Ordering::Relaxed) {
            steps.push(self);
            self.registered.store(true, Ordering::Release);
        }
    }
}

/// Registers the fork handlers, once per process (or a few times, see the module's
/// documentation): before anything exists that a fork must act on.
#[inline]
pub(crate) fn register() {
    // Acquire: pairs with the Release of the registration's end.
    if !REGISTERED.load(Ordering::Acquire) {
        register_slow();
    }
}

/// Installs the handlers, waiting for no other thread that may be installing them too.
#[cold]
#[inline(never)]
fn register_slow() {
    pause::point(Point::Registration);
    install();
    // Release: a thread that sees the handlers registered may rely on them.
    REGISTERED.store(true, Ordering::Release);
}

#[cfg(unix)]
fn install() {
    // SAFETY: `pthread_atfork` only records the three function pointers. Each is an
    // `extern "C" fn` with the signature the C library calls, valid for the life of the
    // process (static functions). `child` is async-signal-safe, as POSIX requires of a child
    // handler in a process that had threads: it performs only lock-free atomic operations on
    // `static`s, a `try_lock` of a mutex no fork catches taken (never a wait) and `close`,
    // allocates nothing and cannot unwind. `prepare` and `parent` run in the forking parent,
    // where any code may run; they use atomics and yield, and cannot unwind.
    #[allow(unsafe_code)]
    let status = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    // Without the handlers (ENOMEM) a fork is as unguarded as a process without snowmint's
    // protocol: nothing better to do than carry on.
    let _ = status;
}

#[cfg(not(unix))]
fn install() {}

/// Closes the gate (one more fork being prepared) and waits until no section is in flight.
extern "C" fn prepare() {
    // Acquire: pairs with each section's Release at its end.
    GATE.fetch_add(FORK, Ordering::Acquire);
    let mut waited = false;
    while GATE.load(Ordering::Acquire) & SECTIONS != 0 {
        if !waited {
            waited = true;
            pause::reached(Point::ForkWaits);
        }
        std::thread::yield_now();
    }
}

/// Opens the gate in the parent, unless another fork is being prepared: two threads may fork
/// at once, and the second fork must not find a section its `prepare` already waited out
/// begun again.
extern "C" fn parent() {
    // Release: pairs with the Acquire of the next entry.
    GATE.fetch_sub(FORK, Ordering::Release);
}

/// Runs in the child, which has one thread: counts the fork, marks the handlers registered
/// (they are: this runs), runs the registered [`ChildStep`]s (the cached clocks marked stale,
/// the forking thread's run of sharded IDs dropped, the child's copies of the mark files'
/// holds closed) and opens the gate (no other fork is being prepared in a process of one
/// thread, and no section is in flight).
extern "C" fn child() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
    REGISTERED.store(true, Ordering::Relaxed);
    let steps = match CHILD_STEPS.try_lock() {
        Ok(steps) => Some(steps),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        // Not at a fork: the list is locked only inside sections.
        Err(TryLockError::WouldBlock) => None,
    };
    for step in steps.iter().flat_map(|steps| steps.iter()) {
        (step.step)();
    }
    GATE.store(0, Ordering::Release);
}

#[cfg(all(test, unix, not(snowmint_loom)))]
mod tests {
    use super::*;

    /// Runs `parent` for each `prepare` it counts, also when an assertion fails: a gate left
    /// closed would stop every other test's sections.
    struct Prepared(u32);

    impl Prepared {
        fn one_more(&mut self) {
            prepare();
            self.0 += 1;
        }

        fn one_less(&mut self) {
            parent();
            self.0 -= 1;
        }
    }

    impl Drop for Prepared {
        fn drop(&mut self) {
            for _ in 0..self.0 {
                parent();
            }
        }
    }

    #[test]
    fn the_gate_opens_after_the_last_of_two_forks_being_prepared() {
        register();
        let mut forks = Prepared(0);
        // Two threads' forks: the C library may run both `prepare` handlers before either
        // fork, and the first `parent` handler after the first fork.
        forks.one_more();
        forks.one_more();
        assert!(try_enter().is_none(), "closed while a fork is prepared");
        forks.one_less();
        assert!(
            try_enter().is_none(),
            "the second fork is still being prepared: the gate stays closed"
        );
        forks.one_less();
        // Other tests may prepare no fork: open now.
        assert!(try_enter().is_some());
    }

    #[test]
    fn a_section_inside_a_section_never_waits() {
        let outer = enter();
        let inner = enter();
        let skippable = try_enter();
        assert!(skippable.is_some());
        assert_eq!(DEPTH.get(), 3);
        drop((skippable, inner, outer));
        assert_eq!(DEPTH.get(), 0);
    }
}
