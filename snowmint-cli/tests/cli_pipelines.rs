//! The `snowmint` command line in pipelines, run as a process: bad lines named by number and
//! `--keep-going`, IDs echoed in the form read, lenient hex input, and `bounds` times and ticks.

use std::process::Output;

use snowmint::{Id, Layout, encoding::Encoding, sno::SnoId};

mod common;

use common::cli::{json_lines, run, run_with_stdin, stdout_of};
use common::clocks::wall_ms;

/// The encyclopedia's example tweet, its base62 and hex text, and its time.
const TWEET: &str = "1541815603606036480";
const TWEET_BASE62: &str = "1ptWyK4WgZU";
const TWEET_HEX: &str = "1565a11f6217a000";
const TWEET_TIME: &str = "2022-06-28T16:07:40.105Z";

/// The line `inspect` prints for the decimal `id` under twitter: the library's `Display`.
fn twitter_line(id: &str) -> String {
    let id: Id = id.parse().unwrap();
    format!("{}\n", Layout::TWITTER.decode(id).unwrap())
}

/// The library's message for `text` read as `form`.
fn message(form: Encoding, text: &str) -> String {
    form.decode(text).unwrap_err().to_string()
}

/// Exits having printed `stdout` and exactly `stderr`, with status 1 for a bad line of stdin
/// (input read at run time) and 2 for anything else these tests give (a usage error).
fn assert_failed_with(what: &str, output: &Output, stdout: &str, stderr: &str) {
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        stderr,
        "{what}: stderr"
    );
    let status = if stderr.starts_with("snowmint: line ") {
        1
    } else {
        2
    };
    assert_eq!(output.status.code(), Some(status), "{what}: status");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        stdout,
        "{what}: stdout"
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: named by line or argument number; --keep-going

#[test]
fn inspect_stops_at_the_first_bad_line_naming_its_number() {
    let output = run_with_stdin(&["inspect"], "1\nabc\n2\n");
    assert_failed_with(
        "inspect <stdin>",
        &output,
        &twitter_line("1"),
        &format!("snowmint: line 2: {}\n", message(Encoding::Decimal, "abc")),
    );
}

#[test]
fn inspect_keep_going_reports_each_bad_line_and_fails_at_the_end() {
    let output = run_with_stdin(&["inspect", "--keep-going"], "1\nabc\n2\n");
    assert_failed_with(
        "inspect --keep-going <stdin>",
        &output,
        &format!("{}{}", twitter_line("1"), twitter_line("2")),
        &format!("snowmint: line 2: {}\n", message(Encoding::Decimal, "abc")),
    );

    // Blank lines count; each bad line gets its own line on stderr, in order.
    let stdin = format!("\n{TWEET}\n  \n-7\n{TWEET}\n9223372036854775808\n\nx\n");
    let output = run_with_stdin(&["inspect", "--keep-going", "--json"], &stdin);
    let stderr = format!(
        "snowmint: line 4: {}\nsnowmint: line 6: {}\nsnowmint: line 8: {}\n",
        message(Encoding::Decimal, "-7"),
        Layout::TWITTER
            .decode(Id::from_u64(9_223_372_036_854_775_808))
            .unwrap_err(),
        message(Encoding::Decimal, "x"),
    );
    assert_eq!(String::from_utf8_lossy(&output.stderr), stderr);
    assert_eq!(output.status.code(), Some(1));
    let objects = json_lines(std::str::from_utf8(&output.stdout).unwrap());
    assert_eq!(objects.len(), 2);
    for object in &objects {
        assert_eq!(object["id"], TWEET);
    }
}

#[test]
fn keep_going_with_no_bad_line_succeeds() {
    for args in [
        &["inspect", "--keep-going"][..],
        &["convert", "--keep-going", "--to", "hex"],
    ] {
        stdout_of(&run_with_stdin(args, &format!("{TWEET}\n\n{TWEET}\n")));
    }
}

