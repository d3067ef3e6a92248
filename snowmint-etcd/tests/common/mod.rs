//! Fixtures of the lease's tests, this crate's own: the shared etcd, a steerable HTTP/2 proxy,
//! a private etcd, signals to child processes and the fault suite's fixtures; and the
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
pub mod faults;
#[path = "../../../tests/common/files.rs"]
pub mod files;
#[path = "../../../tests/common/forks.rs"]
pub mod forks;
pub mod private_etcd;
#[path = "../../../tests/common/process.rs"]
pub mod process;
pub mod proxy;
pub mod relay;
pub mod signal;
#[path = "../../../tests/common/threads.rs"]
pub mod threads;
