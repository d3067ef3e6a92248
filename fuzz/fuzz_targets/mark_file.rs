//! The mark file's format, through the public API: whatever bytes the file holds,
//! `MarkFile::open` never panics, accepts exactly one line with a Unix-millisecond mark
//! (at most 64 bytes, an optional final newline, decimal digits with an optional `+`), reads
//! that mark, and otherwise fails with `Error::MarkFile` whose message stays bounded. A
//! generator resumed from an accepted mark mints at or above it, and a write never lowers
//! the mark on disk.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use snowmint::clock::ManualClock;
use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
use snowmint::{ClockBehind, Error, Layout};

#[derive(Arbitrary, Debug)]
struct Input {
    /// How far past the mark the clock reads when the generator is resumed, in milliseconds.
    ahead_ms: u16,
    /// What the file holds.
    content: Vec<u8>,
}

/// The scratch file this process fuzzes with.
fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("snowmint-fuzz-mark-file-{}", std::process::id()))
    })
}

/// The mark the format accepts in `content`, by its own definition.
fn model(content: &[u8]) -> Option<u64> {
    if content.len() > 64 {
        return None;
    }
    let line = content.strip_suffix(b"\n").unwrap_or(content);
    let digits = line.strip_prefix(b"+").unwrap_or(line);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    digits.iter().try_fold(0u64, |mark, &d| {
        mark.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

fuzz_target!(|input: Input| {
    let path = path();
    std::fs::write(path, &input.content).expect("write the scratch file");
    let opened = MarkFile::open(path, Duration::from_millis(100));
    let expected = model(&input.content);
    let file = match (opened, expected) {
        (Ok(file), Some(mark)) => {
            assert_eq!(file.mark(), Some(mark));
            file
        }
        (Err(err @ Error::MarkFile { .. }), None) => {
            // The message names the path and repeats at most 64 characters of the content,
            // each escaped in at most 10 bytes (`\u{10ffff}`).
            let message = err.to_string();
            assert!(
                message.len() <= 64 * 10 + 200 + path.as_os_str().len(),
                "{} bytes: {message}",
                message.len()
            );
            return;
        }
        (opened, expected) => panic!(
            "content {:?}: open gave {opened:?}, the format says {expected:?}",
            String::from_utf8_lossy(&input.content)
        ),
    };
    let mark = file.mark().expect("a mark");
    let layout = Layout::TWITTER;
    if mark >= layout.max_unix_ms() {
        return; // past the layout's end: nothing to mint above it
    }
    // The clock at or past the mark (and past the epoch's tick): the first ID is at or above
    // the mark, and the file's mark stays at or above what it was.
    let now = mark
        .max(layout.epoch_ms() + 1)
        .saturating_add(u64::from(input.ahead_ms))
        .min(layout.max_unix_ms());
    let generator = file
        .resume(layout)
        .node("machine", 1)
        .clock(ManualClock::new(now))
        .on_clock_behind(ClockBehind::Error)
        .build()
        .expect("a generator on a valid mark");
    let generator =
        MarkedGenerator::<_, MarkFileStore>::new(generator, file).expect("started above the mark");
    match generator.try_mint() {
        Ok(id) => {
            let time = layout.decode(id).expect("a twitter id").unix_ms();
            assert!(time >= mark, "minted at {time}, below the mark {mark}");
            assert!(
                generator.mark() > time,
                "the mark {} is not above {time}",
                generator.mark()
            );
            // What the generator says is on disk is, and it never went below the old mark.
            let kept = generator.mark();
            drop(generator); // its hold on the file: a second open is refused while it lives
            let reopened = MarkFile::open(path, Duration::from_millis(100)).unwrap();
            assert_eq!(reopened.mark(), Some(kept));
            assert!(kept >= mark);
        }
        // The mark's tick was the layout's last or the tick after it is full: no ID to mint.
        Err(Error::LayoutExhausted { .. } | Error::SequenceExhausted { .. }) => {}
        Err(err) => panic!("mint above mark {mark} at {now}: {err:?}"),
    }
});
