//! Mint IDs with a preset layout, and decode each into its time, node and sequence.
//!
//! Run with `cargo run --example basic`.

use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::{Generator, Layout};

fn main() -> snowmint::Result<()> {
    // Twitter's layout: 41 bits of milliseconds since its 2010 epoch, a 10-bit machine ID and a
    // 12-bit sequence. This process is machine 42; the generator is `Sync`, so one is shared by
    // every thread of the process.
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 42)
        .build()?;

    let ids = (0..5)
        .map(|_| generator.mint())
        .collect::<snowmint::Result<Vec<_>>>()?;
    // Unique and strictly increasing: IDs sort by the time they were minted.
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));

    let now_ms = unix_ms_now();
    let mut previous = None;
    for &id in &ids {
        // The layout decodes an ID into its fields; `generator.decode(id)` does the same.
        let parts = Layout::TWITTER.decode(id)?;
        println!(
            "{id}: {} machine={} sequence={}",
            parts.time_rfc3339(),
            parts.node("machine").unwrap_or_default(),
            parts.sequence()
        );
        // The time is now (give or take the clock's cached reading), the node is ours, ...
        assert!(parts.unix_ms().abs_diff(now_ms) < 1_000);
        assert_eq!(parts.node("machine"), Some(42));
        // ... and within one millisecond the sequence counts up from 0; a new millisecond
        // starts it again.
        if let Some((time, sequence)) = previous {
            if parts.unix_ms() == time {
                assert_eq!(parts.sequence(), sequence + 1);
            } else {
                assert!(parts.unix_ms() > time);
                assert_eq!(parts.sequence(), 0);
            }
        }
        previous = Some((parts.unix_ms(), parts.sequence()));

        // Composing the decoded fields gives the ID back, and so does parsing its text form.
        let composed =
            Layout::TWITTER.compose(parts.unix_ms(), &[("machine", 42)], parts.sequence())?;
        assert_eq!(composed, id);
        assert_eq!(Layout::TWITTER.parse(&id.to_string())?, id);
    }

    // A published ID decodes the same way: a tweet from 2022.
    let tweet = Layout::TWITTER.decode(Layout::TWITTER.parse("1541815603606036480")?)?;
    assert_eq!(tweet.unix_ms(), 1_656_432_460_105);
    println!(
        "tweet 1541815603606036480 was posted at {}",
        tweet.time_rfc3339()
    );
    Ok(())
}

/// The wall clock, in Unix milliseconds.
fn unix_ms_now() -> u64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970");
    u64::try_from(since_epoch.as_millis()).expect("the time fits a u64")
}
