//! Signals to a test's child processes (etcd, holders), through `kill(1)`: the tests have no
//! unsafe code of their own for it.

use std::process::{Command, Stdio};

/// Sends `SIG<name>` (`STOP`, `CONT`, `KILL`, ...) to process `pid`; panics if it cannot.
pub fn signal(pid: u32, name: &str) {
    assert!(try_signal(pid, name), "kill -{name} {pid} failed");
}

/// Sends `SIG<name>` to process `pid`: whether it was sent (for drops, which must not panic).
pub fn try_signal(pid: u32, name: &str) -> bool {
    Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
