//! Child processes for the tests: killed and reaped on drop, their output read line by line
//! up to a chosen point, and libfaketime to shift a child's clock.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

/// A child process, killed and reaped when dropped, so that a failed test leaves none behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How a child process that [`wait_until`] waited for ended, and all it wrote.
pub struct Finished {
    /// Its exit status; `None` if it ran past the deadline and was killed.
    pub status: Option<ExitStatus>,
    pub out: String,
    pub err: String,
}

/// Waits for `child`, spawned with piped stdout and stderr, until it exits or `deadline` has
/// passed (then kills it), reading both pipes meanwhile so that a chatty child never blocks.
pub fn wait_until(child: Child, deadline: Duration) -> Finished {
    let mut child = KillOnDrop(child);
    let read = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = read(Box::new(child.0.stdout.take().expect("piped stdout")));
    let err = read(Box::new(child.0.stderr.take().expect("piped stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > deadline {
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    drop(child);
    Finished {
        status,
        out: out.join().unwrap(),
        err: err.join().unwrap(),
    }
}

/// Reads whole lines from `out` (a line cut short by a kill is dropped) and keeps those
/// `parse` accepts, until `count` are kept or the output ends.
pub fn read_lines<T>(
    out: &mut BufReader<ChildStdout>,
    count: usize,
    parse: impl Fn(&str) -> Option<T>,
) -> Vec<T> {
    let mut kept = Vec::new();
    let mut line = String::new();
    while kept.len() < count {
        line.clear();
        match out.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if !line.ends_with('\n') => break,
            Ok(_) => kept.extend(parse(line.trim_end())),
        }
    }
    kept
}

/// libfaketime's preload library, if it is installed (`apt-get install faketime`): with it in
/// `LD_PRELOAD` and `FAKETIME="+1.5"` a process reads the wall clock 1.5 s ahead.
pub fn faketime_library() -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ];
    dirs.iter()
        .map(|dir| PathBuf::from(dir).join("faketime/libfaketime.so.1"))
        .find(|path| path.exists())
}
