//! What snowmint owns across `fork()`: one set of handlers, a gate, a fork count and the steps
//! its modules register for the child.
//!
//! A child of `fork()` has one thread and a copy of every lock, once-cell and word of its
//! parent as they stood at that instant. Every section that a fork would leave half done runs
//! inside [`enter`]'s [`Section`], a gate the `prepare` handler closes; the `child` handler
//! adds one to the fork count ([`generation`]), which a generator compares on every mint (but
//! a confirmed step on a fork-fenced clock, see the internals page), and
//! runs each [`ChildStep`] registered with it. The whole protocol, why `prepare` never
//! deadlocks, when the handlers are registered, and what else a fork copies: [the internals
//! page](crate::docs::internals#the-fork-protocol).
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

/// A section of code that no fork may split (see [the
/// gate](crate::docs::internals#the-gate)). Ends when dropped.
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

/// Registers the fork handlers, once per process (or a few times, see
/// [registration](crate::docs::internals#registration)): before anything exists that a fork
/// must act on.
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

/// Tells the process a value was made in from its forked children, by the fork count
/// snowmint's generators check: for a value that belongs to its process (a
/// [`MarkStore`](crate::mark::MarkStore)'s thread or connection, a lease, a node ID), which a
/// child must refuse to use rather than act for its parent.
///
/// [`new`](Self::new) registers snowmint's fork handlers (once per process) and records the
/// count; [`check`](Self::check) compares it: one relaxed load.
///
/// # Examples
///
/// ```
/// use snowmint::{Error, mark::ForkCheck};
///
/// let made_here = ForkCheck::new();
/// assert_eq!(made_here.check("MyStore"), Ok(()));
/// assert_eq!(made_here.process_id(), std::process::id());
/// // In a forked child: Err(Error::Forked { generator: "MyStore", built_in, used_in }).
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForkCheck {
    forks: u64,
    process_id: u32,
}

impl ForkCheck {
    /// Records this process.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::ForkCheck;
    ///
    /// assert!(ForkCheck::new().check("MyStore").is_ok());
    /// ```
    pub fn new() -> Self {
        ForkCheck {
            forks: watch(),
            process_id: std::process::id(),
        }
    }

    /// `Ok` in the process that made `self`.
    ///
    /// # Errors
    ///
    /// [`Error::Forked`](crate::Error::Forked) in a forked child of it, naming `kind`: the
    /// type the caller holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::ForkCheck;
    ///
    /// let check = ForkCheck::new();
    /// assert_eq!(check.check("MyStore"), Ok(()));
    /// ```
    #[inline]
    pub fn check(&self, kind: &'static str) -> crate::error::Result<()> {
        if generation() == self.forks {
            return Ok(());
        }
        Err(crate::error::Error::Forked {
            generator: kind,
            built_in: self.process_id,
            used_in: std::process::id(),
        })
    }

    /// The ID of the process that made `self`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::ForkCheck;
    ///
    /// assert_eq!(ForkCheck::new().process_id(), std::process::id());
    /// ```
    pub fn process_id(&self) -> u32 {
        self.process_id
    }
}

impl Default for ForkCheck {
    /// [`ForkCheck::new`].
    fn default() -> Self {
        Self::new()
    }
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
