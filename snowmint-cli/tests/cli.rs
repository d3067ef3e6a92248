//! The `snowmint` command-line tool, run as a process.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;

use snowmint::{Id, Layout, Snapshot};

mod common;

use common::cli::{BIN, json_lines, run, run_with_stdin, stdout_of};
use common::clocks::wall_ms;

/// The IDs on stdout, one decimal per line.
///
/// Parsed with `u64::from_str` rather than `Id::from_str`, which allocates per digit (slow for
/// a million IDs in a debug build); `Id::from_str` is the library's to test.
fn ids_of(output: &Output) -> Vec<Id> {
    stdout_of(output)
        .lines()
        .map(|line| {
            assert!(
                !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()),
                "not a decimal id: {line:?}"
            );
            Id::from_u64(line.parse().expect("a decimal id"))
        })
        .collect()
}

fn assert_within_a_minute_of_now(unix_ms: u64) {
    let now = wall_ms();
    assert!(
        unix_ms.abs_diff(now) <= 60_000,
        "time {unix_ms} ms is not within a minute of now ({now} ms)"
    );
}

#[test]
fn inspect_json_decodes_the_acceptance_id() {
    let output = run(&[
        "inspect",
        "--layout",
        "twitter",
        "--json",
        "1541815603606036480",
    ]);
    let stdout = stdout_of(&output);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(value["id"], "1541815603606036480");
    assert_eq!(value["layout"], "twitter");
    assert_eq!(value["unix_ms"], 1_656_432_460_105u64);
    assert_eq!(value["time"], "2022-06-28T16:07:40.105Z");
    assert_eq!(value["machine"], 378);
    assert_eq!(value["sequence"], 0);
    // The keys, in order, and nothing else.
    assert_eq!(
        lines[0],
        r#"{"id":"1541815603606036480","layout":"twitter","unix_ms":1656432460105,"time":"2022-06-28T16:07:40.105Z","machine":378,"sequence":0}"#
    );
}

#[test]
fn inspect_json_lists_every_node_field_in_layout_order() {
    let output = run(&[
        "inspect",
        "--layout",
        "discord",
        "--json",
        "175928847299117063",
    ]);
    assert_eq!(
        stdout_of(&output),
        "{\"id\":\"175928847299117063\",\"layout\":\"discord\",\"unix_ms\":1462015105796,\
         \"time\":\"2016-04-30T11:18:25.796Z\",\"worker\":1,\"process\":0,\"sequence\":7}\n"
    );
}

#[test]
fn inspect_without_json_prints_one_human_line_per_id() {
    let output = run(&["inspect", "1541815603606036480", "1541815603606036481"]);
    assert_eq!(
        stdout_of(&output),
        "1541815603606036480 (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=0)\n\
         1541815603606036481 (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=1)\n"
    );
}

#[test]
fn mint_a_million_gives_a_million_increasing_current_twitter_ids() {
    let before = wall_ms();
    let output = run(&["mint", "--count", "1000000"]);
    let after = wall_ms();
    let ids = ids_of(&output);
    assert_eq!(ids.len(), 1_000_000);
    assert!(
        ids.windows(2).all(|pair| pair[0] < pair[1]),
        "ids are not strictly increasing"
    );
    for &id in &ids {
        let parts = Layout::TWITTER.decode(id).expect("a twitter id");
        assert_eq!(parts.node("machine"), Some(0));
        assert!(
            parts.unix_ms() + 60_000 >= before && parts.unix_ms() <= after + 60_000,
            "time {} ms not within a minute of the run ({before}..={after} ms)",
            parts.unix_ms()
        );
    }
}

#[test]
fn mint_count_fills_each_tick_in_one_batch() {
    // Sonyflake holds 256 IDs per 10 ms tick: 600 IDs are two full ticks and 88 more, each
    // tick's run reserved by one batch from sequence 0.
    let ids = ids_of(&run(&["mint", "--layout", "sonyflake", "--count", "600"]));
    assert_eq!(ids.len(), 600);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    let parts: Vec<_> = ids
        .iter()
        .map(|&id| Layout::SONYFLAKE.decode(id).unwrap())
        .collect();
    let sequences: Vec<u64> = parts.iter().map(|p| p.sequence()).collect();
    let expected: Vec<u64> = (0..256).chain(0..256).chain(0..88).collect();
    assert_eq!(sequences, expected);
    let ticks: Vec<u64> = parts.iter().map(|p| p.unix_ms()).collect();
    assert!(ticks[0] < ticks[256] && ticks[256] < ticks[512]);
    assert!(ticks[..256].iter().all(|&t| t == ticks[0]));
}

#[test]
fn mint_defaults_to_one_id() {
    let ids = ids_of(&run(&["mint"]));
    assert_eq!(ids.len(), 1);
    let parts = Layout::TWITTER.decode(ids[0]).unwrap();
    assert_eq!(parts.node("machine"), Some(0));
    assert_within_a_minute_of_now(parts.unix_ms());
}

