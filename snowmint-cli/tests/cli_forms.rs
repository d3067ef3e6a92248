//! The `snowmint` command line's text forms, sno IDs and paging bounds, run as a process:
//! `mint --format`, `inspect --format`, `inspect --layout sno`, `convert` and `bounds`.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::thread;

use snowmint::{Id, Layout, encoding::Encoding, sno::SnoId};

mod common;

use common::cli::{BIN, json_lines, run, run_with_stdin, stdout_of};
use common::clocks::wall_ms;
use common::layouts::TT;

/// Fails with status 2 (a usage error), nothing on stdout, and exactly one stderr line, `snowmint: ...`,
/// containing each of `needles`.
fn assert_one_line_error(args: &[&str], output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: stderr: {stderr}");
    assert!(
        output.stdout.is_empty(),
        "{args:?} printed {:?}",
        String::from_utf8_lossy(&output.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: stderr: {stderr}");
    assert!(stderr.ends_with('\n'), "{args:?}: {stderr:?}");
    assert!(lines[0].starts_with("snowmint: "), "{args:?}: {stderr}");
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "{args:?}: {stderr:?} does not say {needle:?}"
        );
    }
}

/// Runs `stages` as one shell-style pipeline, `stdin` written to the first stage and each
/// stage's stdout the next one's stdin; every stage must succeed with an empty stderr. Returns
/// the last stage's stdout.
fn pipeline(stages: &[&[&str]], stdin: &str) -> String {
    let mut children = Vec::new();
    let mut input = Stdio::piped();
    for (i, args) in stages.iter().enumerate() {
        let mut child = Command::new(BIN)
            .args(*args)
            .stdin(input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snowmint");
        input = Stdio::null();
        if i + 1 < stages.len() {
            input = Stdio::from(child.stdout.take().unwrap());
        }
        children.push(child);
    }
    let mut first_input = children[0].stdin.take().unwrap();
    let stdin = stdin.to_owned();
    let writer = thread::spawn(move || first_input.write_all(stdin.as_bytes()));
    let mut last = String::new();
    for (i, child) in children.into_iter().enumerate().rev() {
        let output = child.wait_with_output().expect("wait for snowmint");
        let stdout = stdout_of(&output);
        if i + 1 == stages.len() {
            last = stdout.to_owned();
        }
    }
    writer.join().unwrap().expect("write stdin");
    last
}

/// `unix_ms` as RFC 3339 in UTC with milliseconds (Howard Hinnant's `civil_from_days`), written
/// here so the test's times do not come from the crate under test.
fn rfc3339(unix_ms: u64) -> String {
    let (days, ms_of_day) = ((unix_ms / 86_400_000) as i64, unix_ms % 86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, ms) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

#[test]
fn the_tests_rfc3339_writes_known_instants() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    assert_eq!(rfc3339(1_288_834_974_657), "2010-11-04T01:42:54.657Z");
    assert_eq!(rfc3339(1_709_251_199_999), "2024-02-29T23:59:59.999Z");
}

// ---------------------------------------------------------------------------------------------
// mint --format, convert, inspect --format

/// The layouts `mint --format` is run with: flags, and the layout they give.
fn mint_layouts() -> [(&'static [&'static str], Layout); 3] {
    [
        (&["--layout", "twitter"], Layout::TWITTER),
        (&["--layout", "sonyflake"], Layout::SONYFLAKE),
        // 53-bit IDs: the fixed-width forms are mostly padding.
        (&["--layout", "snowflake-si"], Layout::SNOWFLAKE_SI),
    ]
}

#[test]
fn mint_format_prints_each_form_at_its_width_decoding_to_increasing_current_ids() {
    for encoding in Encoding::ALL {
        for (flags, layout) in mint_layouts() {
            let mut args = vec!["mint", "--format", encoding.name(), "--count", "600"];
            args.extend_from_slice(flags);
            let before = wall_ms();
            let output = run(&args);
            let after = wall_ms();
            let lines: Vec<&str> = stdout_of(&output).lines().collect();
            assert_eq!(lines.len(), 600, "{args:?}");
            let mut ids = Vec::new();
            for line in lines {
                let id = encoding
                    .decode(line)
                    .unwrap_or_else(|e| panic!("{args:?}: {line:?}: {e}"));
                // The canonical spelling: the library's own encoding of the ID, so the form's
                // width, padding and case.
                assert_eq!(line, encoding.encode(id).as_str(), "{args:?}");
                match encoding.fixed_width() {
                    Some(width) => assert_eq!(line.len(), width, "{args:?}: {line:?}"),
                    None => assert!(
                        line.len() <= encoding.max_len() && !line.starts_with('0'),
                        "{args:?}: {line:?} is not unpadded within {} characters",
                        encoding.max_len()
                    ),
                }
                let parts = layout
                    .decode(id)
                    .unwrap_or_else(|e| panic!("{args:?}: {line:?}: {e}"));
                assert!(
                    parts.unix_ms() + 60_000 >= before && parts.unix_ms() <= after + 60_000,
                    "{args:?}: {line:?} carries {} ms, not within a minute of the run",
                    parts.unix_ms()
                );
                ids.push(id);
            }
            assert!(
                ids.windows(2).all(|pair| pair[0] < pair[1]),
                "{args:?}: ids are not strictly increasing"
            );
        }
    }
}

