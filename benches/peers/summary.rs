//! The summary printed at the end of a run: markdown tables of figures printed during the run
//! and of criterion's medians read back from `target/criterion`, grouped in sections (one file
//! each in a report, [`crate::report`]), and the scaling figures as numbers for its plot.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::contenders::Spec;

/// A figure of the summary: printed during the run, or criterion's median read at the end.
pub enum Cell {
    Text(String),
    /// The median time per iteration of `group/function/value`, shown as `format` of it.
    Median {
        path: String,
        format: fn(f64) -> String,
    },
}

/// One markdown table of the summary.
struct Table {
    /// The index of its section in [`Summary::sections`].
    section: usize,
    title: String,
    /// The header of the first column, which names the rows.
    rows_are: String,
    columns: Vec<String>,
    rows: Vec<(String, BTreeMap<String, Cell>)>,
    /// A line under the table: how to read it.
    note: Option<String>,
}

/// A part of the run whose tables go together (`scenarios`, `scaling`, `targets`).
struct Section {
    name: String,
    started: Instant,
}

/// One contender's figure against the thread count, for a plot.
pub struct Series {
    pub name: String,
    /// `(threads, figure)`, in the order recorded.
    pub points: Vec<(usize, f64)>,
}

/// One section's tables as markdown, and how long the run spent in it.
pub struct SectionMarkdown {
    pub name: String,
    pub took: Duration,
    pub markdown: String,
}

#[derive(Default)]
pub struct Summary {
    tables: Vec<Table>,
    sections: Vec<Section>,
    series: Vec<Series>,
    /// `(row, figure)` of the tails' tables, in the order recorded, for their plot.
    bars: Vec<(String, f64)>,
}

impl Summary {
    /// Starts the section `name`: the tables made from now on belong to it.
    pub fn section(&mut self, name: &str) {
        self.sections.push(Section {
            name: name.to_owned(),
            started: Instant::now(),
        });
    }

    /// Records `figure` of the contender `series` on `threads` threads, for a plot. The first
    /// figure recorded for a thread count stands: a contender of two pairings is plotted from
    /// the first.
    pub fn point(&mut self, series: &str, threads: usize, figure: f64) {
        let index = match self.series.iter().position(|s| s.name == series) {
            Some(index) => index,
            None => {
                self.series.push(Series {
                    name: series.to_owned(),
                    points: Vec::new(),
                });
                self.series.len() - 1
            }
        };
        let points = &mut self.series[index].points;
        if points.iter().all(|&(t, _)| t != threads) {
            points.push((threads, figure));
        }
    }

    /// The series recorded with [`Summary::point`].
    pub fn series(&self) -> &[Series] {
        &self.series
    }

    /// Records `figure` of `row`, for a plot of one bar per row.
    pub fn bar(&mut self, row: &str, figure: f64) {
        self.bars.push((row.to_owned(), figure));
    }

    /// The bars recorded with [`Summary::bar`].
    pub fn bars(&self) -> &[(String, f64)] {
        &self.bars
    }

    pub fn table(&mut self, title: &str, columns: &[String]) -> usize {
        self.table_of("contender", title, columns)
    }

    /// A table whose rows are `rows_are` (the header of its first column).
    pub fn table_of(&mut self, rows_are: &str, title: &str, columns: &[String]) -> usize {
        if self.sections.is_empty() {
            self.section("summary");
        }
        self.tables.push(Table {
            section: self.sections.len() - 1,
            title: title.to_owned(),
            rows_are: rows_are.to_owned(),
            columns: columns.to_vec(),
            rows: Vec::new(),
            note: None,
        });
        self.tables.len() - 1
    }

    /// Puts `text` in a line under `table`, where a reader meets the table.
    pub fn note(&mut self, table: usize, text: &str) {
        self.tables[table].note = Some(text.to_owned());
    }

    pub fn set(&mut self, table: usize, row: &str, column: &str, cell: Cell) {
        let rows = &mut self.tables[table].rows;
        let index = match rows.iter().position(|(name, _)| name == row) {
            Some(index) => index,
            None => {
                rows.push((row.to_owned(), BTreeMap::new()));
                rows.len() - 1
            }
        };
        rows[index].1.insert(column.to_owned(), cell);
    }

