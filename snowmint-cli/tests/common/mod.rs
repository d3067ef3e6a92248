//! Fixtures shared by the command-line tool's test binaries: the `snowmint` binary run as a
//! process (this crate's own), and the library's fixtures for
//! clocks, temporary files, layouts, child processes, forked children and threads (the
//! library's `tests/common/`, included by path so the two crates' tests share one copy).

// Each test binary declares `mod common;` and uses part of it: what one leaves unused is
// not dead code.
#![allow(dead_code)]
// A module of each test binary, not a library: `pub` is how its files share items.
#![allow(unreachable_pub)]

pub mod cli;
#[path = "../../../tests/common/clocks.rs"]
pub mod clocks;
#[cfg(feature = "etcd")]
#[path = "../../../snowmint-etcd/tests/common/etcd.rs"]
pub mod etcd;
#[path = "../../../tests/common/files.rs"]
pub mod files;
#[path = "../../../tests/common/forks.rs"]
pub mod forks;
#[path = "../../../tests/common/layouts.rs"]
pub mod layouts;
#[path = "../../../tests/common/process.rs"]
pub mod process;
#[path = "../../../tests/common/threads.rs"]
pub mod threads;