#[test]
fn bad_arguments_are_named_by_their_position_among_the_ids() {
    let output = run(&["inspect", "1", "abc", "2"]);
    assert_failed_with(
        "inspect 1 abc 2",
        &output,
        &twitter_line("1"),
        &format!(
            "snowmint: argument 2: {}\n",
            message(Encoding::Decimal, "abc")
        ),
    );
    let output = run(&["inspect", "--keep-going", "abc", "1", "-", "2"]);
    assert_failed_with(
        "inspect --keep-going abc 1 - 2",
        &output,
        &format!("{}{}", twitter_line("1"), twitter_line("2")),
        &format!(
            "snowmint: argument 1: {}\nsnowmint: argument 3: {}\n",
            message(Encoding::Decimal, "abc"),
            message(Encoding::Decimal, "-")
        ),
    );
}

#[test]
fn convert_stops_at_the_first_bad_line_or_keeps_going() {
    let stdin = format!("{TWEET_BASE62}\n{TWEET}\n{TWEET_BASE62}\n");
    let bad = format!("snowmint: line 2: {}\n", message(Encoding::Base62, TWEET));
    let args = ["convert", "--from", "base62", "--to", "hex"];
    assert_failed_with(
        "convert <stdin>",
        &run_with_stdin(&args, &stdin),
        &format!("{TWEET_HEX}\n"),
        &bad,
    );
    let args = ["convert", "--from", "base62", "--to", "hex", "--keep-going"];
    assert_failed_with(
        "convert --keep-going <stdin>",
        &run_with_stdin(&args, &stdin),
        &format!("{TWEET_HEX}\n{TWEET_HEX}\n"),
        &bad,
    );
    let args = ["convert", "--to", "hex", TWEET, "x", TWEET];
    assert_failed_with(
        "convert arguments",
        &run(&args),
        &format!("{TWEET_HEX}\n"),
        &format!(
            "snowmint: argument 2: {}\n",
            message(Encoding::Decimal, "x")
        ),
    );
}

#[test]
fn inspect_sno_names_bad_lines_and_keeps_going_too() {
    let (zero, max) = ("2222222222222222", "xxxxxxxxxxxxxxxx");
    let stdin = format!("{zero}\n222\n{max}\n");
    let sno_line = |text: &str| {
        let id: SnoId = text.parse().unwrap();
        format!(
            "{text} (sno {} timeline={} meta={} partition={} sequence={})\n",
            id.time_rfc3339(),
            id.timeline(),
            id.meta(),
            id.partition(),
            id.sequence()
        )
    };
    let bad = format!(
        "snowmint: line 2: {}\n",
        "222".parse::<SnoId>().unwrap_err()
    );
    let output = run_with_stdin(&["inspect", "--layout", "sno"], &stdin);
    assert_failed_with("inspect --layout sno", &output, &sno_line(zero), &bad);
    let output = run_with_stdin(&["inspect", "--layout", "sno", "--keep-going"], &stdin);
    assert_failed_with(
        "inspect --layout sno --keep-going",
        &output,
        &format!("{}{}", sno_line(zero), sno_line(max)),
        &bad,
    );
}

// ---------------------------------------------------------------------------------------------
// inspect echoes the form read

#[test]
fn inspect_echoes_each_id_in_the_form_it_was_read() {
    let id: Id = TWEET.parse().unwrap();
    let parts = Layout::TWITTER.decode(id).unwrap();
    let after_id = parts.to_string()[TWEET.len()..].to_owned();
    assert_eq!(
        after_id,
        format!(" (twitter {TWEET_TIME} machine=378 sequence=0)")
    );
    for form in Encoding::ALL {
        let text = form.encode(id);
        let args = ["inspect", "--from", form.name(), text.as_str()];
        assert_eq!(
            stdout_of(&run(&args)),
            format!("{text}{after_id}\n"),
            "{args:?}"
        );
    }
    let output = run(&["inspect", "--from", "base62", TWEET_BASE62]);
    assert_eq!(
        stdout_of(&output),
        format!("{TWEET_BASE62} (twitter {TWEET_TIME} machine=378 sequence=0)\n")
    );
}

