//! Child processes for the tests: killed and reaped on drop, their output read line by line
//! up to a chosen point, and libfaketime to shift a child's clock.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout};

/// A child process, killed and reaped when dropped, so that a failed test leaves none behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
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