#[test]
fn out_of_range_and_negative_numbers_name_the_flag_and_the_range() {
    // Fixed ranges, checked by the parser: one line, status 2, no usage block.
    let max = u64::MAX;
    let cases: &[(&[&str], String)] = &[
        (
            &["mint", "--count", "0"],
            format!("invalid value '0' for '--count <N>': out of range, expected 1..={max}"),
        ),
        (
            &["mint", "--count", "-3"],
            format!("invalid value '-3' for '--count <N>': out of range, expected 1..={max}"),
        ),
        (
            &["mint", "--count", "x"],
            format!("invalid value 'x' for '--count <N>': expected a decimal number in 1..={max}"),
        ),
        (
            &["mint", "--layout", "osmium", "--epoch-ms", "-5"],
            format!("invalid value '-5' for '--epoch-ms <MS>': out of range, expected 0..={max}"),
        ),
        (
            &["mint", "--max-wait-ms", "-1"],
            format!(
                "invalid value '-1' for '--max-wait-ms <MS>': out of range, expected 0..={max}"
            ),
        ),
        (
            &["mint", "--layout", "sno", "--partition", "65536"],
            "invalid value '65536' for '--partition <N>': out of range, expected 0..=65535"
                .to_owned(),
        ),
        (
            &["mint", "--layout", "sno", "--meta", "-1"],
            "invalid value '-1' for '--meta <N>': out of range, expected 0..=255".to_owned(),
        ),
    ];
    for (args, message) in cases {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("snowmint: {message}\n"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    // Ranges that depend on the layout, checked once it is known: status 1.
    let cases: &[(&[&str], &str)] = &[
        (
            &["mint", "--machine", "-1"],
            "--machine -1 is out of range for layout twitter (machine: 0..=1023)",
        ),
        (
            &["mint", "--machine", "1024"],
            "--machine 1024 is out of range for layout twitter (machine: 0..=1023)",
        ),
        (
            &["mint", "--layout", "discord", "--node", "worker=32"],
            "--node worker 32 is out of range for layout discord (worker: 0..=31)",
        ),
        (
            &["mint", "--node", "region=1"],
            "--node region 1: layout twitter has no node field region; its node fields are: machine",
        ),
        (
            &["mint", "--machine", "1", "--node", "machine=2"],
            "--node machine 2: the machine field is given twice",
        ),
        (
            &["mint", "--layout", "mastodon", "--node", "x=1"],
            "--node x 1: layout mastodon has no node field x; its node fields are: none",
        ),
    ];
    for (args, message) in cases {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("snowmint: {message}\n"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn layout_errors_speak_of_flags() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["mint", "--layout", "nanoflake"],
            "layout nanoflake needs --epoch-ms, its epoch in Unix milliseconds",
        ),
        (
            &["mint", "--on-clock-behind", "tick-tock"],
            "--on-clock-behind tick-tock needs a layout with a tick-tock bit, and layout twitter has none; give --layout fields with one, e.g. unused:1,time:41,tick-tock,machine:9,sequence:12 with --epoch-ms",
        ),
        (
            &["mint", "--layout", "time:41,sequence:12"],
            "--layout time:41,sequence:12: an inline layout needs --epoch-ms, its epoch in Unix milliseconds",
        ),
        (
            &[
                "mint",
                "--layout",
                "time:41,machine,sequence:12",
                "--epoch-ms",
                "0",
            ],
            "--layout time:41,machine,sequence:12: field 2 \"machine\" is not NAME:BITS or tick-tock",
        ),
        (
            &["mint", "--layout", "time:60,sequence:12", "--epoch-ms", "0"],
            "--layout time:60,sequence:12: the fields add up to 72 bits, expected at most 64",
        ),
        (
            &["mint", "--layout", "twitter", "--tick-ms", "10"],
            "--tick-ms 10 does not apply to --layout twitter: a preset's tick is fixed; --tick-ms is for inline layouts",
        ),
        (
            &["mint", "--layout", "sno", "--machine", "1"],
            "node values (--machine, --node, ...) does not apply to --layout sno (sno ids carry --partition and --meta)",
        ),
        (
            &["mint", "--partition", "1"],
            "--partition 1 is for --layout sno; layout twitter has node fields instead (--node)",
        ),
        (
            &["bounds", "--layout", "nope", "now"],
            "unknown layout \"nope\"; expected sno, uuidv7, ulid, a preset (twitter, discord, instagram, mastodon, sonyflake, nanoflake, snowflake-si, osmium), a JSON layout file, or fields such as unused:1,time:41,machine:10,sequence:12",
        ),
    ];
    for (args, message) in cases {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("snowmint: {message}\n"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn an_inline_layout_with_a_tick_tock_bit_mints_with_tick_tock() {
    let spec = "unused:1,time:41,tick-tock,machine:9,sequence:12";
    let args = [
        "mint",
        "--layout",
        spec,
        "--epoch-ms",
        "1288834974657",
        "--node",
        "machine=5",
        "--on-clock-behind",
        "tick-tock",
        "--count",
        "10",
    ];
    let ids = ids_of(&run(&args));
    assert_eq!(ids.len(), 10);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
    // Named `custom`, as the CLI names an inline layout, so its file inspects the same.
    let layout = Layout::builder("custom", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build()
        .unwrap();
    for &id in &ids {
        let parts = layout.decode(id).unwrap();
        assert_eq!(
            (parts.node("machine"), parts.timeline()),
            (Some(5), Some(0))
        );
        assert!(parts.unix_ms().abs_diff(wall_ms()) < 60_000);
    }
    // The same flag decodes them, and a JSON layout file does too.
    let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let inspected = stdout_of(&run_with_stdin(
        &["inspect", "--layout", spec, "--epoch-ms", "1288834974657"],
        &text,
    ))
    .to_owned();
    assert_eq!(inspected.lines().count(), 10);
    assert!(
        inspected.lines().all(|line| line.contains("machine=5")),
        "{inspected}"
    );
    let dir = scratch_dir("layout_file");
    let file = dir.join("layout.json");
    fs::write(&file, serde_json::to_string(&layout).unwrap()).unwrap();
    let from_file = stdout_of(&run_with_stdin(
        &["inspect", "--layout", path_str(&file)],
        &text,
    ))
    .to_owned();
    assert_eq!(from_file, inspected);
    let from_file = ids_of(&run(&[
        "mint",
        "--layout",
        path_str(&file),
        "--node",
        "machine=7",
        "--count",
        "3",
    ]));
    assert_eq!(
        layout.decode(from_file[2]).unwrap().node("machine"),
        Some(7)
    );
    // A region/host layout with 10 ms ticks.
    let ids = ids_of(&run(&[
        "mint",
        "--layout",
        "time:39,region:4,host:6,sequence:8",
        "--epoch-ms",
        "1704067200000",
        "--tick-ms",
        "10",
        "--node",
        "region=3",
        "--node",
        "host=17",
        "--count",
        "300",
    ]));
    let custom = Layout::builder("custom", 57)
        .time(39)
        .node("region", 4)
        .node("host", 6)
        .sequence(8)
        .tick_ms(10)
        .epoch_ms(1_704_067_200_000)
        .build()
        .unwrap();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 300);
    let parts = custom.decode(ids[299]).unwrap();
    assert_eq!(
        (parts.node("region"), parts.node("host")),
        (Some(3), Some(17))
    );
}

#[test]
fn sno_mints_sorted_unique_sixteen_character_ids() {
    let stdout = stdout_of(&run(&["mint", "--layout", "sno", "--count", "1000"])).to_owned();
    let ids: Vec<&str> = stdout.lines().collect();
    assert_eq!(ids.len(), 1000);
    assert!(ids.iter().all(|id| id.len() == 16), "{ids:?}");
    assert!(
        ids.windows(2).all(|pair| pair[0] < pair[1]),
        "not sorted and unique"
    );
    let stdout = stdout_of(&run(&[
        "mint",
        "--layout",
        "sno",
        "--partition",
        "513",
        "--meta",
        "9",
        "--count",
        "2",
    ]))
    .to_owned();
    for line in stdout.lines() {
        let id: snowmint::sno::SnoId = line.parse().unwrap();
        assert_eq!((id.partition(), id.meta()), (513, 9));
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_snowmint()"),
        ("zsh", "#compdef snowmint"),
        ("fish", "complete -c snowmint"),
    ] {
        let script = stdout_of(&run(&["completions", shell])).to_owned();
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(
            script.contains("inspect") && script.contains("--layout"),
            "{shell}"
        );
    }
    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "snowmint: invalid value 'tcsh' for '<SHELL>'; [possible values: bash, zsh, fish]\n"
    );
}

#[test]
fn completions_into_a_closed_pipe_end_quietly() {
    for shell in ["bash", "zsh", "fish"] {
        // The reading end is closed before snowmint starts: its first write fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(BIN)
            .args(["completions", shell])
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shell}: {:?}",
            output.status
        );
        assert!(
            output.stderr.is_empty(),
            "{shell}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn completions_help_names_each_shells_file_without_stray_characters() {
    let help = stdout_of(&run(&["completions", "--help"])).to_owned();
    assert!(
        help.contains("~/.local/share/bash-completion/completions/snowmint"),
        "{help}"
    );
    assert!(!help.contains('\\'), "{help}");
}

/// A `mint` run: the layout, extra flags, and the node values the IDs must carry.
struct MintCase {
    layout: &'static str,
    flags: &'static [&'static str],
    nodes: &'static [(&'static str, u64)],
}

const EPOCH_MS: u64 = 1_700_000_000_000;

#[test]
fn mint_with_each_preset_and_node_flags_decodes_back() {
    let case = |layout, flags, nodes| MintCase {
        layout,
        flags,
        nodes,
    };
    let cases = [
        case("twitter", &["--machine", "1023"], &[("machine", 1023)]),
        case(
            "discord",
            &["--worker", "3", "--process", "4"],
            &[("worker", 3), ("process", 4)],
        ),
        case("instagram", &["--shard", "8191"], &[("shard", 8191)]),
        case("mastodon", &[], &[]),
        case("sonyflake", &["--machine", "65535"], &[("machine", 65535)]),
        case(
            "nanoflake",
            &["--epoch-ms", "1700000000000", "--generator", "5"],
            &[("generator", 5)],
        ),
        case("snowflake-si", &["--machine", "31"], &[("machine", 31)]),
        case(
            "snowflake-si",
            &["--epoch-ms", "1700000000000", "--machine", "7"],
            &[("machine", 7)],
        ),
        case(
            "osmium",
            &["--worker", "31", "--process", "1"],
            &[("worker", 31), ("process", 1)],
        ),
        case(
            "osmium",
            &["--epoch-ms", "1700000000000", "--worker", "2"],
            &[("worker", 2), ("process", 0)],
        ),
    ];
    for MintCase {
        layout,
        flags,
        nodes,
    } in cases
    {
        let mut args = vec!["mint", "--layout", layout, "--count", "3"];
        args.extend_from_slice(flags);
        let ids = ids_of(&run(&args));
        assert_eq!(ids.len(), 3, "{args:?}");
        assert!(ids.windows(2).all(|p| p[0] < p[1]), "{args:?}: {ids:?}");
        let epoch_ms = flags.contains(&"--epoch-ms").then_some(EPOCH_MS);
        let layout_value = Layout::preset(layout, epoch_ms).unwrap();
        for &id in &ids {
            let parts = layout_value
                .decode(id)
                .unwrap_or_else(|e| panic!("{args:?}: {e}"));
            let decoded: Vec<(&str, u64)> = parts.nodes().collect();
            assert_eq!(decoded, nodes, "{args:?}");
            assert_within_a_minute_of_now(parts.unix_ms());
            if layout == "snowflake-si" {
                assert!(id.to_u64() < 1 << 53, "{id} is not JavaScript-safe");
            }
        }
    }
}

#[test]
fn mint_piped_into_inspect_reads_ids_from_stdin() {
    let minted = run(&[
        "mint", "--layout", "discord", "--worker", "2", "--count", "3",
    ]);
    let ids = ids_of(&minted);
    let output = run_with_stdin(
        &["inspect", "--layout", "discord", "--json"],
        stdout_of(&minted),
    );
    let objects = json_lines(stdout_of(&output));
    assert_eq!(objects.len(), 3);
    for (object, id) in objects.iter().zip(&ids) {
        assert_eq!(object["id"], id.to_string());
        assert_eq!(object["layout"], "discord");
        assert_eq!(object["worker"], 2);
        assert_eq!(object["process"], 0);
        assert_within_a_minute_of_now(object["unix_ms"].as_u64().unwrap());
    }
}

#[test]
fn inspect_stdin_skips_blank_lines_and_trims_whitespace() {
    let output = run_with_stdin(
        &["inspect"],
        "\n  1541815603606036480  \n\n\t1541815603606036481\r\n   \n1541815603606036482",
    );
    let ids: Vec<&str> = stdout_of(&output)
        .lines()
        .map(|line| line.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "1541815603606036480",
            "1541815603606036481",
            "1541815603606036482"
        ]
    );
}

