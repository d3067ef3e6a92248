//! Children of a real `fork()`: run a closure in the child, report through a pipe, and wait
//! for the child with a deadline.
//!
//! The child runs the closure and leaves with `_exit`, so it runs no destructor or test
//! harness code of the parent's: 0 if the closure returned `Ok`, 1 after writing the error to
//! the pipe and to stderr, 2 if it panicked. Whatever the closure writes to the pipe comes back
//! to the parent as text.

#![cfg(unix)]
// `fork`, `_exit` and `waitpid` are libc calls: the one module of the tests with unsafe code.
#![allow(unsafe_code)]

use std::io::{PipeWriter, Read, Write};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// A forked child, not yet reaped.
pub struct Forked {
    pid: libc::pid_t,
    /// When `fork` returned in the parent.
    pub forked_at: Instant,
    /// Reads the child's pipe to its end (the child's exit, since the parent's end of the
    /// writer is closed), so a chatty child never blocks on a full pipe.
    output: JoinHandle<String>,
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (not ours).
    Signalled(i32),
    /// It was still running at the deadline, and was killed.
    Hung,
}

/// What a child left behind.
#[derive(Debug)]
pub struct Ended {
    pub outcome: Outcome,
    /// What the child wrote to its pipe.
    pub output: String,
    /// From the fork to the child's reaping (or its kill).
    pub lifetime: Duration,
}

impl Ended {
    /// `Ok` if the child exited 0, else what went wrong, with the end of its output.
    pub fn success(&self) -> Result<(), String> {
        match self.outcome {
            Outcome::Exited(0) => Ok(()),
            Outcome::Hung => Err(format!(
                "the child hung: killed after {:?}; it wrote: {:?}",
                self.lifetime,
                self.tail()
            )),
            other => Err(format!(
                "the child ended {other:?}; it wrote: {:?}",
                self.tail()
            )),
        }
    }

    /// The last lines of the output, up to a few hundred characters.
    fn tail(&self) -> &str {
        const MAX: usize = 400;
        let output = self.output.as_str();
        if output.len() <= MAX {
            return output;
        }
        let mut start = output.len() - MAX;
        while !output.is_char_boundary(start) {
            start += 1;
        }
        match output[start..].find('\n') {
            Some(line) => &output[start + line + 1..],
            None => &output[start..],
        }
    }
}

/// Forks; the child runs `child` with the write end of a pipe and `_exit`s.
pub fn fork(child: impl FnOnce(&mut PipeWriter) -> Result<(), String>) -> Forked {
    let (mut reader, mut writer) = std::io::pipe().expect("a pipe");
    // SAFETY: the child runs only `child` (allocation and thread spawning included, which
    // glibc supports after fork) and then `_exit`s without unwinding into the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        drop(reader);
        let code =
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| child(&mut writer))) {
                Ok(Ok(())) => 0,
                Ok(Err(message)) => {
                    let _ = writeln!(writer, "error {message}");
                    eprintln!("child {}: {message}", std::process::id());
                    1
                }
                Err(_) => 2,
            };
        drop(writer);
        // SAFETY: ends the child at once, as a forked child of a threaded process should.
        unsafe { libc::_exit(code) };
    }
    let forked_at = Instant::now();
    drop(writer);
    let output = thread::spawn(move || {
        let mut text = String::new();
        let _ = reader.read_to_string(&mut text);
        text
    });
    Forked {
        pid,
        forked_at,
        output,
    }
}

impl Forked {
    /// The child's process ID.
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Waits for the child until `deadline` after the fork; a child still running then is
    /// killed (`SIGKILL`) and reaped, and reported [`Outcome::Hung`].
    pub fn wait(self, deadline: Duration) -> Ended {
        let mut status = 0;
        let outcome = loop {
            // SAFETY: polls the child this value owns; `status` is a valid place for its
            // status.
            let waited = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
            assert!(waited >= 0, "waitpid: {}", std::io::Error::last_os_error());
            if waited == self.pid {
                break if libc::WIFEXITED(status) {
                    Outcome::Exited(libc::WEXITSTATUS(status))
                } else {
                    Outcome::Signalled(libc::WTERMSIG(status))
                };
            }
            if self.forked_at.elapsed() >= deadline {
                // SAFETY: kills and reaps the child this value owns, not yet reaped.
                unsafe {
                    libc::kill(self.pid, libc::SIGKILL);
                    libc::waitpid(self.pid, &mut status, 0);
                }
                break Outcome::Hung;
            }
            thread::sleep(Duration::from_millis(1));
        };
        let lifetime = self.forked_at.elapsed();
        let output = self.output.join().unwrap_or_default();
        Ended {
            outcome,
            output,
            lifetime,
        }
    }
}

/// Forks, runs `child` in the child and waits for it for at most `deadline`: its exit status.
/// Panics, with what the child wrote, if it hung (it is killed) or a signal ended it.
pub fn in_child(deadline: Duration, child: impl FnOnce() -> Result<(), String>) -> i32 {
    let ended = fork(|_| child()).wait(deadline);
    match ended.outcome {
        Outcome::Exited(code) => code,
        other => panic!(
            "the child did not exit: {other:?}; it wrote {:?}",
            ended.output
        ),
    }
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
         its own (an etcd lease, or a node value no other process uses), or on the parent's \
         SharedWord if it is in memory the fork shared"
    );
    if message != expected {
        return Err(format!(
            "{what}: the message is {message:?}; expected {expected:?}"
        ));
    }
    Ok(())
}
