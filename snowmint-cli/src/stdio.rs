//! Standard output, whose write errors name it, and the IDs a command reads: its arguments, or
//! stdin one per line.

use std::fmt;
use std::io::{self, BufRead, BufReader, BufWriter, StdoutLock, Write};

use serde::Serialize;

use crate::failure::Failure;

/// Standard output, buffered: every failed write or flush is [`Failure::Stdout`].
pub(crate) struct Stdout {
    out: BufWriter<StdoutLock<'static>>,
}

impl Stdout {
    /// Stdout, locked for the command, with a buffer of `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Stdout {
            out: BufWriter::with_capacity(capacity, io::stdout().lock()),
        }
    }

    /// Stdout with the standard library's buffer.
    pub(crate) fn new() -> Self {
        Stdout {
            out: BufWriter::new(io::stdout().lock()),
        }
    }

    /// Writes `text` and a newline.
    pub(crate) fn line(&mut self, text: impl fmt::Display) -> Result<(), Failure> {
        writeln!(self.out, "{text}").map_err(Failure::Stdout)
    }

    /// Writes `value` as one line of JSON.
    pub(crate) fn json_line(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        write_json_line(&mut self.out, value).map_err(Failure::Stdout)
    }

    /// Writes `bytes` as they are.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.out.write_all(bytes).map_err(Failure::Stdout)
    }

    /// Writes out what is buffered.
    pub(crate) fn flush(&mut self) -> Result<(), Failure> {
        self.out.flush().map_err(Failure::Stdout)
    }

    /// `failure`, once what was printed before it is written out; a failed flush wins,
    /// unless the reader went away, which does not hide the bad input.
    pub(crate) fn fail(&mut self, failure: Failure) -> Failure {
        match self.out.flush() {
            Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Failure::Stdout(error),
            _ => failure,
        }
    }
}

/// Writes `value` as one line of JSON.
pub(crate) fn write_json_line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Where an ID was read, for the message of a bad one: `line 3` of stdin or `argument 2`
/// (both counted from 1, blank lines included).
#[derive(Debug, Clone, Copy)]
enum Place {
    Line(u64),
    Argument(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Argument(n) => write!(f, "argument {n}"),
        }
    }
}

/// Reads each ID with `read` and prints it with `print`: the arguments, or with none the
/// non-blank lines of stdin (trimmed), flushing when no more input is waiting. An ID `read`
/// refuses is reported as `<place>: <error>`.
///
/// A bad ID stops the run after what was printed is flushed; with `keep_going` it is reported
/// on stderr at once, the run goes on, and at the end the process exits with the status of a
/// bad ID: 2 for an argument (a usage error), 1 for a line of stdin.
pub(crate) fn for_each_id<T>(
    ids: &[String],
    keep_going: bool,
    mut read: impl FnMut(&str) -> Result<T, Failure>,
    mut print: impl FnMut(&mut Stdout, T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut out = Stdout::new();
    let mut worst: Option<Failure> = None;
    let mut each = |out: &mut Stdout, place: Place, text: &str| -> Result<(), Failure> {
        let error = match read(text) {
            Ok(id) => return print(out, id),
            Err(error) => error,
        };
        let failure = match place {
            Place::Argument(_) => Failure::Usage(format!("{place}: {error}")),
            Place::Line(_) => Failure::Data(format!("{place}: {error}")),
        };
        if !keep_going {
            return Err(out.fail(failure));
        }
        // What was printed before it first, so a terminal shows the two in order.
        out.flush()?;
        eprintln!("snowmint: {failure}");
        worst = Some(failure);
        Ok(())
    };
    if ids.is_empty() {
        let mut input = BufReader::new(io::stdin().lock());
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            if input.read_until(b'\n', &mut line).map_err(Failure::Stdin)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if !text.is_empty() {
                each(&mut out, Place::Line(number), text)?;
            }
            // Nothing more is waiting: show what we have (for interactive use).
            if input.buffer().is_empty() {
                out.flush()?;
            }
        }
    } else {
        for (number, text) in (1..).zip(ids) {
            each(&mut out, Place::Argument(number), text)?;
        }
    }
    out.flush()?;
    if let Some(failure) = worst {
        // Each bad ID has had its line on stderr: only the status is left to give.
        return Err(Failure::Reported(failure.status()));
    }
    Ok(())
}

/// Serializes its `Display` as a string, without allocating one.
pub(crate) struct AsText<T>(pub(crate) T);

impl<T: fmt::Display> Serialize for AsText<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}
