//! The `snowmint` binary run as a process: with arguments, with stdin, and its JSON output.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::thread;

/// The path of the `snowmint` binary that cargo built for the tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_snowmint");

/// Runs `snowmint` with `args` and no stdin, and waits for its output.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run snowmint")
}

/// Runs `snowmint` with `args`, writing `stdin` to it from another thread, and waits for its
/// output.
pub fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_owned();
    let writer = thread::spawn(move || input.write_all(stdin.as_bytes()));
    let output = child.wait_with_output().expect("wait for snowmint");
    writer.join().unwrap().expect("write stdin");
    output
}

/// Runs successfully (status 0, empty stderr) and returns stdout.
pub fn stdout_of(output: &Output) -> &str {
    assert!(
        output.status.success(),
        "status {:?}, stderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::str::from_utf8(&output.stdout).expect("stdout is UTF-8")
}

/// One JSON value per line of `stdout`.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
        .collect()
}
