//! Fixtures shared by the test binaries, one file per topic: layouts, clocks, checks on minted
//! IDs, threads and bounded waits, a cached clock's refresher, temporary files, child
//! processes, the `snowmint` binary, forked children, a steerable HTTP/2 proxy, and the async
//! tests' workload and timers.

// Each test binary declares `mod common;` and uses part of it: what one leaves unused is
// not dead code.
#![allow(dead_code)]

pub mod asyncs;
pub mod checks;
pub mod cli;
pub mod clocks;
pub mod files;
pub mod forks;
pub mod layouts;
pub mod process;
pub mod proxy;
pub mod refresher;
pub mod threads;