#[test]
fn help_lists_the_presets() {
    for command in ["mint", "inspect"] {
        let output = run(&[command, "--help"]);
        assert!(
            stdout_of(&output).contains(&Layout::PRESETS.join(", ")),
            "{command} --help does not list the presets"
        );
    }
}

/// Fails with `status` (2 for a usage error, 1 for a failure at run time) and exactly one
/// stderr line, `snowmint: ...`, naming `bad`.
fn assert_one_line_error(args: &[&str], output: &Output, bad: &str, status: i32) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(status),
        "{args:?}: stderr: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: stderr: {stderr}");
    assert!(stderr.ends_with('\n'), "{args:?}: {stderr:?}");
    assert!(lines[0].starts_with("snowmint: "), "{args:?}: {stderr}");
    // The bad value as a whole word, not merely as a substring of something else.
    let words: Vec<&str> = lines[0]
        .split(|c: char| !c.is_ascii_alphanumeric())
        .collect();
    assert!(
        words.contains(&bad),
        "{args:?}: {stderr:?} does not name {bad:?}"
    );
}

#[test]
fn bad_input_fails_with_one_line_naming_the_bad_value() {
    let cases: &[(&[&str], &str)] = &[
        (&["mint", "--layout", "nope"], "nope"),
        (&["mint", "--machine", "1024"], "1024"),
        (&["mint", "--layout", "twitter", "--worker", "1"], "worker"),
        (
            &["mint", "--layout", "instagram", "--machine", "1"],
            "machine",
        ),
        (&["mint", "--layout", "mastodon", "--shard", "1"], "shard"),
        (&["mint", "--layout", "discord", "--process", "32"], "32"),
        (&["inspect", "abc"], "abc"),
        (
            &["inspect", "--layout", "twitter", "9223372036854775808"],
            "9223372036854775808",
        ),
        (&["inspect", "18446744073709551616"], "18446744073709551616"),
        (&["inspect", "--layout", "nope", "1"], "nope"),
        (&["mint", "--layout", "nanoflake"], "nanoflake"),
        (&["mint", "--layout", "twitter", "--epoch-ms", "5"], "5"),
    ];
    for &(args, bad) in cases {
        let output = run(args);
        assert_one_line_error(args, &output, bad, 2);
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn unknown_node_flag_error_names_the_layouts_node_fields() {
    let args = ["mint", "--layout", "discord", "--machine", "1"];
    let output = run(&args);
    assert_one_line_error(&args, &output, "machine", 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("worker, process"),
        "does not name discord's node fields: {stderr}"
    );
}

#[test]
fn inspect_stops_at_the_first_bad_id_after_printing_the_good_ones() {
    let good = "1541815603606036480";
    let args = ["inspect", "--json", good, "12x4", good];
    let output = run(&args);
    assert_one_line_error(&args, &output, "12x4", 2);
    let objects = json_lines(std::str::from_utf8(&output.stdout).unwrap());
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["id"], good);

    let output = run_with_stdin(&["inspect"], &format!("{good}\n{good}\n-7\n{good}\n"));
    assert_one_line_error(&["inspect", "<stdin>"], &output, "7", 1);
    let stdout = std::str::from_utf8(&output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

/// Regression: a missing argument was reported as `... were not provided:; --to <FORM>`.
#[test]
fn a_missing_argument_is_named_after_the_message_without_a_stray_semicolon() {
    for (args, missing) in [
        (&["convert"][..], "--to <FORM>"),
        (&["bounds"], "<TIME>"),
        (&["completions"], "<SHELL>"),
    ] {
        let output = run_with_stdin(args, "");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            format!("snowmint: the following required arguments were not provided: {missing}"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("Usage: snowmint "), "{args:?}: {stderr}");
    }
}

/// Regression: a failed write to stdout said `i/o error: No space left on device`, naming no
/// file. It names stdout, with status 1.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_to_stdout_names_stdout() {
    for args in [
        &["mint", "--count", "10"][..],
        &["inspect", "1541815603606036480"],
        &["convert", "--to", "hex", "1541815603606036480"],
        &["bounds", "now"],
        &["completions", "bash"],
    ] {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = Command::new(BIN)
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("snowmint: cannot write to stdout: ") && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    }
}

/// Regression: `--machine` and the other node flags default to 0 while the library refuses a
/// missing node value, and nothing said so. `mint --help` states the rule, and `snowmint mint`
/// alone still mints as machine 0.
#[test]
fn the_command_lines_default_node_value_of_0_is_stated_in_mint_help() {
    let help = stdout_of(&run(&["mint", "--help"])).to_owned();
    assert!(
        help.contains("a node field that no flag gives")
            && help.contains("is 0")
            && help.contains("the library's generator builder refuses a missing node value"),
        "{help}"
    );
    assert!(
        help.contains("Machine id (twitter, sonyflake, snowflake-si); 0 when not given"),
        "{help}"
    );
    let id = ids_of(&run(&["mint"]))[0];
    let parts = Layout::TWITTER.decode(id).unwrap();
    assert_eq!(parts.node("machine"), Some(0));
}

#[test]
fn usage_errors_keep_clap_status_2() {
    for args in [
        &["mint", "--count", "x"][..],
        &["mint", "--bogus"],
        &["mint", "--on-clock-behind", "bogus"],
        &["mint", "--on-clock-behind", "error", "--max-wait-ms", "5"],
        &["mint", "--max-wait-ms", "x"],
        &["mint", "--snapshot"],
        &["frobnicate"],
        &[],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn every_subcommand_exits_2_for_a_bad_command_line_and_1_for_a_failure_at_run_time() {
    let dir = scratch_dir("exit_status");
    let corrupt = dir.join("corrupt.snap");
    fs::write(&corrupt, "garbage\n").unwrap();
    let corrupt = path_str(&corrupt);
    let layout_file = dir.join("layout.json");
    fs::write(&layout_file, "{}\n").unwrap();
    let layout_file = path_str(&layout_file);
    // The arguments, stdin (for commands that read it), and the status.
    let cases: &[(&[&str], &str, i32)] = &[
        (&["mint", "--machine", "-1"], "", 2),
        (&["mint", "--machine", "x"], "", 2),
        (&["mint", "--machine", "1024"], "", 2),
        (&["mint", "--count", "0"], "", 2),
        (&["mint", "--layout", "nope"], "", 2),
        (&["mint", "--layout", "discord", "--machine", "1"], "", 2),
        (&["mint", "--snapshot", corrupt], "", 1),
        (&["mint", "--layout", layout_file], "", 1),
        (&["inspect", "abc"], "", 2),
        (&["inspect", "--keep-going", "abc", "1"], "", 2),
        (&["inspect"], "abc\n", 1),
        (&["inspect", "--keep-going"], "abc\n1\n", 1),
        (&["inspect", "--format", "nope", "1"], "", 2),
        (&["inspect", "--layout", layout_file, "1"], "", 1),
        (&["convert", "--to", "hex", "abc"], "", 2),
        (&["convert", "--to", "hex"], "abc\n", 1),
        (&["convert", "1"], "", 2),
        (&["bounds", "2024-05-01T00:00:00"], "", 2),
        (&["bounds", "--layout", "discord", "0"], "", 2),
        (&["bounds", "--layout", "nope", "now"], "", 2),
        (&["bounds"], "", 2),
        (&["completions", "tcsh"], "", 2),
        (&["completions"], "", 2),
    ];
    for &(args, stdin, status) in cases {
        let output = run_with_stdin(args, stdin);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(stderr.starts_with("snowmint: "), "{args:?}: {stderr}");
    }
    let help = stdout_of(&run(&["--help"])).to_owned();
    assert!(
        help.contains("Exit status: 0 on success") && help.contains("1 for a failure at run time"),
        "{help}"
    );
}

#[test]
fn mint_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(BIN)
        .args(["mint", "--count", "10000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.trim_end().parse::<Id>().is_ok(), "{line:?}");
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "status {:?}", output.status);
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn mint_on_a_slow_layout_shows_the_first_ids_before_the_run_ends() {
    // Two IDs per 100 ms tick: 40 IDs take at least 1.9 s, and fit any output buffer.
    let mut child = Command::new(BIN)
        .args([
            "mint",
            "--layout",
            "time:41,sequence:1",
            "--epoch-ms",
            "1700000000000",
            "--tick-ms",
            "100",
            "--count",
            "40",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn snowmint");
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(read.map(|_| line));
    });
    let first = receiver.recv_timeout(std::time::Duration::from_millis(1000));
    child.kill().unwrap();
    child.wait().unwrap();
    reader.join().unwrap();
    let line = first
        .expect("no ID within 1 s of a run that lasts 1.9 s")
        .unwrap();
    assert!(line.trim_end().parse::<Id>().is_ok(), "{line:?}");
}

#[test]
fn inspect_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(BIN)
        .arg("inspect")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    let mut stdin = child.stdin.take().unwrap();
    // Feeds IDs until snowmint exits and the write fails.
    let feeder = thread::spawn(move || {
        let chunk = "1541815603606036480\n".repeat(1000);
        while stdin.write_all(chunk.as_bytes()).is_ok() {}
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("1541815603606036480 (twitter "),
        "{line:?}"
    );
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "status {:?}", output.status);
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One ID of each preset (with `--epoch-ms` where the preset needs one), and its layout.
fn one_id_of_each_preset() -> Vec<(Layout, String)> {
    Layout::PRESETS
        .iter()
        .map(|&name| {
            let epoch_ms = (name == "nanoflake").then_some(EPOCH_MS);
            let layout = Layout::preset(name, epoch_ms).unwrap();
            let epoch = EPOCH_MS.to_string();
            let mut args = vec!["mint", "--layout", name];
            if epoch_ms.is_some() {
                args.extend(["--epoch-ms", &epoch]);
            }
            let ids = ids_of(&run(&args));
            (layout, ids[0].to_string())
        })
        .collect()
}

#[test]
fn inspect_json_has_no_timeline_key_for_layouts_without_a_tick_tock_bit() {
    for (layout, id) in one_id_of_each_preset() {
        assert!(layout.tick_tock_field().is_none(), "{}", layout.name());
        let epoch = layout.epoch_ms().to_string();
        let args = [
            "inspect",
            "--layout",
            layout.name(),
            "--epoch-ms",
            &epoch,
            "--json",
            &id,
        ];
        // Fixed-epoch presets take their own epoch too.
        let stdout = stdout_of(&run(&args)).to_owned();
        assert!(!stdout.contains("\"timeline\""), "{args:?}: {stdout}");
        let objects = json_lines(&stdout);
        assert_eq!(objects.len(), 1);
        let keys: BTreeSet<&str> = objects[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected: BTreeSet<&str> = ["id", "layout", "unix_ms", "time", "sequence"].into();
        expected.extend(layout.node_fields().map(|f| f.name()));
        assert_eq!(keys, expected, "{args:?}");
    }
}

#[test]
fn mint_accepts_each_clock_behind_policy_that_fits_the_layout() {
    for flags in [
        &["--on-clock-behind", "wait"][..],
        &["--on-clock-behind", "wait", "--max-wait-ms", "0"],
        &["--max-wait-ms", "50"],
        &["--on-clock-behind", "error"],
    ] {
        let mut args = vec!["mint", "--count", "3"];
        args.extend_from_slice(flags);
        let ids = ids_of(&run(&args));
        assert_eq!(ids.len(), 3, "{args:?}");
        assert!(ids.windows(2).all(|p| p[0] < p[1]), "{args:?}");
    }
}

#[test]
fn tick_tock_on_a_layout_without_the_bit_fails_naming_the_flag() {
    let dir = scratch_dir("tick_tock_unsupported");
    let file = dir.join("never.snap");
    for (layout, _) in one_id_of_each_preset() {
        let expected = format!(
            "snowmint: --on-clock-behind tick-tock needs a layout with a tick-tock bit, and \
             layout {} has none; give --layout fields with one, e.g. \
             unused:1,time:41,tick-tock,machine:9,sequence:12 with --epoch-ms\n",
            layout.name()
        );
        let epoch = layout.epoch_ms().to_string();
        for extra in [
            &[][..],
            &["--max-wait-ms", "0"],
            &["--snapshot", path_str(&file)],
        ] {
            let mut args = vec![
                "mint",
                "--layout",
                layout.name(),
                "--epoch-ms",
                &epoch,
                "--on-clock-behind",
                "tick-tock",
            ];
            args.extend_from_slice(extra);
            let output = run(&args);
            assert_one_line_error(&args, &output, "tick", 2);
            assert_eq!(
                String::from_utf8_lossy(&output.stderr),
                expected,
                "{args:?}"
            );
            assert!(output.stdout.is_empty(), "{args:?}");
            assert!(!file.exists(), "{args:?} created the snapshot file");
        }
    }
}

/// A fresh, empty directory for one test's files.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// The files in `dir`, by name. A run that ended removed its snapshot file's lock file
/// (`FILE.lock`), so none is among them.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// The snapshot file's JSON.
fn snapshot_json(file: &Path) -> serde_json::Value {
    let text = fs::read_to_string(file).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{error} in {text:?}"))
}

/// The snapshot file, read as the library reads it.
fn snapshot_of(file: &Path) -> Snapshot {
    serde_json::from_value(snapshot_json(file)).unwrap()
}

/// The snapshot file's number at `key`.
fn snapshot_value(file: &Path, key: &str) -> u64 {
    snapshot_json(file)[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no number at {key} in {file:?}"))
}

/// Rewrites the snapshot file's number at `key` with `value`.
fn set_snapshot_value(file: &Path, key: &str, value: u64) {
    let mut json = snapshot_json(file);
    assert!(json[key].is_u64(), "no number at {key} to edit");
    json[key] = value.into();
    fs::write(file, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

#[test]
fn snapshot_resumes_where_the_last_run_stopped() {
    let dir = scratch_dir("snapshot_resume");
    let file = dir.join("machine5.snap");
    let f = path_str(&file);
    let first = ids_of(&run(&[
        "mint",
        "--machine",
        "5",
        "--count",
        "1000",
        "--snapshot",
        f,
    ]));
    assert_eq!(first.len(), 1000);
    let last = Layout::TWITTER.decode(first[999]).unwrap();
    let mut expected = Snapshot::at_mark(Layout::TWITTER, &[("machine", 5)], None);
    expected.last_tick = last.ticks();
    expected.sequence = last.sequence();
    assert_eq!(expected.sequence_range, 0..=4095);
    assert_eq!(snapshot_of(&file), expected);

    // The node flag may be left out (the snapshot's is used) or given equal.
    let second = ids_of(&run(&["mint", "--count", "600", "--snapshot", f]));
    let third = ids_of(&run(&[
        "mint",
        "--machine",
        "5",
        "--count",
        "400",
        "--snapshot",
        f,
    ]));
    let all: Vec<Id> = [first, second, third].concat();
    assert_eq!(all.len(), 2000);
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 2000);
    assert!(
        all.windows(2).all(|pair| pair[0] < pair[1]),
        "ids are not strictly increasing across runs"
    );
    for &id in &all {
        assert_eq!(Layout::TWITTER.decode(id).unwrap().node("machine"), Some(5));
    }
    let last = Layout::TWITTER.decode(all[1999]).unwrap();
    assert_eq!(snapshot_value(&file, "last_tick"), last.ticks());
    assert_eq!(snapshot_value(&file, "sequence"), last.sequence());
    // Saved by renaming over the file: no temporary file is left.
    assert_eq!(file_names(&dir), ["machine5.snap"]);
}

#[test]
fn snapshot_of_a_run_that_minted_nothing_resumes_too() {
    let dir = scratch_dir("snapshot_empty");
    let file = dir.join("discord.snap");
    let f = path_str(&file);
    // A state written by the library for a generator that has minted nothing.
    let empty = Snapshot::at_mark(Layout::DISCORD, &[("worker", 3), ("process", 0)], None);
    fs::write(&file, serde_json::to_string(&empty).unwrap()).unwrap();
    let ids = ids_of(&run(&[
        "mint",
        "--layout",
        "discord",
        "--count",
        "2",
        "--snapshot",
        f,
    ]));
    let parts = Layout::DISCORD.decode(ids[1]).unwrap();
    assert_eq!(
        (parts.node("worker"), parts.node("process")),
        (Some(3), Some(0))
    );
    assert_eq!(snapshot_value(&file, "last_tick"), parts.ticks());
}

/// A snapshot file in `dir` whose last tick starts `ahead_ms` after now, and that tick's start
/// in Unix milliseconds.
fn snapshot_ahead_of_now(dir: &Path, ahead_ms: u64) -> (PathBuf, u64) {
    let file = dir.join("ahead.snap");
    let _ = fs::remove_file(&file);
    stdout_of(&run(&["mint", "--snapshot", path_str(&file)]));
    let last_ms = wall_ms() + ahead_ms;
    set_snapshot_value(&file, "last_tick", last_ms - Layout::TWITTER.epoch_ms());
    (file, last_ms)
}

/// The `N` of the library's "clock reads N ms behind ..." message on stderr.
fn behind_ms(output: &Output) -> u64 {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let rest = stderr
        .split_once("clock reads ")
        .unwrap_or_else(|| panic!("not a clock-behind error: {stderr}"))
        .1;
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn snapshot_ahead_of_the_clock_with_on_clock_behind_error_fails_saying_how_far_behind() {
    let dir = scratch_dir("snapshot_ahead_error");
    let (file, _) = snapshot_ahead_of_now(&dir, 10_000);
    let before = snapshot_of(&file);
    let args = [
        "mint",
        "--snapshot",
        path_str(&file),
        "--on-clock-behind",
        "error",
    ];
    let output = run(&args);
    assert_one_line_error(&args, &output, "behind", 1);
    let behind = behind_ms(&output);
    assert!(
        (5_000..=10_000).contains(&behind),
        "{behind} ms behind, expected about 10 s"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("waits at most 0 ms"), "{stderr}");
    assert!(output.stdout.is_empty());
    // Nothing minted: the snapshot still holds the time ahead.
    assert_eq!(snapshot_of(&file), before);
    assert_eq!(file_names(&dir), ["ahead.snap"]);
}

#[test]
fn snapshot_ahead_of_the_clock_by_more_than_max_wait_ms_fails_under_wait() {
    let dir = scratch_dir("snapshot_ahead_wait");
    let (file, _) = snapshot_ahead_of_now(&dir, 10_000);
    let before = snapshot_of(&file);
    for flags in [
        &["--on-clock-behind", "wait", "--max-wait-ms", "100"][..],
        // The default: wait, at most 1000 ms.
        &[],
    ] {
        let mut args = vec!["mint", "--snapshot", path_str(&file)];
        args.extend_from_slice(flags);
        let output = run(&args);
        assert_one_line_error(&args, &output, "behind", 1);
        let behind = behind_ms(&output);
        assert!((5_000..=10_000).contains(&behind), "{args:?}: {behind} ms");
        let max_ms = if flags.is_empty() { 1_000 } else { 100 };
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("waits at most {max_ms} ms")),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
        assert_eq!(snapshot_of(&file), before, "{args:?}");
    }
}

#[test]
fn snapshot_ahead_of_the_clock_by_less_than_max_wait_ms_waits_then_mints_after_it() {
    let dir = scratch_dir("snapshot_ahead_waits");
    let (file, last_ms) = snapshot_ahead_of_now(&dir, 300);
    let ids = ids_of(&run(&[
        "mint",
        "--snapshot",
        path_str(&file),
        "--max-wait-ms",
        "5000",
        "--count",
        "3",
    ]));
    assert!(wall_ms() >= last_ms);
    for &id in &ids {
        let parts = Layout::TWITTER.decode(id).unwrap();
        assert!(
            parts.unix_ms() >= last_ms,
            "{id} minted at {} ms, before the snapshot's {last_ms} ms",
            parts.unix_ms()
        );
    }
    let last = Layout::TWITTER.decode(ids[2]).unwrap();
    assert_eq!(snapshot_value(&file, "last_tick"), last.ticks());
}

#[test]
fn corrupt_snapshot_fails_naming_the_line_and_is_left_as_it_is() {
    let dir = scratch_dir("snapshot_corrupt");
    let file = dir.join("bad.snap");
    let f = path_str(&file);
    stdout_of(&run(&["mint", "--machine", "5", "--snapshot", f]));
    let good = fs::read_to_string(&file).unwrap();
    let last_tick = snapshot_value(&file, "last_tick");
    let edited = |key: &str, value: serde_json::Value| {
        let mut json = snapshot_json(&file);
        json[key] = value;
        serde_json::to_string_pretty(&json).unwrap().into_bytes()
    };
    let mut node_1024 = snapshot_json(&file);
    node_1024["nodes"][0][1] = 1024.into();
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (
            b"garbage\n".to_vec(),
            "JSON",
            "the file is not a snowmint snapshot (JSON): line 1 column 1: expected value",
        ),
        (
            Vec::new(),
            "EOF",
            "the file is not a snowmint snapshot (JSON): line 1 column 0: EOF while parsing a value",
        ),
        (
            good.replace(&format!("\"last_tick\": {last_tick}"), "\"last_tick\": 12x")
                .into_bytes(),
            "JSON",
            "the file is not a snowmint snapshot (JSON): line 36 column ",
        ),
        (
            good.as_bytes()[..good.len() / 2].to_vec(),
            "EOF",
            "the file is not a snowmint snapshot (JSON): line ",
        ),
        (
            serde_json::to_string(&node_1024).unwrap().into_bytes(),
            "1024",
            "the file holds an invalid snapshot: machine id 1024 is out of range for layout twitter (0..=1023)",
        ),
        (
            edited("sequence", 4096.into()),
            "4096",
            "the file holds an invalid snapshot: invalid snapshot for layout twitter: sequence 4096 is out of range (0..=4095)",
        ),
        (
            edited("sequence", (-1).into()),
            "1",
            "the file holds an invalid snapshot: line 38 column 16: invalid value: integer `-1`, expected u64",
        ),
        (
            b"{\"layout\": \"\xff\"}\n".to_vec(),
            "JSON",
            "the file is not a snowmint snapshot (JSON): line 1 column 13: invalid unicode",
        ),
        (
            vec![b' '; 70_000],
            "65536",
            "the file is larger than 65536 bytes",
        ),
    ];
    for (content, bad, message) in cases {
        fs::write(&file, &content).unwrap();
        let args = ["mint", "--snapshot", f];
        let output = run(&args);
        assert_one_line_error(&args, &output, bad, 1);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!("snowmint: snapshot {f}: ")) && stderr.contains(message),
            "{stderr:?} for {:?}",
            String::from_utf8_lossy(&content)
        );
        assert!(output.stdout.is_empty());
        assert_eq!(fs::read(&file).unwrap(), content, "the file was changed");
        assert_eq!(file_names(&dir), ["bad.snap"]);
    }
}

#[test]
fn a_snapshot_files_bad_content_is_reported_as_the_files_in_one_bounded_line() {
    let dir = scratch_dir("snapshot_content");
    let file = dir.join("state.snap");
    let f = path_str(&file);
    stdout_of(&run(&["mint", "--machine", "5", "--snapshot", f]));
    let edited = |key: &str, value: serde_json::Value| {
        let mut json = snapshot_json(&file);
        json[key] = value;
        serde_json::to_string_pretty(&json).unwrap()
    };
    let huge = "x".repeat(60_000);
    let cases = [
        (edited("nodes", serde_json::json!([])), "machine"),
        (
            edited(
                "sequence_range",
                serde_json::json!({"start": 0, "end": 4096}),
            ),
            "4096",
        ),
        (edited("layout", 5.into()), "an object"),
        (edited("layout", huge.as_str().into()), "an object"),
        (edited("layout", "a\"".repeat(20_000).into()), "an object"),
        (
            edited("nodes", serde_json::json!([[huge, 1]])),
            "node field",
        ),
    ];
    for (content, what) in cases {
        fs::write(&file, &content).unwrap();
        let output = run(&["mint", "--snapshot", f]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let shown = &content[..content.len().min(200)];
        assert!(!output.status.success(), "{shown}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        let prefix = format!("snowmint: snapshot {f}: the file holds an invalid snapshot: ");
        assert!(stderr.starts_with(&prefix), "{stderr} for {shown}");
        assert!(stderr.contains(what), "{stderr} for {shown}");
        assert!(stderr.len() < prefix.len() + 300, "{stderr}");
        assert!(
            !stderr.contains("struct") && !stderr.contains("Def"),
            "{stderr}"
        );
    }
}

#[test]
fn snapshot_that_does_not_fit_the_command_line_fails_naming_both_values() {
    let dir = scratch_dir("snapshot_mismatch");
    let twitter = dir.join("twitter.snap");
    let si = dir.join("si.snap");
    stdout_of(&run(&[
        "mint",
        "--machine",
        "5",
        "--snapshot",
        path_str(&twitter),
    ]));
    stdout_of(&run(&[
        "mint",
        "--layout",
        "snowflake-si",
        "--epoch-ms",
        "1700000000000",
        "--machine",
        "7",
        "--snapshot",
        path_str(&si),
    ]));
    let saved = [
        fs::read_to_string(&twitter).unwrap(),
        fs::read_to_string(&si).unwrap(),
    ];
    // (flags, snapshot, a bad value named, another text the message names)
    let cases: &[(&[&str], &Path, &str, &str)] = &[
        (&["--machine", "6"], &twitter, "6", "snapshot's machine 5"),
        (
            &["--layout", "discord", "--worker", "5"],
            &twitter,
            "discord",
            "layout twitter",
        ),
        (
            &["--layout", "snowflake-si", "--machine", "7"],
            &si,
            "1700000000000",
            "epoch 1577836800000",
        ),
        (
            &["--layout", "snowflake-si", "--epoch-ms", "1700000000001"],
            &si,
            "1700000000001",
            "epoch 1700000000000",
        ),
        // As without a snapshot: a value out of range, a field the layout lacks.
        (&["--machine", "1024"], &twitter, "1024", "out of range"),
        (&["--worker", "5"], &twitter, "worker", "no node field"),
    ];
    for &(flags, file, bad, also) in cases {
        let mut args = vec!["mint", "--snapshot", path_str(file)];
        args.extend_from_slice(flags);
        let output = run(&args);
        assert_one_line_error(&args, &output, bad, 2);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(also), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(
        [
            fs::read_to_string(&twitter).unwrap(),
            fs::read_to_string(&si).unwrap(),
        ],
        saved
    );
    assert_eq!(file_names(&dir), ["si.snap", "twitter.snap"]);
}

#[test]
fn snapshot_is_saved_when_stdout_closes_early() {
    let dir = scratch_dir("snapshot_closed_pipe");
    let file = dir.join("pipe.snap");
    let mut child = Command::new(BIN)
        .args(["mint", "--count", "10000000", "--snapshot", path_str(&file)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let first: Id = line.trim_end().parse().unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "status {:?}", output.status);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The snapshot covers every ID printed: at least the first.
    let first = Layout::TWITTER.decode(first).unwrap();
    let saved = (
        snapshot_value(&file, "last_tick"),
        snapshot_value(&file, "sequence"),
    );
    assert!(saved >= (first.ticks(), first.sequence()), "{saved:?}");
    assert_eq!(file_names(&dir), ["pipe.snap"]);
}

#[test]
fn snapshot_in_a_missing_directory_fails_before_minting() {
    let dir = scratch_dir("snapshot_missing_dir");
    let file = dir.join("no").join("such.snap");
    let args = ["mint", "--snapshot", path_str(&file)];
    let output = run(&args);
    assert_one_line_error(&args, &output, "tmp", 1);
    assert!(
        output.stdout.is_empty(),
        "printed an ID it could not record"
    );
    // Regression: the error named the lock file that could not be opened, not the directory
    // that is missing.
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "snowmint: snapshot {}: directory {} does not exist\n",
            file.display(),
            dir.join("no").display()
        )
    );
    // A file where the directory should be is said to be one.
    fs::write(dir.join("no"), "").unwrap();
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "{} is not a directory\n",
            dir.join("no").display()
        )),
        "{stderr}"
    );
}

/// Regression: every run left `FILE.lock` beside the snapshot file. A run removes it as it
/// ends, whether minting succeeded or not; a run given the file meanwhile is still refused.
#[test]
fn a_run_leaves_no_lock_file_behind() {
    let dir = scratch_dir("snapshot_lock_removed");
    let file = dir.join("clean.snap");
    let f = path_str(&file);
    stdout_of(&run(&["mint", "--count", "3", "--snapshot", f]));
    assert_eq!(file_names(&dir), ["clean.snap"]);
    // A run that fails once it holds the lock (the snapshot's machine is 0) removes it too.
    let refused = run(&["mint", "--machine", "1", "--snapshot", f]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(file_names(&dir), ["clean.snap"]);
    // A lock file left by a run killed with kill -9 is taken over, and removed at the end.
    fs::write(dir.join("clean.snap.lock"), "").unwrap();
    stdout_of(&run(&["mint", "--snapshot", f]));
    assert_eq!(file_names(&dir), ["clean.snap"]);
}

#[test]
fn a_killed_run_leaves_a_snapshot_above_every_id_it_printed() {
    let dir = scratch_dir("snapshot_killed");
    let file = dir.join("killed.snap");
    let f = path_str(&file);
    // A run that ended cleanly first, so the killed one resumes from a snapshot.
    let before = ids_of(&run(&[
        "mint",
        "--machine",
        "5",
        "--count",
        "10",
        "--snapshot",
        f,
    ]));
    let mut child = Command::new(BIN)
        .args(["mint", "--count", "100000000", "--snapshot", f])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = Vec::new();
    let mut line = String::new();
    while printed.len() < 100_000 {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        printed.push(line.trim_end().parse::<Id>().unwrap());
    }
    child.kill().unwrap(); // SIGKILL: no exit path runs
    // What the pipe still holds was printed too.
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        // The last line may be cut short by the kill.
        match line.parse::<Id>() {
            Ok(id) => printed.push(id),
            Err(_) => break,
        }
    }
    assert!(!child.wait().unwrap().success());
    let last = *printed.iter().max().unwrap();
    assert!(printed[0] > *before.last().unwrap());

    // The file holds a state above every ID printed.
    let saved = snapshot_of(&file);
    let last_parts = Layout::TWITTER.decode(last).unwrap();
    assert!(
        (saved.last_tick, saved.sequence) >= (last_parts.ticks(), last_parts.sequence()),
        "the snapshot's tick {} and sequence {} are below the last ID printed, {last}",
        saved.last_tick,
        saved.sequence
    );
    // The next run starts above them, and continues cleanly.
    let after = ids_of(&run(&["mint", "--count", "1000", "--snapshot", f]));
    assert!(after[0] > last, "{} repeats or precedes {last}", after[0]);
    assert_eq!(
        snapshot_value(&file, "last_tick"),
        Layout::TWITTER.decode(after[999]).unwrap().ticks()
    );
    assert_eq!(file_names(&dir), ["killed.snap"]);
}

#[test]
fn every_subcommands_layout_help_names_sno_files_and_fields() {
    for command in ["mint", "inspect", "bounds"] {
        let help = stdout_of(&run(&[command, "--help"])).to_owned();
        for word in ["sno", "JSON layout file", "NAME:BITS", "tick-tock"] {
            assert!(
                help.contains(word),
                "{command} --help lacks {word:?}: {help}"
            );
        }
    }
    let help = stdout_of(&run(&["convert", "--help"])).to_owned();
    assert!(help.contains("--layout <LAYOUT>"), "{help}");
}
