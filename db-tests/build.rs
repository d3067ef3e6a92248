//! Copies the "Database types" section of snowmint's guide `docs::text_and_paging`
//! (`src/docs/text_and_paging.rs`) into this crate's documentation, so that its examples run
//! as this crate's doctests, with the clients that only this crate builds.

use std::path::Path;
use std::{env, fs};

const GUIDE: &str = "../src/docs/text_and_paging.rs";
const SECTION: &str = "## Database types";

fn main() {
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join(GUIDE);
    println!("cargo::rerun-if-changed={}", guide.display());
    let text = fs::read_to_string(&guide).unwrap_or_else(|e| panic!("reading {GUIDE}: {e}"));
    let docs = text
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line));

    // The section runs from its heading to the next heading of its level or above, outside the
    // code blocks (whose hidden lines also start with `# `).
    let (mut section, mut inside, mut in_code) = (String::new(), false, false);
    for line in docs {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        let heading = !in_code && (line.starts_with("# ") || line.starts_with("## "));
        if heading && inside {
            break;
        }
        inside |= heading && line.starts_with(SECTION);
        if inside {
            section.push_str(line);
            section.push('\n');
        }
    }
    assert!(
        section.contains("```"),
        "{GUIDE} has no section `{SECTION}` with examples: update db-tests/build.rs"
    );
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("database_types.md");
    fs::write(&out, section).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