#[test]
fn mint_format_defaults_to_decimal() {
    let output = run(&["mint", "--count", "3"]);
    for line in stdout_of(&output).lines() {
        assert!(line.bytes().all(|b| b.is_ascii_digit()), "{line:?}");
        Layout::TWITTER.parse(line).unwrap();
    }
}

#[test]
fn mint_base62_through_convert_to_hex_then_decimal_gives_the_same_ids() {
    let minted = run(&["mint", "--format", "base62", "--count", "5000"]);
    let base62 = stdout_of(&minted);
    let direct: Vec<Id> = base62
        .lines()
        .map(|line| Encoding::Base62.decode(line).unwrap())
        .collect();
    assert_eq!(direct.len(), 5000);

    // mint | convert | convert, the same three processes a shell would run.
    let decimal = pipeline(
        &[
            &["mint", "--format", "base62", "--count", "5000"],
            &["convert", "--from", "base62", "--to", "hex"],
            &["convert", "--from", "hex", "--to", "decimal"],
        ],
        "",
    );
    let piped: Vec<Id> = decimal.lines().map(|line| line.parse().unwrap()).collect();
    assert_eq!(piped.len(), 5000);
    assert!(piped.windows(2).all(|pair| pair[0] < pair[1]));
    for &id in &piped {
        Layout::TWITTER.decode(id).unwrap();
    }

    // The first run's text through the two converts: its IDs, as decoding gave them.
    let convert: [&[&str]; 2] = [
        &["convert", "--from", "base62", "--to", "hex"],
        &["convert", "--from", "hex", "--to", "decimal"],
    ];
    let expected_decimal: String = direct.iter().map(|id| format!("{id}\n")).collect();
    assert_eq!(pipeline(&convert, base62), expected_decimal);
    // And the hex between them is the library's.
    let hex = run_with_stdin(convert[0], base62);
    let expected_hex: String = direct
        .iter()
        .map(|&id| format!("{}\n", Encoding::Hex.encode(id)))
        .collect();
    assert_eq!(stdout_of(&hex), expected_hex);
}

#[test]
fn convert_takes_ids_as_arguments_between_every_pair_of_forms() {
    let id = Id::from_u64(1_541_815_603_606_036_480);
    for from in Encoding::ALL {
        let text = from.encode(id).to_string();
        for to in Encoding::ALL {
            let output = run(&["convert", "--from", from.name(), "--to", to.name(), &text]);
            assert_eq!(
                stdout_of(&output),
                format!("{}\n", to.encode(id)),
                "{from} -> {to}"
            );
        }
    }
}

/// The encyclopedia's example tweet, and its Crockford base32 text.
const TWEET: &str = "1541815603606036480";
const TWEET_BASE32: &str = "1ASD13XH1F800";

#[test]
fn inspect_from_base32_echoes_base32_and_decodes_as_the_decimal_does() {
    assert_eq!(
        Encoding::Base32.encode(TWEET.parse().unwrap()).as_str(),
        TWEET_BASE32
    );
    // The decimal's line with the ID in base32, and its JSON with "id" in base32 and "decimal"
    // after it.
    let decimal = run(&["inspect", "--layout", "twitter", TWEET]);
    let parts = stdout_of(&decimal)
        .strip_prefix(TWEET)
        .expect("the decimal's line starts with it");
    let text = format!("{TWEET_BASE32}{parts}");
    let decimal_json = run(&["inspect", "--layout", "twitter", "--json", TWEET]);
    let decimal_json = stdout_of(&decimal_json);
    let rest = decimal_json
        .strip_prefix(&format!("{{\"id\":\"{TWEET}\","))
        .expect("the decimal's JSON starts with its id");
    let json = format!("{{\"id\":\"{TWEET_BASE32}\",\"decimal\":\"{TWEET}\",{rest}");
    // Lowercase, and with Crockford's I/L and O spellings of 1 and 0, is the same ID, echoed in
    // the form's own spelling.
    let lowercase = TWEET_BASE32.to_lowercase();
    let aliased = TWEET_BASE32.replace('1', "L").replace('0', "O");
    for (flags, expected) in [(&[][..], &text), (&["--json"], &json)] {
        for id in [TWEET_BASE32, &lowercase, &aliased] {
            let mut args = vec!["inspect", "--from", "base32"];
            args.extend_from_slice(flags);
            args.push(id);
            assert_eq!(stdout_of(&run(&args)), *expected, "{args:?}");
        }
        // From stdin too.
        let mut args = vec!["inspect", "--from", "base32"];
        args.extend_from_slice(flags);
        let output = run_with_stdin(&args, &format!("{lowercase}\n"));
        assert_eq!(stdout_of(&output), *expected, "{args:?} <stdin>");
    }
}

