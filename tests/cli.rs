//! The `snowmint` command-line tool, run as a process.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::{Id, Layout, PRESET_NAMES};

const BIN: &str = env!("CARGO_BIN_EXE_snowmint");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run snowmint")
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
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
fn stdout_of(output: &Output) -> &str {
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

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn assert_within_a_minute_of_now(timestamp_ms: u64) {
    let now = now_ms();
    assert!(
        timestamp_ms.abs_diff(now) <= 60_000,
        "timestamp {timestamp_ms} ms is not within a minute of now ({now} ms)"
    );
}

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
        .collect()
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
    assert_eq!(value["timestamp_ms"], 1_656_432_460_105u64);
    assert_eq!(value["time"], "2022-06-28T16:07:40.105Z");
    assert_eq!(value["machine"], 378);
    assert_eq!(value["sequence"], 0);
    // The keys, in order, and nothing else.
    assert_eq!(
        lines[0],
        r#"{"id":"1541815603606036480","layout":"twitter","timestamp_ms":1656432460105,"time":"2022-06-28T16:07:40.105Z","machine":378,"sequence":0}"#
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
        "{\"id\":\"175928847299117063\",\"layout\":\"discord\",\"timestamp_ms\":1462015105796,\
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
    let before = now_ms();
    let output = run(&["mint", "--count", "1000000"]);
    let after = now_ms();
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
            parts.timestamp_ms() + 60_000 >= before && parts.timestamp_ms() <= after + 60_000,
            "timestamp {} ms not within a minute of the run ({before}..={after} ms)",
            parts.timestamp_ms()
        );
    }
}

#[test]
fn mint_defaults_to_one_id() {
    let ids = ids_of(&run(&["mint"]));
    assert_eq!(ids.len(), 1);
    let parts = Layout::TWITTER.decode(ids[0]).unwrap();
    assert_eq!(parts.node("machine"), Some(0));
    assert_within_a_minute_of_now(parts.timestamp_ms());
}

#[test]
fn mint_count_zero_prints_nothing() {
    let output = run(&["mint", "--count", "0"]);
    assert_eq!(stdout_of(&output), "");
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
            assert_within_a_minute_of_now(parts.timestamp_ms());
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
        assert_within_a_minute_of_now(object["timestamp_ms"].as_u64().unwrap());
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
            stdout_of(&output).contains(PRESET_NAMES),
            "{command} --help does not list the presets"
        );
    }
}

/// Fails with status 1 and exactly one stderr line, `snowmint: ...`, naming `bad`.
fn assert_one_line_error(args: &[&str], output: &Output, bad: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{args:?}: stderr: {stderr}");
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
        assert_one_line_error(args, &output, bad);
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn unknown_node_flag_error_names_the_layouts_node_fields() {
    let args = ["mint", "--layout", "discord", "--machine", "1"];
    let output = run(&args);
    assert_one_line_error(&args, &output, "machine");
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
    assert_one_line_error(&args, &output, "12x4");
    let objects = json_lines(std::str::from_utf8(&output.stdout).unwrap());
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["id"], good);

    let output = run_with_stdin(&["inspect"], &format!("{good}\n{good}\n-7\n{good}\n"));
    assert_one_line_error(&["inspect", "<stdin>"], &output, "7");
    let stdout = std::str::from_utf8(&output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

#[test]
fn usage_errors_keep_clap_status_2() {
    for args in [
        &["mint", "--count", "x"][..],
        &["mint", "--machine", "-1"],
        &["mint", "--bogus"],
        &["frobnicate"],
        &[],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
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
