//! Fixtures shared by the test binaries, one file per topic: layouts, clocks, checks on minted
//! IDs, threads and bounded waits, a cached clock's refresher, temporary files, child
//! processes, forked children, and the async tests' workload and timers. The command-line
//! tool's tests (`snowmint-cli/tests/`) share the topics they need from here.

// Each test binary declares `mod common;` and uses part of it: what one leaves unused is
// not dead code.
#![allow(dead_code)]
// A module of each test binary, not a library: `pub` is how its files share items, never an
// API (the workspace lints ask the library's crates for `pub(crate)`).
#![allow(unreachable_pub)]

pub mod asyncs;
pub mod checks;
pub mod clocks;
pub mod files;
pub mod forks;
pub mod layouts;
pub mod process;
pub mod refresher;
pub mod threads;