#[test]
fn inspect_from_reads_only_its_form() {
    // The decimal ID is 19 characters: not a base32 ID, and the error says so.
    let args = ["inspect", "--from", "base32", TWEET];
    assert_one_line_error(
        &args,
        &run(&args),
        &[TWEET, "base32", "expected exactly 13"],
    );
    let args = ["inspect", "--from", "base36", "!"];
    assert_one_line_error(&args, &run(&args), &["base36", "'!'"]);
}

/// Regression: `inspect` took the input form as `--format` and `convert` as `--from`. Both
/// take `--from`; `inspect --format` is still accepted for it, and `--help` lists `--from`.
#[test]
fn inspect_and_convert_name_the_input_form_from() {
    let base62 = "1ptWyK4WgZU";
    let expected = stdout_of(&run(&["inspect", TWEET])).to_owned();
    assert!(expected.contains("twitter"), "{expected}");
    let via_from = stdout_of(&run(&["inspect", "--from", "base62", base62])).to_owned();
    let via_format = stdout_of(&run(&["inspect", "--format", "base62", base62])).to_owned();
    assert_eq!(via_from, via_format);
    assert_eq!(via_from.replacen(base62, TWEET, 1), expected);
    assert_eq!(
        stdout_of(&run(&[
            "convert", "--from", "base62", "--to", "decimal", base62
        ])),
        format!("{TWEET}\n")
    );
    for command in ["inspect", "convert"] {
        let help = stdout_of(&run(&[command, "--help"])).to_owned();
        assert!(help.contains("--from <FORM>"), "{command}: {help}");
        assert!(!help.contains("--format <FORM>"), "{command}: {help}");
    }
}

// ---------------------------------------------------------------------------------------------
// inspect --layout sno

const SNO_ZERO: &str = "2222222222222222";
const SNO_MAX: &str = "xxxxxxxxxxxxxxxx";

#[test]
fn inspect_sno_prints_the_documents_known_answers() {
    let output = run(&["inspect", "--layout", "sno", SNO_ZERO, SNO_MAX]);
    assert_eq!(
        stdout_of(&output),
        "2222222222222222 (sno 2010-01-01T00:00:00.000Z timeline=0 meta=0 partition=0 sequence=0)\n\
         xxxxxxxxxxxxxxxx (sno 2079-09-07T15:47:35.548Z timeline=1 meta=255 partition=65535 \
         sequence=65535)\n"
    );
}

#[test]
fn inspect_sno_json_has_every_key_for_the_documents_known_answers() {
    let output = run(&["inspect", "--layout", "sno", "--json", SNO_ZERO, SNO_MAX]);
    let stdout = stdout_of(&output);
    // The keys in order, and nothing else.
    assert_eq!(
        stdout,
        "{\"id\":\"2222222222222222\",\"layout\":\"sno\",\"unix_ms\":1262304000000,\
         \"time\":\"2010-01-01T00:00:00.000Z\",\"timeline\":0,\"meta\":0,\"partition\":0,\
         \"sequence\":0}\n\
         {\"id\":\"xxxxxxxxxxxxxxxx\",\"layout\":\"sno\",\"unix_ms\":3461327255548,\
         \"time\":\"2079-09-07T15:47:35.548Z\",\"timeline\":1,\"meta\":255,\"partition\":65535,\
         \"sequence\":65535}\n"
    );
    let objects = json_lines(stdout);
    let keys = [
        "id",
        "layout",
        "unix_ms",
        "time",
        "timeline",
        "meta",
        "partition",
        "sequence",
    ];
    for object in &objects {
        let object = object.as_object().unwrap();
        assert_eq!(object.len(), keys.len(), "{object:?}");
        for key in keys {
            assert!(object.contains_key(key), "{key} missing from {object:?}");
        }
    }
    let zero = &objects[0];
    assert_eq!(zero["id"], SNO_ZERO);
    assert_eq!(zero["layout"], "sno");
    assert_eq!(zero["unix_ms"], SnoId::EPOCH_MS);
    assert_eq!(zero["time"], "2010-01-01T00:00:00.000Z");
    for key in ["timeline", "meta", "partition", "sequence"] {
        assert_eq!(zero[key], 0, "{key}");
    }
    let max = &objects[1];
    assert_eq!(max["id"], SNO_MAX);
    assert_eq!(max["layout"], "sno");
    assert_eq!(max["unix_ms"], SnoId::MAX_UNIX_MS);
    assert_eq!(max["time"], "2079-09-07T15:47:35.548Z");
    assert_eq!(max["timeline"], 1);
    assert_eq!(max["meta"], u8::MAX);
    assert_eq!(max["partition"], u16::MAX);
    assert_eq!(max["sequence"], u16::MAX);
}

