//! Fixtures of the lease's tests: a steerable HTTP/2 proxy (this crate's own), and the
//! library's fixtures for clocks, temporary files, child processes, forked children and
//! threads (the library's `tests/common/`, included by path so the crates' tests share one
//! copy).

// Each test binary declares `mod common;` and uses part of it: what one leaves unused is
// not dead code.
#![allow(dead_code)]
// A module of each test binary, not a library: `pub` is how its files share items.
#![allow(unreachable_pub)]

#[path = "../../../tests/common/clocks.rs"]
pub mod clocks;
pub mod etcd;
#[path = "../../../tests/common/files.rs"]
pub mod files;
#[path = "../../../tests/common/forks.rs"]
pub mod forks;
#[path = "../../../tests/common/process.rs"]
pub mod process;
pub mod proxy;
#[path = "../../../tests/common/threads.rs"]
pub mod threads;
