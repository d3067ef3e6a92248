//! Page through the rows of a time window by ID bounds alone.
//!
//! A table keyed by Snowflake IDs is also sorted by time, so "the rows of the last hour" is a
//! range of its primary key: `Layout::id_range(start..end)`. No time column and no
//! second index are needed, and each page is the next `LIMIT` rows after the last ID seen
//! (keyset pagination). A `Vec` sorted by ID stands in for the table here.
//!
//! Run with `cargo run --example paging`.

use snowmint::{Generator, Id, Layout, clock::ManualClock};

/// One row of the stand-in table.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    id: Id,
    body: String,
}

const MINUTE_MS: u64 = 60_000;
const PAGE: usize = 25;

fn main() -> snowmint::Result<()> {
    // Fill the table with 10 orders a minute for two hours, minted on a clock set by hand so
    // the example is deterministic.
    let start_of_day = 1_767_225_600_000; // 2026-01-01T00:00:00Z
    let clock = ManualClock::new(start_of_day);
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 3)
        .clock(clock.clone())
        .build()?;
    let mut table = Vec::new();
    for minute in 0..120 {
        clock.set(start_of_day + minute * MINUTE_MS);
        for n in 0..10 {
            clock.advance(1_000); // an order every second
            let id = generator.mint()?;
            table.push(Row {
                id,
                body: format!("order {n} of minute {minute}"),
            });
        }
    }
    // IDs increase with time, so appending in minting order keeps the table sorted by key.
    assert!(table.windows(2).all(|pair| pair[0].id < pair[1].id));

    // The window: from 00:30 up to (not including) 01:15, as inclusive ID bounds: the
    // smallest ID of 00:30:00.000 and the largest of 01:14:59.999.
    let (from_ms, to_ms) = (start_of_day + 30 * MINUTE_MS, start_of_day + 75 * MINUTE_MS);
    let window = Layout::TWITTER
        .id_range(from_ms..to_ms)
        .expect("the window is inside the layout");
    let (lower, upper) = (*window.start(), *window.end());

    // Page through it: `WHERE id BETWEEN lower AND upper AND id > last ORDER BY id LIMIT 25`.
    let mut pages = Vec::new();
    let mut last: Option<Id> = None;
    loop {
        let page = select_page(&table, lower, upper, last, PAGE);
        let Some(row) = page.last() else { break };
        last = Some(row.id);
        pages.push(page);
    }
    let found: Vec<Row> = pages.iter().flatten().cloned().collect();
    println!(
        "{} rows of {} in [{from_ms}, {to_ms}), in {} pages of at most {PAGE}",
        found.len(),
        table.len(),
        pages.len()
    );

    // The ID bounds select exactly the rows whose decoded time is in the window, in order,
    // each once: 45 minutes of 10 orders.
    let expected: Vec<Row> = table
        .iter()
        .filter(|row| {
            let time = Layout::TWITTER.decode(row.id).unwrap().unix_ms();
            (from_ms..to_ms).contains(&time)
        })
        .cloned()
        .collect();
    assert_eq!(found, expected);
    assert_eq!(found.len(), 45 * 10);
    assert_eq!(found[0].body, "order 0 of minute 30");
    assert_eq!(found[found.len() - 1].body, "order 9 of minute 74");
    assert!(
        pages[..pages.len() - 1]
            .iter()
            .all(|page| page.len() == PAGE)
    );

    // The bounds are those of the window's first and last milliseconds.
    assert_eq!(lower, Layout::TWITTER.min_id_at(from_ms)?);
    assert_eq!(upper, Layout::TWITTER.max_id_at(to_ms - 1)?);
    // An open-ended window needs no special case: everything from 01:15 on.
    let rest = Layout::TWITTER
        .id_range(to_ms..)
        .expect("inside the layout");
    let after: Vec<&Row> = table.iter().filter(|row| rest.contains(&row.id)).collect();
    assert_eq!(after.len(), 45 * 10);
    Ok(())
}

/// The table's query: up to `limit` rows with `lower <= id <= upper` and `id > after`, in ID
/// order. A binary search finds the first row, as a database's index would.
fn select_page(table: &[Row], lower: Id, upper: Id, after: Option<Id>, limit: usize) -> Vec<Row> {
    let first = table.partition_point(|row| row.id < lower || after.is_some_and(|a| row.id <= a));
    table[first..]
        .iter()
        .take_while(|row| row.id <= upper)
        .take(limit)
        .cloned()
        .collect()
}
