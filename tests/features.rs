//! The crate docs' feature list (`src/lib.rs`, "Feature flags") names every feature of
//! Cargo.toml's `[features]` but `default`, once each, and nothing else: the list is written
//! by hand, and this keeps it and Cargo.toml alike.

use std::collections::BTreeSet;

const MANIFEST: &str = include_str!("../Cargo.toml");
const LIB: &str = include_str!("../src/lib.rs");

/// The names declared in `manifest`'s `[features]` table, but `default`.
fn declared(manifest: &str) -> Vec<&str> {
    let mut in_features = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_features = line.trim() == "[features]";
        } else if in_features {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                if !name.starts_with('#') && name != "default" {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// The names the "Feature flags" section of `lib`'s crate docs lists: its items
/// `//! - **`name`**: ...`.
fn listed(lib: &str) -> Vec<&str> {
    let mut in_section = false;
    let mut names = Vec::new();
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            continue;
        };
        // One space after `//!`; an indented item is part of the one above it.
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        if let Some(heading) = doc.strip_prefix("# ") {
            in_section = heading == "Feature flags";
        } else if in_section {
            if let Some(item) = doc.strip_prefix("- **`") {
                if let Some((name, _)) = item.split_once("`**") {
                    names.push(name);
                }
            }
        }
    }
    names
}

#[test]
fn the_crate_docs_list_every_feature_once_and_no_other() {
    let declared = declared(MANIFEST);
    let listed = listed(LIB);
    assert!(
        !declared.is_empty(),
        "no features found in Cargo.toml's [features]"
    );
    let listed_once: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(
        listed_once.len(),
        listed.len(),
        "a feature listed twice: {listed:?}"
    );
    let declared: BTreeSet<&str> = declared.into_iter().collect();
    let missing: Vec<_> = declared.difference(&listed_once).collect();
    let unknown: Vec<_> = listed_once.difference(&declared).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "src/lib.rs's \"Feature flags\" misses {missing:?} and names {unknown:?}, \
         which Cargo.toml's [features] does not declare"
    );
}

#[test]
fn the_parsers_read_only_their_sections() {
    let manifest = "[package]\nname = \"x\"\n[features]\n# a = []\ndefault = []\na = []\nb-c = [\"a\"]\n[dependencies]\nd = \"1\"\n";
    assert_eq!(declared(manifest), ["a", "b-c"]);
    let lib = "//! # Design\n//! - **`x`**: no\n//! # Feature flags\n//!\n//! - **`a`**: yes\n//!   - **`c`**: a continuation\n//! # Examples\n//! - **`y`**: no\n";
    assert_eq!(listed(lib), ["a"]);
}