#[test]
fn inspect_sno_reads_stdin_and_agrees_with_the_library() {
    let id = SnoId::compose(1_714_521_600_004, 1, 7, 300, 65_000).unwrap();
    let text = id.to_string();
    let output = run_with_stdin(
        &["inspect", "--layout", "sno", "--json"],
        &format!("{text}\n"),
    );
    let objects = json_lines(stdout_of(&output));
    assert_eq!(objects.len(), 1);
    let object = &objects[0];
    assert_eq!(object["id"], text.as_str());
    assert_eq!(object["unix_ms"], 1_714_521_600_004u64);
    assert_eq!(object["time"], "2024-05-01T00:00:00.004Z");
    assert_eq!(
        (
            &object["timeline"],
            &object["meta"],
            &object["partition"],
            &object["sequence"]
        ),
        (
            &serde_json::json!(1),
            &serde_json::json!(7),
            &serde_json::json!(300),
            &serde_json::json!(65_000)
        )
    );
}

#[test]
fn inspect_sno_refuses_from_and_epoch_ms_and_bad_text_with_one_line() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["inspect", "--layout", "sno", "--from", "hex", SNO_ZERO],
            &["--from hex", "--layout sno"],
        ),
        // Even the default form, given explicitly.
        (
            &["inspect", "--layout", "sno", "--from", "decimal", SNO_ZERO],
            &["--from decimal", "--layout sno"],
        ),
        (
            &["inspect", "--layout", "sno", "--epoch-ms", "5", SNO_ZERO],
            &["--epoch-ms 5", "fixed epoch 1262304000000"],
        ),
        (
            &["inspect", "--layout", "sno", "222222222222222y"],
            &["\"222222222222222y\"", "'y' at position 15"],
        ),
        (
            &["inspect", "--layout", "sno", "222"],
            &["\"222\"", "3 characters, expected exactly 16"],
        ),
        (
            &["inspect", "--layout", "sno", "XXXXXXXXXXXXXXXX"],
            &["\"XXXXXXXXXXXXXXXX\"", "'X' at position 0"],
        ),
        (
            &["inspect", "--layout", "sno", "--json", TWEET],
            &[TWEET, "19 characters, expected exactly 16"],
        ),
    ];
    for &(args, needles) in cases {
        assert_one_line_error(args, &run(args), needles);
    }
}

// ---------------------------------------------------------------------------------------------
// bounds

/// A layout for `bounds`: its flags and the layout they give.
struct BoundsLayout {
    flags: &'static [&'static str],
    layout: Layout,
}

fn bounds_layouts() -> Vec<BoundsLayout> {
    vec![
        BoundsLayout {
            flags: &["--layout", "twitter"],
            layout: Layout::TWITTER,
        },
        BoundsLayout {
            flags: &["--layout", "discord"],
            layout: Layout::DISCORD,
        },
        BoundsLayout {
            flags: &["--layout", "sonyflake"],
            layout: Layout::SONYFLAKE,
        },
        BoundsLayout {
            flags: &["--layout", "snowflake-si"],
            layout: Layout::SNOWFLAKE_SI,
        },
        BoundsLayout {
            flags: &["--layout", "snowflake-si", "--epoch-ms", "1700000000000"],
            layout: Layout::SNOWFLAKE_SI
                .with_epoch_ms(1_700_000_000_000)
                .unwrap(),
        },
    ]
}

/// `bounds FLAGS... TIME`'s bounds, read as `format`.
fn bounds_of(flags: &[&str], format: Encoding, time: &str) -> (Id, Id) {
    let (lower, upper, _) = bounds_with_tick(flags, format, time);
    (lower, upper)
}

/// `tick START..END (N ms)`, the line `bounds` ends with.
fn tick_line(start_ms: u64, tick_ms: u64) -> String {
    format!(
        "tick {}..{} ({tick_ms} ms)",
        rfc3339(start_ms),
        rfc3339(start_ms + tick_ms)
    )
}

/// `bounds FLAGS... TIME`'s three lines: the bounds read as `format`, and the tick line.
fn bounds_with_tick(flags: &[&str], format: Encoding, time: &str) -> (Id, Id, String) {
    let mut args = vec!["bounds"];
    args.extend_from_slice(flags);
    args.push(time);
    let output = run(&args);
    let stdout = stdout_of(&output);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{args:?}: {stdout}");
    assert!(lines[2].starts_with("tick"), "{args:?}: {stdout}");
    assert!(stdout.ends_with('\n'), "{args:?}: {stdout:?}");
    let read = |line: &str, key: &str| {
        let text = line
            .strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(' '))
            .unwrap_or_else(|| panic!("{args:?}: {line:?} is not `{key} <id>`"));
        let id = format
            .decode(text)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(text, format.encode(id).as_str(), "{args:?}");
        id
    };
    (
        read(lines[0], "lower"),
        read(lines[1], "upper"),
        lines[2].to_owned(),
    )
}

