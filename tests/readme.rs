//! The README's Rust blocks read as they run: no rustdoc hidden lines, which a rendered README
//! would show verbatim. (The blocks themselves run as doctests, `ReadmeDoctests` in `lib.rs`.)

const README: &str = include_str!("../README.md");

/// The lines of `text`'s Rust code blocks, with their line numbers (from 1).
fn rust_lines(text: &str) -> Vec<(usize, &str)> {
    // `Some(is_rust)` inside a block; an untagged block is Rust, as rustdoc reads it.
    let mut block: Option<bool> = None;
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(info.is_empty() || info.split(',').any(|tag| tag.trim() == "rust")),
            };
        } else if block == Some(true) {
            lines.push((n + 1, line));
        }
    }
    lines
}

/// Whether rustdoc hides `line` from a doctest's rendering: `#` alone or followed by a space.
fn is_hidden(line: &str) -> bool {
    let line = line.trim_start();
    line == "#" || line.starts_with("# ")
}

#[test]
fn no_readme_rust_block_has_a_hidden_line() {
    let hidden: Vec<String> = rust_lines(README)
        .into_iter()
        .filter(|(_, line)| is_hidden(line))
        .map(|(n, line)| format!("README.md:{n}: {line}"))
        .collect();
    assert!(
        hidden.is_empty(),
        "hidden doctest lines:\n{}",
        hidden.join("\n")
    );
}

#[test]
fn the_check_finds_hidden_lines_in_rust_blocks_only_and_passes_attributes() {
    let text =
        "```sh\n# a comment\n```\n```rust\nlet x = 1;\n# Ok::<(), E>(())\n#[derive(Debug)]\n```\n";
    let found: Vec<usize> = rust_lines(text)
        .into_iter()
        .filter(|(_, line)| is_hidden(line))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(found, [6]);
}
