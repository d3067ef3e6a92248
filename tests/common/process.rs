//! Child processes for the tests.

use std::process::Child;

/// A child process, killed and reaped when dropped, so that a failed test leaves none behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A child of `fork()` running a test's closure: see [`fork_child`].
#[cfg(unix)]
pub struct ForkedChild {
    pid: libc::pid_t,
    started: std::time::Instant,
}

/// Forks; the child runs `child` and exits 0 if it returns `Ok`, 1 (after printing the error
/// to its stderr) if not, 2 if it panics. `_exit`, so the child runs no destructor and no test
/// harness code of its parent's.
#[cfg(unix)]
pub fn fork_child(child: impl FnOnce() -> Result<(), String>) -> ForkedChild {
    let started = std::time::Instant::now();
    // SAFETY: the child only runs `child` (allocation and thread spawning included, which
    // glibc supports after fork) and then `_exit`s without unwinding into the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)) {
            Ok(Ok(())) => 0,
            Ok(Err(message)) => {
                eprintln!("child {}: {message}", std::process::id());
                1
            }
            Err(_) => 2,
        };
        // SAFETY: ends the child at once, as a forked child of a threaded process should.
        unsafe { libc::_exit(code) };
    }
    ForkedChild { pid, started }
}

#[cfg(unix)]
impl ForkedChild {
    /// Waits for the child to exit, for at most `deadline` from the fork: its exit status and
    /// how long it ran. Kills it and panics past the deadline.
    pub fn wait(self, deadline: std::time::Duration) -> (i32, std::time::Duration) {
        let mut status = 0;
        loop {
            // SAFETY: polls the child this value forked; `status` is a valid place for its
            // status.
            let waited = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
            assert!(
                waited >= 0,
                "waitpid failed: {}",
                std::io::Error::last_os_error()
            );
            if waited == self.pid {
                break;
            }
            if self.started.elapsed() > deadline {
                // SAFETY: kills and reaps the child this value forked, which has not exited.
                unsafe {
                    libc::kill(self.pid, libc::SIGKILL);
                    libc::waitpid(self.pid, &mut status, 0);
                }
                panic!("the child did not exit within {deadline:?}: killed");
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let took = self.started.elapsed();
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        (libc::WEXITSTATUS(status), took)
    }
}

/// Forks, runs `child` in the child (see [`fork_child`]) and waits for it for at most 30 s:
/// its exit status.
#[cfg(unix)]
pub fn in_child(child: impl FnOnce() -> Result<(), String>) -> i32 {
    fork_child(child).wait(std::time::Duration::from_secs(30)).0
}

/// `Ok` if `result` is the [`Error::Forked`](snowmint::Error::Forked) of a generator of kind
/// `kind` built in process `parent` and used in this one, with a message that names both
/// processes and the remedy; else what it was instead.
pub fn is_forked<T: std::fmt::Debug>(
    what: &str,
    result: snowmint::Result<T>,
    kind: &str,
    parent: u32,
) -> Result<(), String> {
    let child = std::process::id();
    let (generator, built_in, used_in, message) = match &result {
        Err(
            err @ snowmint::Error::Forked {
                generator,
                built_in,
                used_in,
            },
        ) => (*generator, *built_in, *used_in, err.to_string()),
        other => return Err(format!("{what}: {other:?}; expected Error::Forked")),
    };
    if (generator, built_in, used_in) != (kind, parent, child) {
        return Err(format!(
            "{what}: Forked {{ {generator}, {built_in}, {used_in} }}; expected {kind} built in \
             {parent} and used in {child}"
        ));
    }
    let expected = format!(
        "{kind} was built in process {parent} and used in its forked child {child}, which \
         would repeat the parent's ids; build a new generator in the child with a node id of \
         its own (from a lease or a node-id file)"
    );
    if message != expected {
        return Err(format!(
            "{what}: the message is {message:?}; expected {expected:?}"
        ));
    }
    Ok(())
}
