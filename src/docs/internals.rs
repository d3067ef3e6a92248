//! How snowmint works inside: the fork protocol, the monotonic clock and the cached clock.
//!
//! The other guides state what snowmint does and guarantees; this page says how, for a reader
//! of the code. **None of it is part of the stability guarantees**: any release may change any
//! of it. It is not hidden, so that each source file's short header can link to its section.
//! Where a section makes a claim a user can see, an example shows it and runs as a doctest.
//!
//! - [The fork protocol](#the-fork-protocol): the gate, the fork count and the child steps
//!   (`src/fork.rs`).
//! - [The monotonic clock](#the-monotonic-clock): segments, their orderings, and a fork
//!   during a re-anchor (`src/clock/monotonic/`).
//! - [The cached clock](#the-cached-clock): the word and its sentinels, publishing, the
//!   orderings, and a child's refresher (`src/clock/cached/`).
//!
//! # The fork protocol
//!
//! What snowmint owns across `fork()`: one set of handlers, a gate, a fork count and the steps
//! its modules register for the child. The rule a user follows (a generator built before a
//! fork fails in the child with [`Error::Forked`](crate::Error::Forked)) is in the crate's
//! documentation; this is how it holds.
//!
//! A child of `fork()` has one thread, the one that forked, and a copy of every lock,
//! once-cell and word of its parent as they stood at that instant. Whatever another thread
//! was in the middle of stays half done in the child forever: a once-cell stays "running", a
//! lock stays taken. snowmint's protocol has three parts, registered once per process before
//! anything they guard can exist.
//!
//! ## The gate
//!
//! Every section that would leave something half done runs inside `fork::enter`'s `Section`:
//! - the process-wide clock's initialisation (`CachedClock::global`'s once-cell, and
//!   `set_global_source`), which builds its source;
//! - building a [`MonotonicClock`](crate::clock::MonotonicClock), which calibrates quanta's
//!   counter inside quanta's own once-cell the first time in a process;
//! - a monotonic clock's re-anchor, from before it takes the writer lock until after it
//!   releases it;
//! - holding a cached clock's runner lock (starting or waking its refresher);
//! - interning a layout's name (the `serde` feature's name table, a mutex);
//! - taking or letting go of a mark file's hold (the list of held descriptors, a mutex).
//!
//! The `prepare` handler closes the gate and waits until no section is in flight; `parent`
//! and `child` open it again. So at the instant of the fork no thread is inside a section,
//! and the child finds every once-cell either done or never started and every lock free.
//!
//! *Why `prepare` waits briefly and never deadlocks.* The sections are short (the longest
//! is quanta's calibration, under a millisecond; a refresher's start spawns a thread). No
//! section runs code of the user's (a private clock's source is read outside its section),
//! and none waits for the gate inside it: a thread already inside a section enters again at
//! once (the process-wide clock's initialisation builds its source), so a section in flight
//! always ends. A section may wait for another section's once-cell (two threads reading the
//! process-wide clock first), never for a thread that waits at the gate: every thread enters
//! the gate *before* it takes any lock or once-cell the sections guard, the gate being the
//! outermost of them. A section that can be skipped (`fork::try_enter`: a re-anchor, which the
//! next reading retries; a refresher's wake-up, which the next reader retries) is skipped
//! while a fork is under way, so a reader of a clock already made never waits for a fork;
//! the process-wide clock's first reading and a clock's construction wait at the gate until
//! the fork returns. Forks from two threads at once may run their `prepare` handlers at the
//! same time (the C library releases its handler lock around each handler): the gate
//! counts the forks being prepared and opens only when the last of them is done.
//!
//! ## The fork count
//!
//! The `child` handler adds one to the fork count (`fork::generation`). A generator records
//! the count when it is built and compares it on every mint: one load of a word that is
//! written only at a fork. A generator built in the parent and used in the child fails with
//! [`Error::Forked`](crate::Error::Forked), since the child would repeat the parent's IDs.
//!
//! One mint compares no count: a generator's confirmed step (shared or per-thread) on a cached
//! clock. The step mints on the tick a compare-and-swap confirmed while the clock's word still
//! holds the reading of that swap, and a swap confirms only where the count matched. A cached
//! clock's word, in a child, takes only readings above every reading it held before the fork
//! ([below](#a-cached-clock-after-fork)), so an inherited generator's confirmed reading never
//! comes again there: its step misses, and its full path compares the count and fails.
//!
//! ## The child steps
//!
//! A module whose per-process state a child must reset registers a `fork::ChildStep` before
//! that state can exist, and the `child` handler runs each one; `fork.rs` names none of them.
//! The cached clocks' step marks every cached clock's reading stale (the child has none of its
//! parent's refresher threads, so its first reading is precise and starts a refresher of its
//! own); the sharded generators' drops the forking thread's run; the mark files' closes the
//! child's copies of their holds. The list is changed only inside a section, so no fork catches
//! it locked.
//!
//! ## Registration
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
//! ## What else a fork copies
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
//! # The monotonic clock
//!
//! [`MonotonicClock`](crate::clock::MonotonicClock): quanta's counter, re-anchored to the wall
//! clock. Its documentation states what a reading costs and how far it may be from the wall
//! clock; this is how readings are made and why they never go back.
//!
//! ## Segments
//!
//! Counter time is quanta's counter in nanoseconds since the clock was created. A reading
//! follows a *segment*: the line through the reading `base` at counter time `start`, which at
//! `d = counter - start` reads `base + d + skew·min(d, I)`, `I` the recheck interval. So a
//! segment gains `skew·I` over its first interval and runs at the counter's rate after it; a
//! counter reading from before `start` (a reader that read the counter, then stalled) reads
//! `base`. The skew is a fraction in `[-1/2, 1/2]` with 63 fractional bits, applied with one
//! 128-bit multiply and a shift; a segment without one reads `base + d`.
//!
//! A segment is three words. They live in two slots of atomics beside a `generation` word
//! whose low bit names the slot in use: a re-anchor writes the other slot, then publishes
//! `generation + 1`; a reader loads the generation, that slot's words and the generation
//! again, and reads again if it moved. No reader takes a lock or waits for a writer, and the
//! slot a reader reads is only rewritten by the re-anchor after the one that replaces it.
//!
//! A reading `I` or more past its segment's start is *overdue*, and re-anchors if it can take
//! the writer lock: one more atomic, holding a version while free and, while taken, the counter
//! time it was taken at. The holder reads `SystemTime::now` between two counter readings, and
//! compares the wall clock with the reading at the counter time the next segment starts. An
//! error `e = wall - reading` of at most the [step
//! threshold](crate::clock::MonotonicClockBuilder::step_threshold) is slewed: the next segment
//! starts at the current reading with skew `e / I`, so it meets the wall clock one interval
//! later and readings never jump. A larger error is a step: the next segment starts on the wall
//! clock (forward, or back in [`WallClockBack::Report`](crate::clock::WallClockBack::Report)).
//! Every other reader, meanwhile and after, reads its segment: a system call once per interval
//! per clock, never one per reading. Anchored once, `I` is infinite and no reading is ever
//! overdue.
//!
//! While the lock is taken, an overdue reading of the segment being replaced follows it only
//! up to the counter time the lock was taken at, and at half the counter's rate after that.
//! The next segment starts after that time, from the reading there, and runs at least at half
//! speed (the threshold is at most `I / 2`), so it never reads below what those readers
//! returned, however long the holder takes to publish.
//!
//! [`WallClockBack::Slew`](crate::clock::WallClockBack::Slew) adds two atomics: `base`, the
//! intercept of a half-speed line `base + counter / 2` that readings follow while they are
//! ahead of the wall clock after a step back, and `last`, the greatest reading handed out,
//! which every reading raises with `fetch_max`. A reading is `max(last, segment, base + counter
//! / 2)`.
//!
//! ## The monotonic clock's orderings
//!
//! *Whole segments.* The holder of the writer lock writes the slot the current generation does
//! not name, with a `Release` fence before its `Relaxed` stores and a `Release` store of
//! `generation + 1` after them. A reader loads the generation with `Acquire`, which makes the
//! slot written before that publish visible; loads the three words `Relaxed`; issues an
//! `Acquire` fence, and reloads the generation. The only later writer of that slot is the
//! holder after next, which took the lock after the next generation was published: if any of
//! the reader's loads saw one of its stores, the two fences synchronise and the reload sees
//! that next generation, so the reader reads again. A reload equal to the first load means
//! the three words are one segment. A reader reads again only when a re-anchor published
//! during its read.
//!
//! *One writer.* The lock is taken with a compare-and-swap from a free value (`AcqRel`) and
//! released with a `Release` store of the next free value, which no earlier free value
//! equals, so a compare-and-swap from a stale one fails (a reader that reads on while a fork
//! is being prepared moves the free value on too, with a compare-and-swap). The holder thus
//! sees the previous holder's publish and slot, and an overdue reader that loads a held value
//! (`Acquire`) sees every generation published before it was taken, so it can tell whether
//! that holder is replacing the segment it read.
//!
//! *Never back.* Apart from the steps back `Report` hands on, readings never decrease, in one
//! thread or across threads. The argument rests on the counter: a counter reading taken before
//! a load that misses a store is earlier than one taken after a load that sees it (up to the
//! nanoseconds an unfenced counter read may run ahead; see the generator module's `#
//! Orderings`). Let `L` be the line that follows each published segment `k` from its start
//! `s_k` up to the counter time `v_k` at which the writer of segment `k + 1` took the lock
//! (`v_k` is at least `k`'s due time), at half speed from there to `s_{k+1}`, and segment `k +
//! 1` from there. A slew starts from `L`'s value and runs at least at half speed, and a step
//! forward starts above it, so `L` never decreases. A reading of segment `k` whose counter
//! reading is `c` is:
//!
//! - before `s_k` (a reader that stalled after reading the counter): `L` at `s_k`;
//! - before `k` is due, hence before `v_k`: `L` at `c`;
//! - overdue, the lock taken at `v_k`: `k` up to `v_k` and half speed after it, which is `L`
//!   at `c` up to `s_{k+1}`, and below `L` after it, where segment `k + 1` runs at least at
//!   half speed;
//! - overdue, the lock taken before `k` was due: `k` at `c`, which is `L` at `c`, since that
//!   holder publishes nothing and the next one takes the lock after `c`;
//! - overdue, the lock free but a fork being prepared (see [after
//!   `fork()`](#a-monotonic-clock-after-fork)): `k` at `c`, which is `L` at `c`. The reader
//!   first replaces the free value it loaded with the next one (a compare-and-swap; it reads
//!   again if the lock changed). A holder that replaced `k` before that load published a
//!   generation the reader sees (its release is the value loaded, and the reader checks the
//!   generation after it). A holder that takes the lock later does so with a compare-and-swap
//!   from a free value loaded after the reader's, and reads its `elected` after that load, so
//!   after `c`; one that read its `elected` before the reader's compare-and-swap expects the
//!   replaced value, fails and elects again.
//!
//! So a reading of `k` is at most `L` at the later of `c` and `s_k`, and readings of one
//! segment are values of one nondecreasing function of `c`. A reading of `k` that finds `k + 1`
//! published reads again, so `c` came before that publish, and before every lock taken after
//! it. A reading of a later segment `m` at counter reading `c' >= c` is at least `L` at the
//! later of `s_m` and `min(c', v_m)`, and `c < v_m`: it is at least every reading of `k` before
//! it.
//!
//! *Slew.* Monotonic readings rest on the modification order of `last` alone: each
//! `fetch_max` returns at least every value before it, whatever segment and base the reader
//! loaded, so a stale pair of the two costs a pause, never a step back. Both are `Relaxed`.
//!
//! ## A monotonic clock after `fork()`
//!
//! The child inherits the counter, the segments and the writer lock as they were. The lock
//! would be the one thing left half done: taken by a thread the child does not have, it would
//! hold every overdue reading of the child at half speed, for good. So a re-anchor is a fork
//! section ([the fork protocol](#the-fork-protocol)), entered before the lock is taken and left
//! after it is released: a fork waits for a re-anchor under way (a wall-clock read,
//! microseconds), and the child finds the lock free. A reader that finds a fork being prepared
//! does not wait for it: it reads its overdue segment on (the last case above), and the first
//! reading after the gate opens, in the parent or the child, re-anchors. Building a clock is a
//! section too: the first one in a process calibrates quanta's counter inside quanta's
//! once-cell.
//!
//! Under [`WallClockBack::Slew`](crate::clock::WallClockBack::Slew) every reading raises one
//! shared word, so a reading that happens after another, through any synchronisation, is at
//! least as large, whatever the counter does between cores:
//!
//! ```
//! use snowmint::clock::{MonotonicClock, WallClockBack};
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! let clock = MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew).build();
//! let latest = AtomicU64::new(0);
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..1_000 {
//!                 let seen = latest.load(Ordering::Acquire);
//!                 let now = clock.unix_ns();
//!                 assert!(now >= seen); // never behind a reading this thread has seen
//!                 latest.fetch_max(now, Ordering::AcqRel);
//!             }
//!         });
//!     }
//! });
//! ```
//!
//! # The cached clock
//!
//! [`CachedClock`](crate::clock::CachedClock): one word a background thread keeps fresh, read
//! with one load. Its documentation states how fresh a reading is and what a fork does to it;
//! this is how the word is kept.
//!
//! ## The word
//!
//! A cached clock's reading is one cache-padded `AtomicU64`. Values from `FIRST_READING` (2004)
//! up are Unix milliseconds; the values below it are sentinels, which say why there is no
//! reading to serve. A sentinel's two low bits are its kind, and the bits above them a
//! generation that no other sentinel write repeats (see [Publishing a
//! reading](#publishing-a-reading)):
//!
//! - `STALE`: the refresher is awake and has just asked whether anyone still reads the
//!   clock (a *probe*). A reader reads the source and publishes what it read, which answers
//!   "yes".
//! - `PARKED`: no refresher is awake: it parked after a probe went unanswered, it has not
//!   been started yet, or this process is the child of a `fork()` (the child handler writes
//!   `PARKED` into every word). A reader reads the source, publishes, and wakes (or starts)
//!   the refresher.
//! - `UNCACHED`: the refresher could not be started. Every reading reads the source.
//!
//! So [`Clock::unix_ms`](crate::Clock::unix_ms) is one `Acquire` load and a compare that is
//! false whenever the refresher is awake, and everything else is out of line.
//!
//! The refresher wakes once a millisecond (for the process-wide clock, just after its
//! source's millisecond changes), reads the source and publishes the reading. Every
//! `PROBE_EVERY`th wake-up it publishes `STALE` instead. If the word is still `STALE` at
//! its next wake-up, nobody read the clock for that millisecond: it writes `PARKED` (a
//! compare-and-swap, so a reader's answer is never lost) and parks. A reader that replaces
//! `PARKED` unparks it. A parked refresher also wakes every `IDLE_PARK` on its own, to
//! notice that the last handle of a private clock is gone: an idle process's clock wakes at
//! most ten times a second.
//!
//! ## Publishing a reading
//!
//! Every write of a reading is a compare-and-swap from the value loaded *before* the source
//! was read. So the word's values follow the order of the source readings they came from: a
//! reading taken before another was published never replaces it. That needs the loaded value
//! not to come back: a sentinel is written with a new generation each time (a refresher that
//! parks, probes and parks again writes three different values), so a reader that loaded a
//! sentinel, read the source and was descheduled across a step back and a park fails its
//! compare-and-swap and reads the source again. A reading can come back only when the source
//! returns to that very millisecond, and then what the late reader publishes is within its own
//! delay of that time. That is what lets the
//! cache follow its source back: a precise reading published after a step back is never
//! overwritten by the refresher's reading from before the step, so a thread that sees a state
//! minted from the new time never reads the old time from the cache. A refresher that loses
//! the compare-and-swap drops its reading (the winner's is as fresh); a precise reader that
//! loses tries again from the value that won, so what it returns is the value it published.
//!
//! A source that steps back is followed at the first precise reading, and no reading the
//! refresher took before the step replaces it:
//!
//! ```
//! use snowmint::{Clock, clock::{CachedClock, ManualClock}};
//!
//! let source = ManualClock::new(1_700_000_000_000);
//! let clock = CachedClock::new(source.clone());
//! assert_eq!(clock.unix_ms(), 1_700_000_000_000); // reads the source, starts the refresher
//! source.set(1_600_000_000_000); // a step back
//! assert_eq!(clock.unix_ms_precise(), 1_600_000_000_000); // published...
//! assert_eq!(clock.unix_ms(), 1_600_000_000_000); // ...and kept
//! ```
//!
//! ## The cached clock's orderings
//!
//! Readings are published with `Release` and loaded with `Acquire`: a thread that loads a
//! reading sees the source reading it came from, so for a source whose readings are memory (a
//! [`ManualClock`](crate::clock::ManualClock)) its own next read of the source is at least that
//! value, and a cached reading never runs ahead of a precise one unless the source went back. A
//! generator that publishes a state minted from a precise reading (its `AcqRel`
//! compare-and-swap) has published that reading first, so a thread that acquires the state and
//! then loads the word sees that reading or one read from the source after it.
//!
//! The park protocol needs no more: the refresher parks only through a compare-and-swap from
//! `STALE` to `PARKED`, and a reader wakes it only after its own compare-and-swap replaced
//! `PARKED`. The modification order of the one word decides which came first, so either the
//! refresher's swap fails (a reader answered: it keeps refreshing) or the reader sees
//! `PARKED` (and wakes it). The wake-up itself is an unpark, whose token is kept if it comes
//! before the park.
//!
//! ## A cached clock after `fork()`
//!
//! A child process has no refresher thread, whatever its parent had. The child fork handler
//! ([the fork protocol](#the-fork-protocol)) writes `PARKED` into every cached clock's word and
//! advances the fork count: the child's first read takes a precise reading and, finding the
//! refresher's generation behind the fork count, starts a refresher of its own, through handles
//! inherited from the parent and new ones alike. The same handler raises each word's floor to
//! the highest reading the word was given (a mark each publisher raises before its
//! compare-and-swap gives the word a reading): in the child a word takes only readings above
//! its floor, and a reading at or below it (the source has not yet passed the parent's last
//! published millisecond, or went back) is returned to its reader uncached. So no reading a
//! child's cached clock serves is one its parent's served, and a generator's confirmed step
//! needs no fork count ([the fork count](#the-fork-count)). The handler is
//! registered before a word can hold a reading (when a private clock is made, in the
//! process-wide clock's initialisation), so every fork finds it, also one between a clock's
//! first reading and its refresher's start.
//! Two things a fork could split are fork sections, so a fork waits for them and the child
//! finds them done or never begun: the process-wide clock's initialisation (its once-cell, and
//! inside it the source's construction, which calibrates quanta's counter in quanta's
//! once-cell), and every hold of a clock's runner lock (a refresher's start or wake-up).
//!
