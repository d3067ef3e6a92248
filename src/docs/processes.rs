//! Several processes of one host minting from one state word: pre-fork servers, worker
//! pools, and PostgreSQL's backends (the `snowmint-pg` extension).
//!
//! A [`Generator`](crate::Generator) belongs to the process that built it; a child of
//! `fork()` gets a copy of it that refuses to mint ([`Error::Forked`], see [`fleets`]). Giving
//! every process a node ID of its own works, but spends node IDs on processes and leaves the
//! IDs of different processes unordered within a millisecond. When the processes share one
//! host, they can share one state word instead: one node ID for the host, every ID unique
//! across all of them, each process's IDs increasing, and the IDs of every process ordered by
//! time as one generator's are.
//!
//! # The word
//!
//! A [`SharedWord`] is 64 bytes of atomics: the state (the last tick and sequence minted, as in
//! any generator), the tick-tock high-water marks and the fingerprint of the configuration that
//! claimed it. All zeros is a fresh word, so memory the operating system hands out zeroed can be
//! one as it is. Each process builds a generator of its own on it with
//! [`GeneratorBuilder::build_process_shared`], reading its own clock; every mint, in every
//! process, is the same load and compare-and-swap of that one word, so the word's single
//! modification order makes every ID unique, whatever each process's clock reads. A generator
//! of another layout, node or sequence range is refused ([`Error::SharedWordClaimed`]): its
//! states would mean something else.
//!
//! The word must be in memory the processes *share*, not copy. [`SharedMapping`] maps one:
//!
//! - [`SharedMapping::anonymous`], made before the fork, is shared by the parent and every child
//!   forked after it: the pre-fork server's case.
//! - [`SharedMapping::open`] maps a file (64 bytes; on `/dev/shm` it never touches a disk), for
//!   processes started on their own.
//!
//! ```
//! use snowmint::{Generator, Layout, generator::SharedMapping};
//!
//! let path = std::env::temp_dir().join(format!("snowmint-guide-word-{}", std::process::id()));
//! // Two processes would each do this; here two mappings in one process show the same word.
//! let [a, b] = [SharedMapping::open(&path)?, SharedMapping::open(&path)?];
//! let first = Generator::builder(Layout::TWITTER).node("machine", 3).build_process_shared(&a)?;
//! let second = Generator::builder(Layout::TWITTER).node("machine", 3).build_process_shared(&b)?;
//! let id = first.mint()?;
//! assert!(second.mint()? > id); // one word: the second process continues after the first
//! # drop((first, second));
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Pre-fork servers
//!
//! Map the word in the parent, fork the workers, and build the generator in each worker (not
//! before the fork: an inherited generator refuses to mint, since it cannot tell whether the
//! word it points to was shared with the child or copied). Every worker then continues from
//! the one word, after every ID the parent or another worker minted. What keeps a parent and a
//! child from repeating is that there is one word, not two: a `SharedWord` in a `static`, on
//! the heap or in a private mapping would be copied by the fork, and a generator the child
//! builds on its copy would mint the parent's IDs; `SharedMapping` maps with `MAP_SHARED`, which
//! a fork keeps as one memory. A worker stopped between its load of the word and its
//! compare-and-swap while others mint loses the swap and mints again above them (a test forces
//! exactly that interleaving with a pause point).
//!
//! # Clocks
//!
//! Each process reads its own clock, anchored to the wall clock when the process started; two
//! processes' readings may differ by a fraction of a millisecond. A process that reads a tick
//! behind the one another installed applies its [`ClockBehind`] policy, as for a clock stepped
//! back: it waits (the default, up to a second) until its clock reaches the word's tick.
//! [`borrow_ahead`](crate::GeneratorBuilder::borrow_ahead) of a few ticks lets it mint on the
//! word's tick instead, with no wait: the extension does that. The tick-tock policy works across
//! processes too: its high-water marks live in the word.
//!
//! # Restarts
//!
//! A word in a file outlives its processes, and one in memory does not; neither is durable
//! against a crash of the host. For IDs that never repeat across any restart, resume every
//! generator from a mark written ahead of the IDs ([`mark`](crate::mark), and
//! `snowmint::mark::replace_durably` for a mark file kept by several processes): a resumed
//! builder raises the word to the mark, never lowers it.
//!
//! # PostgreSQL
//!
//! `snowmint-pg` (the repository's `snowmint-pg/` directory) is this design inside PostgreSQL:
//! the postmaster reserves the word in the server's shared memory, each backend (a process the
//! postmaster forked) builds its generator on it, and `snowmint_id()` mints BIGINT IDs unique and
//! increasing across every backend, for a column default, with a mark file in the data
//! directory so that a restart with the clock behind repeats nothing. Its README covers
//! installing it, its settings, and paging and partitioning by time.
//!
//! [`ClockBehind`]: crate::ClockBehind
//! [`Error::Forked`]: crate::Error::Forked
//! [`Error::SharedWordClaimed`]: crate::Error::SharedWordClaimed
//! [`GeneratorBuilder::build_process_shared`]: crate::GeneratorBuilder::build_process_shared
//! [`SharedWord`]: crate::generator::SharedWord
//! [`SharedMapping`]: crate::generator::SharedMapping
//! [`SharedMapping::anonymous`]: crate::generator::SharedMapping::anonymous
//! [`SharedMapping::open`]: crate::generator::SharedMapping::open
//! [`fleets`]: crate::docs::fleets