#[test]
fn inspect_json_has_the_id_in_the_form_read_and_the_decimal_after_it() {
    let output = run(&["inspect", "--json", "--from", "base62", TWEET_BASE62]);
    assert_eq!(
        stdout_of(&output),
        format!(
            "{{\"id\":\"{TWEET_BASE62}\",\"decimal\":\"{TWEET}\",\"layout\":\"twitter\",\
             \"unix_ms\":1656432460105,\"time\":\"{TWEET_TIME}\",\"machine\":378,\
             \"sequence\":0}}\n"
        )
    );
    // Decimal input has no "decimal" key: "id" is the decimal.
    let output = run(&["inspect", "--json", TWEET]);
    assert_eq!(
        stdout_of(&output),
        format!(
            "{{\"id\":\"{TWEET}\",\"layout\":\"twitter\",\"unix_ms\":1656432460105,\
             \"time\":\"{TWEET_TIME}\",\"machine\":378,\"sequence\":0}}\n"
        )
    );
    let id: Id = TWEET.parse().unwrap();
    for form in Encoding::ALL {
        let text = form.encode(id);
        let args = ["inspect", "--json", "--from", form.name(), text.as_str()];
        let object = &json_lines(stdout_of(&run(&args)))[0];
        assert_eq!(object["id"], text.as_str(), "{args:?}");
        match form {
            Encoding::Decimal => assert!(object.get("decimal").is_none(), "{args:?}"),
            _ => assert_eq!(object["decimal"], TWEET, "{args:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Hex: an optional 0x, and fewer than 16 digits

#[test]
fn hex_input_takes_a_0x_prefix_and_fewer_than_16_digits() {
    let cases = [
        (TWEET_HEX, TWEET),
        ("0x1565a11f6217a000", TWEET),
        ("0X1565A11F6217A000", TWEET),
        ("1565a11f6217a00", "96363475225377280"),
        ("0x1565a11f6217a00", "96363475225377280"),
        ("0x1", "1"),
        ("f", "15"),
        ("0", "0"),
        ("0x0000000000000000", "0"),
        ("0x7fffffffffffffff", "9223372036854775807"),
    ];
    for (hex, decimal) in cases {
        let output = run(&["convert", "--from", "hex", "--to", "decimal", hex]);
        assert_eq!(stdout_of(&output), format!("{decimal}\n"), "{hex}");
    }
    // From stdin, and in inspect, which echoes the canonical 16 digits.
    let stdin: String = cases.iter().map(|(hex, _)| format!("{hex}\n")).collect();
    let output = run_with_stdin(&["convert", "--from", "hex", "--to", "decimal"], &stdin);
    let expected: String = cases.iter().map(|(_, d)| format!("{d}\n")).collect();
    assert_eq!(stdout_of(&output), expected);
    let output = run_with_stdin(&["inspect", "--from", "hex"], &stdin);
    let expected: String = cases
        .iter()
        .map(|(_, decimal)| {
            let line = twitter_line(decimal);
            let id: Id = decimal.parse().unwrap();
            format!("{}{}", Encoding::Hex.encode(id), &line[decimal.len()..])
        })
        .collect();
    assert_eq!(stdout_of(&output), expected);
}

#[test]
fn hex_input_that_is_not_0x_and_1_to_16_digits_says_what_hex_the_cli_takes() {
    for bad in [
        "0x",
        "0X",
        "x1",
        "0x0x1",
        "-1",
        "0x12345678901234567",
        "12345678901234567",
        "0xg",
        "0x 1",
    ] {
        let args = ["convert", "--from", "hex", "--to", "decimal", bad];
        assert_failed_with(
            bad,
            &run(&args),
            "",
            &format!(
                "snowmint: argument 1: {bad:?} is not a hex id: expected 1 to 16 hex digits, \
                 optionally after 0x\n"
            ),
        );
    }
    // The library's parser itself stays strict.
    assert!(Encoding::Hex.decode("0x1565a11f6217a000").is_err());
    assert!(Encoding::Hex.decode("1565a11f6217a00").is_err());
}

// ---------------------------------------------------------------------------------------------
// bounds: now, Unix milliseconds, RFC 3339; the tick

/// `bounds ARGS...`'s stdout.
fn bounds(args: &[&str]) -> String {
    let mut all = vec!["bounds"];
    all.extend_from_slice(args);
    stdout_of(&run(&all)).to_owned()
}

#[test]
fn bounds_of_unix_milliseconds_are_those_of_the_same_rfc3339_time() {
    for layout in ["twitter", "sonyflake", "discord"] {
        for json in [&[][..], &["--json"]] {
            for (ms, rfc3339) in [
                ("1714521600000", "2024-05-01T00:00:00Z"),
                ("1714521600005", "2024-05-01T00:00:00.005Z"),
                ("0001714521600009", "2024-05-01T00:00:00.009Z"),
            ] {
                let mut args = vec!["--layout", layout];
                args.extend_from_slice(json);
                let of = |time| {
                    let mut args = args.clone();
                    args.push(time);
                    bounds(&args)
                };
                assert_eq!(of(ms), of(rfc3339), "{args:?} {ms}");
            }
        }
    }
    let text = bounds(&["1714521600000"]);
    let lower: Id = text.lines().next().unwrap()["lower ".len()..]
        .parse()
        .unwrap();
    assert_eq!(lower, Layout::TWITTER.min_id_at(1_714_521_600_000).unwrap());
}

#[test]
fn bounds_now_are_the_bounds_at_the_clock() {
    for (flags, layout) in [
        (&[][..], Layout::TWITTER),
        (&["--layout", "sonyflake"], Layout::SONYFLAKE),
    ] {
        let mut args = flags.to_vec();
        args.extend(["--json", "now"]);
        let before = wall_ms();
        let object = &json_lines(&bounds(&args))[0];
        let after = wall_ms();
        let ms = object["unix_ms"].as_u64().unwrap();
        assert!(
            (before..=after).contains(&ms),
            "{before} <= {ms} <= {after}"
        );
        let lower: Id = object["lower"].as_str().unwrap().parse().unwrap();
        let upper: Id = object["upper"].as_str().unwrap().parse().unwrap();
        assert_eq!(lower, layout.min_id_at(ms).unwrap(), "{args:?}");
        assert_eq!(upper, layout.max_id_at(ms).unwrap(), "{args:?}");

        let mut args = flags.to_vec();
        args.push("now");
        let text = bounds(&args);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{args:?}: {text}");
        assert!(lines[0].starts_with("lower "), "{text}");
        assert!(lines[1].starts_with("upper "), "{text}");
        let tick_ms = layout.tick_ms();
        assert!(
            lines[2].starts_with("tick ") && lines[2].ends_with(&format!(" ({tick_ms} ms)")),
            "{text}"
        );
    }
}

#[test]
fn bounds_print_the_tick_they_cover() {
    let time = "2024-05-01T00:00:00.005Z";
    let text = bounds(&["--layout", "sonyflake", time]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[2],
        "tick 2024-05-01T00:00:00.000Z..2024-05-01T00:00:00.010Z (10 ms)"
    );
    // The lower bound carries the tick's start, not the time given.
    let lower: Id = lines[0]["lower ".len()..].parse().unwrap();
    let parts = Layout::SONYFLAKE.decode(lower).unwrap();
    assert_eq!(parts.time_rfc3339().to_string(), "2024-05-01T00:00:00.000Z");

    let object = &json_lines(&bounds(&["--layout", "sonyflake", "--json", time]))[0];
    assert_eq!(object["unix_ms"], 1_714_521_600_005u64);
    assert_eq!(object["tick_start_ms"], 1_714_521_600_000u64);
    assert_eq!(object["tick_end_ms"], 1_714_521_600_010u64);
    assert_eq!(object["tick_start_ms"], parts.unix_ms());

    // A 1 ms tick is the millisecond itself.
    let text = bounds(&["--layout", "twitter", time]);
    assert_eq!(
        text.lines().nth(2).unwrap(),
        "tick 2024-05-01T00:00:00.005Z..2024-05-01T00:00:00.006Z (1 ms)"
    );
}

#[test]
fn bounds_refuse_unix_milliseconds_out_of_range() {
    let cases = [
        (
            "99999999999999999999",
            "snowmint: invalid time \"99999999999999999999\": 20 digits of Unix milliseconds is \
             out of range (0..=18446744073709551615)\n"
                .to_owned(),
        ),
        (
            "1000",
            format!(
                "snowmint: {}\n",
                Layout::TWITTER.min_id_at(1000).unwrap_err()
            ),
        ),
        (
            "18446744073709551615",
            format!(
                "snowmint: {}\n",
                Layout::TWITTER.min_id_at(u64::MAX).unwrap_err()
            ),
        ),
    ];
    for (time, stderr) in cases {
        assert_failed_with(time, &run(&["bounds", time]), "", &stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// --layout in every subcommand: sno bounds, convert's check, node names

#[test]
fn bounds_on_sno_cover_every_id_of_the_time_unit() {
    let out = bounds(&["--layout", "sno", "2024-05-01T00:00:00.005Z"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "lower 8kkk6x2422222222",
            "upper 8kkk6x25xxxxxxxx",
            "tick 2024-05-01T00:00:00.004Z..2024-05-01T00:00:00.008Z (4 ms)",
        ]
    );
    let lower: SnoId = "8kkk6x2422222222".parse().unwrap();
    let upper: SnoId = "8kkk6x25xxxxxxxx".parse().unwrap();
    assert_eq!(
        (lower.unix_ms(), upper.unix_ms()),
        (1_714_521_600_004, 1_714_521_600_004)
    );
    assert_eq!(
        (
            upper.timeline(),
            upper.meta(),
            upper.partition(),
            upper.sequence()
        ),
        (1, 255, 65535, 65535)
    );
    assert_failed_with(
        "sno --format",
        &run(&["bounds", "--layout", "sno", "--format", "hex", "now"]),
        "",
        "snowmint: --format hex does not apply to --layout sno: sno ids have one text form\n",
    );
}

#[test]
fn convert_with_a_layout_checks_each_id_fits_it() {
    // 2^63 fits no twitter ID (its top bit is unused); without --layout it converts.
    let top = "9223372036854775808";
    assert_eq!(
        stdout_of(&run(&["convert", "--to", "hex", top])),
        "8000000000000000\n"
    );
    let output = run(&["convert", "--to", "hex", "--layout", "twitter", top]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("snowmint: argument 1: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(stderr.contains("twitter"), "{stderr}");
    assert_failed_with(
        "convert sno",
        &run(&["convert", "--to", "hex", "--layout", "sno", "1"]),
        "",
        "snowmint: --to hex does not apply to --layout sno: sno ids have one text form\n",
    );
}

#[test]
fn a_node_field_may_not_take_a_json_key_as_its_name() {
    let output = run(&[
        "inspect",
        "--layout",
        "time:41,id:10,sequence:12",
        "--epoch-ms",
        "0",
        "1",
    ]);
    assert_failed_with(
        "node named id",
        &output,
        "",
        "snowmint: layout custom: a node field may not be named id, a key of inspect --json \
         (id, decimal, layout, unix_ms, time, timeline, sequence)\n",
    );
}