/// Times, and their Unix milliseconds worked out apart from snowmint.
const TIMES: &[(&str, u64)] = &[
    ("2022-06-28T16:07:40.105Z", 1_656_432_460_105),
    ("2024-05-01T00:00:00Z", 1_714_521_600_000),
    ("2024-05-01T00:00:00.009Z", 1_714_521_600_009),
    ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
    ("2021-03-14T01:59:26.535Z", 1_615_687_166_535),
];

#[test]
fn bounds_are_the_layouts_min_and_max_id_at_the_time() {
    for BoundsLayout { flags, layout } in bounds_layouts() {
        let mut times = TIMES.to_vec();
        // The epoch itself: lower is 0.
        let epoch = rfc3339(layout.epoch_ms());
        times.push((&epoch, layout.epoch_ms()));
        for &(time, ms) in &times {
            if ms < layout.epoch_ms() {
                continue;
            }
            let (lower, upper, tick) = bounds_with_tick(flags, Encoding::Decimal, time);
            assert_eq!(lower, layout.min_id_at(ms).unwrap(), "{flags:?} {time}");
            assert_eq!(upper, layout.max_id_at(ms).unwrap(), "{flags:?} {time}");
            let tick_ms = layout.tick_ms();
            let start_ms = ms - (ms - layout.epoch_ms()) % tick_ms;
            assert_eq!(tick, tick_line(start_ms, tick_ms), "{flags:?} {time}");
            if ms == layout.epoch_ms() {
                assert_eq!(lower.to_u64(), 0, "{flags:?} {time}");
            }
        }
    }
}

#[test]
fn bounds_of_a_time_inside_a_sonyflake_tick_are_the_whole_tick() {
    let flags = ["--layout", "sonyflake"];
    let start = bounds_with_tick(&flags, Encoding::Decimal, "2024-05-01T00:00:00.000Z");
    assert_eq!(
        start.2,
        "tick 2024-05-01T00:00:00.000Z..2024-05-01T00:00:00.010Z (10 ms)"
    );
    for ms in 1..10 {
        let time = format!("2024-05-01T00:00:00.{ms:03}Z");
        assert_eq!(
            bounds_with_tick(&flags, Encoding::Decimal, &time),
            start,
            "{time}"
        );
    }
    let next = bounds_of(&flags, Encoding::Decimal, "2024-05-01T00:00:00.010Z");
    assert_eq!(start.1.to_u64() + 1, next.0.to_u64());
}

#[test]
fn bounds_of_a_time_with_an_offset_are_those_of_its_utc_equivalent() {
    let cases = [
        ("2024-05-01T14:00:00.250+02:00", "2024-05-01T12:00:00.250Z"),
        ("2024-05-01T02:00:00+02:00", "2024-05-01T00:00:00Z"),
        // Across a day and a year.
        ("2023-12-31T18:30:00-05:30", "2024-01-01T00:00:00Z"),
        ("2024-01-01T14:00:00+14:00", "2024-01-01T00:00:00Z"),
        ("2024-05-01T12:00:00.250-00:00", "2024-05-01T12:00:00.250Z"),
    ];
    // The parser's doing, the same for every layout: two suffice.
    for flags in [&["--layout", "twitter"][..], &["--layout", "sonyflake"]] {
        for (local, utc) in cases {
            for json in [&[][..], &["--json"]] {
                let mut args = vec!["bounds"];
                args.extend_from_slice(flags);
                args.extend_from_slice(json);
                let output = |time| {
                    let mut args = args.clone();
                    args.push(time);
                    stdout_of(&run(&args)).to_owned()
                };
                assert_eq!(output(local), output(utc), "{args:?} {local} vs {utc}");
            }
        }
    }
    let (lower, _) = bounds_of(
        &["--layout", "twitter"],
        Encoding::Decimal,
        "2024-05-01T14:00:00.250+02:00",
    );
    assert_eq!(lower, Layout::TWITTER.min_id_at(1_714_564_800_250).unwrap());
}

#[test]
fn bounds_truncate_a_fraction_to_its_millisecond() {
    let cases = [
        (".5", ".500"),
        (".005", ".005"),
        (".123456789", ".123"),
        (".9999", ".999"),
        (".0009", ".000"),
        (".1", ".100"),
        (".12", ".120"),
    ];
    let flags = ["--layout", "twitter"];
    for (fraction, millis) in cases {
        let given = format!("2024-05-01T12:00:00{fraction}Z");
        let exact = format!("2024-05-01T12:00:00{millis}Z");
        let ms: u64 = 1_714_564_800_000 + millis[1..].parse::<u64>().unwrap();
        let bounds = bounds_of(&flags, Encoding::Decimal, &given);
        assert_eq!(
            bounds,
            bounds_of(&flags, Encoding::Decimal, &exact),
            "{given}"
        );
        assert_eq!(
            bounds,
            (
                Layout::TWITTER.min_id_at(ms).unwrap(),
                Layout::TWITTER.max_id_at(ms).unwrap()
            ),
            "{given}"
        );
        // The JSON names the millisecond.
        let output = run(&["bounds", "--json", &given]);
        let object = &json_lines(stdout_of(&output))[0];
        assert_eq!(object["unix_ms"], ms, "{given}");
    }
}