    pub fn print(&self) {
        println!("\n# Summary (medians of criterion's estimates; printed figures of this run)\n");
        print!("{}", self.markdown(|_| true));
    }

    /// Each section that has tables, as markdown, with the time from its start to the next
    /// section's (or to now, for the last).
    pub fn sections(&self) -> Vec<SectionMarkdown> {
        let now = Instant::now();
        (0..self.sections.len())
            .filter(|&k| self.tables.iter().any(|table| table.section == k))
            .map(|k| {
                let ends = self.sections.get(k + 1).map_or(now, |next| next.started);
                SectionMarkdown {
                    name: self.sections[k].name.clone(),
                    took: ends - self.sections[k].started,
                    markdown: self.markdown(|table| table.section == k),
                }
            })
            .collect()
    }

    /// The tables that `which` picks, as markdown: a `###` heading and a table each, each
    /// followed by a blank line.
    fn markdown(&self, which: impl Fn(&Table) -> bool) -> String {
        let root = criterion_home();
        let mut out = String::new();
        for table in self.tables.iter().filter(|table| which(table)) {
            // Writing to a `String` cannot fail.
            let _ = writeln!(out, "### {}\n", table.title);
            let _ = writeln!(
                out,
                "| {} | {} |",
                table.rows_are,
                table.columns.join(" | ")
            );
            let _ = writeln!(out, "|---|{}", "---|".repeat(table.columns.len()));
            for (row, cells) in &table.rows {
                let shown: Vec<String> = table
                    .columns
                    .iter()
                    .map(|column| match cells.get(column) {
                        None => String::new(),
                        Some(Cell::Text(text)) => text.clone(),
                        Some(Cell::Median { path, format }) => {
                            median_ns(&root, path).map_or_else(|| "n/a".to_owned(), format)
                        }
                    })
                    .collect();
                let _ = writeln!(out, "| {row} | {} |", shown.join(" | "));
            }
            if let Some(note) = &table.note {
                let _ = writeln!(out, "\n{note}");
            }
            out.push('\n');
        }
        out
    }
}

/// Where criterion writes its estimates and reports, as criterion finds it.
pub fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("criterion")
}

/// The median time per iteration, in ns, criterion estimated for `path` in this run.
fn median_ns(root: &Path, path: &str) -> Option<f64> {
    let file = root.join(path).join("new").join("estimates.json");
    let text = std::fs::read_to_string(file).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

pub fn millions(ids_per_s: f64) -> String {
    format!("{:.2} M/s", ids_per_s / 1e6)
}

pub fn percent_of(spec: &Spec, ids_per_s: f64) -> String {
    spec.ceiling.map_or_else(
        || "n/a".to_owned(),
        |ceiling| format!("{:.1}%", 100.0 * ids_per_s / ceiling as f64),
    )
}

/// `ns per ID per thread (aggregate)`, for a thread count known at compile time.
fn per_thread_and_aggregate<const THREADS: u64>(ns: f64) -> String {
    format!("{ns:.1} ns ({})", millions(THREADS as f64 * 1e9 / ns))
}

pub fn ns_per_id_of_batch<const BATCH: u64>(ns: f64) -> String {
    format!("{:.3} ns", ns / BATCH as f64)
}

pub fn median_cell(path: String, threads: usize) -> Cell {
    let format: fn(f64) -> String = match threads {
        1 => per_thread_and_aggregate::<1>,
        2 => per_thread_and_aggregate::<2>,
        4 => per_thread_and_aggregate::<4>,
        8 => per_thread_and_aggregate::<8>,
        16 => per_thread_and_aggregate::<16>,
        _ => |ns| format!("{ns:.1} ns per ID per thread"),
    };
    Cell::Median { path, format }
}

/// Column headers from their names.
pub fn columns(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// The line under a table of ratios: why a median ratio can disagree with the medians beside
/// it.
pub const RATIO_NOTE: &str = "A ratio is the median of the ratios taken within each round (both \
contenders timed back to back); the figures beside it are each contender's median over its own \
rounds. The two can disagree: a contender ahead by its median figure can have a median ratio on \
the other side of 1 when its good rounds and the other's fell in different rounds. The ratio is \
the figure a target is judged on, since a slow minute of the machine falls on both sides of it.";