#[test]
fn bounds_json_and_format_hex_agree_with_the_plain_output() {
    // A time every layout holds, inside a sonyflake tick.
    let (time, ms) = ("2024-05-01T00:00:00.009Z", 1_714_521_600_009u64);
    for BoundsLayout { flags, layout } in bounds_layouts() {
        let plain = bounds_of(flags, Encoding::Decimal, time);
        for encoding in Encoding::ALL {
            let mut format_flags = flags.to_vec();
            format_flags.extend(["--format", encoding.name()]);
            assert_eq!(
                bounds_of(&format_flags, encoding, time),
                plain,
                "{format_flags:?} {time}"
            );
        }
        for encoding in [Encoding::Decimal, Encoding::Hex] {
            let mut args = vec!["bounds"];
            args.extend_from_slice(flags);
            args.extend(["--json", "--format", encoding.name(), time]);
            let output = run(&args);
            let stdout = stdout_of(&output);
            let (lower, upper) = (encoding.encode(plain.0), encoding.encode(plain.1));
            let start_ms = ms - (ms - layout.epoch_ms()) % layout.tick_ms();
            let end_ms = start_ms + layout.tick_ms();
            assert_eq!(
                stdout,
                format!(
                    "{{\"layout\":\"{}\",\"unix_ms\":{ms},\"tick_start_ms\":{start_ms},\
                     \"tick_end_ms\":{end_ms},\"lower\":\"{lower}\",\"upper\":\"{upper}\"}}\n",
                    layout.name()
                ),
                "{args:?}"
            );
            let object = &json_lines(stdout)[0];
            assert_eq!(object.as_object().unwrap().len(), 6, "{args:?}");
        }
    }
}

#[test]
fn bounds_refuse_bad_times_with_one_line_naming_the_problem() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["2023-02-29T00:00:00Z"],
            &["\"2023-02-29T00:00:00Z\"", "day 29", "2023-02", "01..=28"],
        ),
        (&["2100-02-29T00:00:00Z"], &["day 29", "2100-02", "01..=28"]),
        (&["2024-04-31T00:00:00Z"], &["day 31", "2024-04", "01..=30"]),
        (&["2024-05-00T00:00:00Z"], &["day 00"]),
        (
            &["2024-13-01T00:00:00Z"],
            &["\"2024-13-01T00:00:00Z\"", "month 13", "01..=12"],
        ),
        (&["2024-00-01T00:00:00Z"], &["month 00"]),
        (
            &["2024-01-01T24:00:00Z"],
            &["\"2024-01-01T24:00:00Z\"", "24:00", "time of day"],
        ),
        (&["2024-01-01T23:60:00Z"], &["23:60", "time of day"]),
        (
            &["2016-12-31T23:59:60Z"],
            &["\"2016-12-31T23:59:60Z\"", "second 60", "leap second"],
        ),
        (&["2016-12-31T23:59:61Z"], &["second 61", "00..=59"]),
        (
            &["1969-12-31T23:59:59Z"],
            &["\"1969-12-31T23:59:59Z\"", "before 1970"],
        ),
        (
            &["--layout", "mastodon", "1969-12-31T23:59:59.999Z"],
            &["before 1970"],
        ),
        (
            &["--layout", "mastodon", "1970-01-01T00:30:00+01:00"],
            &["before 1970"],
        ),
        (
            &["2000-01-01T00:00:00Z"],
            &["946684800000", "before the epoch", "twitter"],
        ),
        (
            &["--layout", "discord", "2014-12-31T23:59:59.999Z"],
            &["1420070399999", "before the epoch", "discord"],
        ),
        (
            &[
                "--layout",
                "snowflake-si",
                "--epoch-ms",
                "1700000000000",
                "2023-01-01T00:00:00Z",
            ],
            &["before the epoch 1700000000000", "snowflake-si"],
        ),
        (&["garbage"], &["\"garbage\"", "year", "YYYY-MM-DD"]),
        (&[""], &["\"\"", "year"]),
        (&["2024-05-01Z"], &["\"2024-05-01Z\"", "'T'", "position 10"]),
        (&["2024-5-01T00:00:00Z"], &["month", "position 5"]),
        (
            &["2024-05-01T00:00:00"],
            &["\"2024-05-01T00:00:00\"", "Z or an offset", "position 19"],
        ),
        (&["2024-05-01T00:00+02:00"], &["':'", "position 16"]),
        (
            &["2024-05-01T00:00:00.Z"],
            &["no digit after '.'", "position 20"],
        ),
        (&["2024-05-01T00:00:00Z "], &["Z or an offset", "the end"]),
        (&["2024-05-01T00:00:00+0200"], &["Z or an offset"]),
        (
            &["2024-05-01T00:00:00+24:00"],
            &["offset +24:00", "out of range"],
        ),
        (
            &["2024-05-01T00:00:00-00:60"],
            &["offset -00:60", "out of range"],
        ),
        (&["2024-05-01T00:00:00UTC"], &["Z or an offset"]),
        (&["2024-05-01_00:00:00Z"], &["'T'", "position 10"]),
    ];
    for &(flags, needles) in cases {
        let mut args = vec!["bounds"];
        args.extend_from_slice(flags);
        assert_one_line_error(&args, &run(&args), needles);
    }
}

// ---------------------------------------------------------------------------------------------
// Paging: the IDs minted at t are exactly those in [lower(t), lower(t + one tick)).

#[test]
fn ids_minted_at_a_time_lie_in_its_paging_bounds_and_no_others_do() {
    let cases: [(&[&str], Layout, &str); 4] = [
        (&["--layout", "twitter"], Layout::TWITTER, "5000"),
        (
            &["--layout", "discord", "--worker", "31", "--process", "31"],
            Layout::DISCORD,
            "5000",
        ),
        (
            &["--layout", "sonyflake", "--machine", "65535"],
            Layout::SONYFLAKE,
            "1000",
        ),
        (
            &["--layout", "snowflake-si", "--machine", "31"],
            Layout::SNOWFLAKE_SI,
            "1000",
        ),
    ];
    for (flags, layout, count) in cases {
        let layout_flags = &flags[..2];
        let mut args = vec!["mint", "--count", count];
        args.extend_from_slice(flags);
        let minted = run(&args);
        let minted = stdout_of(&minted);
        let ids: Vec<Id> = minted.lines().map(|line| line.parse().unwrap()).collect();

        // Read the IDs' times back with the command line.
        let mut inspect = vec!["inspect", "--json"];
        inspect.extend_from_slice(layout_flags);
        let objects = json_lines(stdout_of(&run_with_stdin(&inspect, minted)));
        assert_eq!(objects.len(), ids.len());
        let mut times: Vec<(u64, String)> = objects
            .iter()
            .map(|o| {
                (
                    o["unix_ms"].as_u64().unwrap(),
                    o["time"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let stamps: Vec<u64> = times.iter().map(|(ms, _)| *ms).collect();
        times.dedup();
        assert!(
            times.len() >= 2,
            "{args:?}: {count} ids fill more than one tick"
        );
        // The first and last ticks and a few between: each run of bounds is a process.
        let picked: BTreeSet<usize> = (0..6).map(|i| i * (times.len() - 1) / 5).collect();

        for (t0, text) in picked.into_iter().map(|i| &times[i]) {
            assert_eq!(&rfc3339(*t0), text, "{args:?}");
            let t1 = rfc3339(t0 + layout.tick_ms());
            let (lower0, upper0) = bounds_of(layout_flags, Encoding::Decimal, text);
            let (lower1, _) = bounds_of(layout_flags, Encoding::Decimal, &t1);
            assert_eq!(upper0.to_u64() + 1, lower1.to_u64(), "{args:?} {text}");
            for (&id, &stamp) in ids.iter().zip(&stamps) {
                assert_eq!(
                    lower0 <= id && id < lower1,
                    stamp == *t0,
                    "{args:?}: id {id} minted at {stamp} ms against [{lower0}, {lower1}) for \
                     {text}..{t1}"
                );
            }
        }
    }
}

#[test]
fn the_tick_tock_bit_is_named_timeline_in_text_json_and_sno_output_alike() {
    let layout = "unused:1,time:41,tick-tock,machine:9,sequence:12";
    let parsed = TT;
    let id = parsed
        .compose_on_timeline(1_714_521_600_000, 1, &[("machine", 5)], 0)
        .unwrap()
        .to_string();
    let sno = SnoId::compose(1_714_521_600_004, 1, 0, 0, 0)
        .unwrap()
        .to_string();
    let flags = ["--layout", layout, "--epoch-ms", "1288834974657"];
    let text = stdout_of(&run(&[&["inspect"], &flags[..], &[&id]].concat())).to_owned();
    let json = stdout_of(&run(&[&["inspect", "--json"], &flags[..], &[&id]].concat())).to_owned();
    let sno_text = stdout_of(&run(&["inspect", "--layout", "sno", &sno])).to_owned();
    let sno_json = stdout_of(&run(&["inspect", "--layout", "sno", "--json", &sno])).to_owned();
    assert!(text.contains(" timeline=1 "), "{text}");
    assert!(sno_text.contains(" timeline=1 "), "{sno_text}");
    for json in [&json, &sno_json] {
        assert_eq!(json_lines(json)[0]["timeline"], 1, "{json}");
    }
    for output in [&text, &json, &sno_text, &sno_json] {
        assert!(!output.contains("tick"), "{output}");
    }
}

#[test]
fn bounds_of_a_date_an_hour_or_a_minute_cover_the_whole_utc_span() {
    let day = 1_714_521_600_000; // 2024-05-01T00:00:00Z
    let hour = day + 13 * 3_600_000;
    let minute = hour + 45 * 60_000;
    let cases = [
        ("2024-05-01", day, 86_400_000),
        ("2024-05-01T13", hour, 3_600_000),
        ("2024-05-01t13Z", hour, 3_600_000),
        ("2024-05-01T13:45", minute, 60_000),
        ("2024-05-01 13:45z", minute, 60_000),
    ];
    for (time, start_ms, span_ms) in cases {
        for (flags, layout) in [
            (&["--layout", "twitter"][..], Layout::TWITTER),
            (&["--layout", "sonyflake"], Layout::SONYFLAKE),
        ] {
            let (lower, upper, ticks) = bounds_with_tick(flags, Encoding::Decimal, time);
            assert_eq!(lower, layout.min_id_at(start_ms).unwrap(), "{time}");
            assert_eq!(
                upper,
                layout.max_id_at(start_ms + span_ms - 1).unwrap(),
                "{time}"
            );
            assert_eq!(
                ticks,
                format!(
                    "ticks {}..{} ({} ms each)",
                    rfc3339(start_ms),
                    rfc3339(start_ms + span_ms),
                    layout.tick_ms()
                ),
                "{time}"
            );
        }
    }
}

#[test]
fn bounds_of_a_range_run_from_its_start_to_before_its_end_or_through_it_with_dot_dot_equals() {
    let day = 1_714_521_600_000; // 2024-05-01T00:00:00Z
    let twitter = Layout::TWITTER;
    let cases = [
        ("2024-05-01..2024-05-03", day, day + 2 * 86_400_000 - 1),
        ("2024-05-01..=2024-05-03", day, day + 3 * 86_400_000 - 1),
        (
            "2024-05-01T23..2024-05-02",
            day + 23 * 3_600_000,
            day + 86_400_000 - 1,
        ),
        ("1714521600005..1714521600010", day + 5, day + 9),
        ("1714521600005..=1714521600010", day + 5, day + 10),
        (
            "2024-05-01T00:00:00.250Z..=2024-05-01T01",
            day + 250,
            day + 2 * 3_600_000 - 1,
        ),
        ("2024-05-01..2024-05-01T00:00:00.001Z", day, day),
    ];
    for (time, first_ms, last_ms) in cases {
        let (lower, upper) = bounds_of(&[], Encoding::Decimal, time);
        assert_eq!(lower, twitter.min_id_at(first_ms).unwrap(), "{time}");
        assert_eq!(upper, twitter.max_id_at(last_ms).unwrap(), "{time}");
    }
    // A single instant keeps its one tick.
    let (_, _, tick) = bounds_with_tick(&[], Encoding::Decimal, "2024-05-01T00:00:00.005Z");
    assert_eq!(tick, tick_line(day + 5, 1));
}

#[test]
fn bounds_of_a_span_are_clamped_to_the_layouts_times() {
    // Discord's epoch is 2015-01-01T00:00:00Z.
    let epoch = Layout::DISCORD.epoch_ms();
    let flags = ["--layout", "discord"];
    let (lower, upper) = bounds_of(&flags, Encoding::Decimal, "2014-12-31..=2015-01-01");
    assert_eq!(lower, Layout::DISCORD.min_id_at(epoch).unwrap());
    assert_eq!(
        upper,
        Layout::DISCORD.max_id_at(epoch + 86_400_000 - 1).unwrap()
    );
    // 20 bits of 1 ms ticks from 1970: the layout ends at 00:17:28.575.
    let flags = ["--layout", "time:20,sequence:12", "--epoch-ms", "0"];
    let (lower, upper, ticks) = bounds_with_tick(&flags, Encoding::Decimal, "1970-01-01");
    assert_eq!((lower.to_u64(), upper.to_u64()), (0, u64::from(u32::MAX)));
    assert_eq!(
        ticks,
        "ticks 1970-01-01T00:00:00.000Z..1970-01-01T00:17:28.576Z (1 ms each)"
    );
}

#[test]
fn bounds_refuse_a_span_outside_the_layout_or_an_empty_range_in_one_line() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["bounds", "--layout", "discord", "2010-01-01..2011-01-01"],
            &[
                "2010-01-01..2011-01-01 is outside layout discord",
                "2015-01-01T00:00:00.000Z",
            ],
        ),
        (
            &["bounds", "2024-05-02..2024-05-01"],
            &["\"2024-05-02..2024-05-01\"", "the range is empty"],
        ),
        (
            &["bounds", "2024-05-01..2024-05-01"],
            &["the range is empty"],
        ),
        (
            &["bounds", "2024-05-01..soon"],
            &["the range's end", "position 0"],
        ),
        (
            &["bounds", "2024-05-01T24..=2024-05-02"],
            &["the range's start", "24:00 is not a time of day"],
        ),
    ];
    for &(args, needles) in cases {
        assert_one_line_error(args, &run(args), needles);
    }
    let long = format!("2024-05-01..{}", "9".repeat(1000));
    let args = ["bounds", long.as_str()];
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        output.stderr.len() < 300,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
