//! The `snowmint` command line's 128-bit layouts, run as a process: `--layout uuidv7` and
//! `--layout ulid` in `mint`, `inspect`, `convert` and `bounds`.

use std::process::Output;

use snowmint::id128::{Ulid, Uuid7};

mod common;

use common::cli::{json_lines, run, run_with_stdin, stdout_of};
use common::clocks::wall_ms;

/// RFC 9562's UUIDv7 example, and its millisecond.
const UUID7: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
const UUID7_MS: u64 = 1_645_557_742_000;
/// The ULID specification's example, and its millisecond.
const ULID: &str = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
const ULID_MS: u64 = 1_469_922_850_259;

/// Fails with `status`, nothing on stdout, and one stderr line containing each of `needles`.
fn assert_fails(args: &[&str], output: &Output, status: i32, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("snowmint: "), "{args:?}: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: {stderr:?} lacks {needle:?}"
        );
    }
}

#[test]
fn mint_prints_increasing_ids_that_parse_back() {
    let before = wall_ms();
    let uuids: Vec<Uuid7> = stdout_of(&run(&["mint", "--layout", "uuidv7", "--count", "5000"]))
        .lines()
        .map(|line| {
            assert_eq!(line, line.to_lowercase());
            line.parse().unwrap()
        })
        .collect();
    let ulids: Vec<Ulid> = stdout_of(&run(&["mint", "--layout", "ulid", "--count", "5000"]))
        .lines()
        .map(|line| {
            assert_eq!(line.len(), 26);
            line.parse().unwrap()
        })
        .collect();
    let after = wall_ms();
    assert_eq!((uuids.len(), ulids.len()), (5000, 5000));
    assert!(uuids.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(ulids.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(
        uuids
            .iter()
            .all(|id| (before..=after).contains(&id.unix_ms()))
    );
    assert!(
        ulids
            .iter()
            .all(|id| (before..=after).contains(&id.unix_ms()))
    );
}

#[test]
fn mint_writes_the_128_bit_integer_in_decimal_or_hex() {
    let decimal = stdout_of(&run(&[
        "mint", "--layout", "uuidv7", "--count", "3", "--format", "decimal",
    ]))
    .to_owned();
    for line in decimal.lines() {
        Uuid7::from_u128(line.parse().unwrap()).unwrap();
    }
    let hex = stdout_of(&run(&[
        "mint", "--layout", "ulid", "--count", "3", "--format", "hex",
    ]))
    .to_owned();
    for line in hex.lines() {
        assert_eq!(line.len(), 32, "{line}");
        Ulid::from_u128(u128::from_str_radix(line, 16).unwrap());
    }
}

#[test]
fn inspect_decodes_the_specifications_examples() {
    let out = stdout_of(&run(&["inspect", "--layout", "uuidv7", UUID7])).to_owned();
    assert_eq!(
        out,
        format!(
            "{UUID7} (uuidv7 2022-02-22T19:22:22.000Z version=7 variant=0b10 \
             random=330d8c4dc0c0c07398f)\n"
        )
    );
    let json = json_lines(stdout_of(&run(&[
        "inspect", "--layout", "uuidv7", "--json", UUID7,
    ])));
    assert_eq!(json[0]["unix_ms"], UUID7_MS);
    assert_eq!(json[0]["time"], "2022-02-22T19:22:22.000Z");
    assert_eq!(json[0]["version"], 7);
    let random = json[0]["random"].as_str().unwrap();
    let library: Uuid7 = UUID7.parse().unwrap();
    assert_eq!(u128::from_str_radix(random, 16).unwrap(), library.random());

    let json = json_lines(stdout_of(&run(&[
        "inspect", "--layout", "ulid", "--json", ULID,
    ])));
    assert_eq!(json[0]["id"], ULID);
    assert_eq!(json[0]["unix_ms"], ULID_MS);
    assert_eq!(json[0]["time"], "2016-07-30T23:54:10.259Z");
    assert!(json[0].get("version").is_none());
    let library: Ulid = ULID.parse().unwrap();
    let random = json[0]["random"].as_str().unwrap();
    assert_eq!(u128::from_str_radix(random, 16).unwrap(), library.random());
}

#[test]
fn inspect_json_round_trips_minted_ids() {
    for layout in ["uuidv7", "ulid"] {
        let minted = stdout_of(&run(&["mint", "--layout", layout, "--count", "4"])).to_owned();
        let out = run_with_stdin(&["inspect", "--layout", layout, "--json"], &minted);
        let ids: Vec<String> = json_lines(stdout_of(&out))
            .iter()
            .map(|object| object["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids, minted.lines().collect::<Vec<_>>(), "{layout}");
    }
    // Read as an integer, the ID's own text beside it.
    let decimal = Uuid7::parse(UUID7).unwrap().to_u128().to_string();
    let args = [
        "inspect", "--layout", "uuidv7", "--from", "decimal", "--json", &decimal,
    ];
    let json = json_lines(stdout_of(&run(&args)));
    assert_eq!(
        (&json[0]["id"], &json[0]["text"]),
        (&decimal.into(), &UUID7.into())
    );
}

#[test]
fn bounds_of_a_day_hold_exactly_its_ids() {
    let day_ms = 1_704_067_200_000; // 2024-01-01
    let next_ms = day_ms + 86_400_000;
    let out = stdout_of(&run(&["bounds", "--layout", "uuidv7", "2024-01-01"])).to_owned();
    let lines: Vec<&str> = out.lines().collect();
    let lower = Uuid7::min_at(day_ms).unwrap();
    let upper = Uuid7::max_at(next_ms - 1).unwrap();
    assert_eq!(lines[0], format!("lower {lower}"));
    assert_eq!(lines[1], format!("upper {upper}"));
    // The day's last ID before the next day's first.
    assert!(Uuid7::max_at(day_ms - 1).unwrap() < lower);
    assert!(upper < Uuid7::min_at(next_ms).unwrap());

    let args = ["bounds", "--layout", "ulid", "--json", "2024-01-01"];
    let json = json_lines(stdout_of(&run(&args)));
    let lower = Ulid::min_at(day_ms).unwrap();
    let upper = Ulid::max_at(next_ms - 1).unwrap();
    assert_eq!(json[0]["lower"], lower.to_string());
    assert_eq!(json[0]["upper"], upper.to_string());
    assert!(Ulid::max_at(day_ms - 1).unwrap() < lower);
    assert!(upper < Ulid::min_at(next_ms).unwrap());
    assert_eq!(json[0]["layout"], "ulid");
}

#[test]
fn convert_between_the_text_forms_and_the_integer() {
    let library: Uuid7 = UUID7.parse().unwrap();
    let convert = |layout: &str, from: &str, to: &str, id: &str| {
        let args = [
            "convert", "--layout", layout, "--from", from, "--to", to, id,
        ];
        stdout_of(&run(&args)).trim_end().to_owned()
    };
    let decimal = convert("uuidv7", "uuid", "decimal", UUID7);
    assert_eq!(decimal, library.to_u128().to_string());
    let hex = convert("uuidv7", "decimal", "hex", &decimal);
    assert_eq!(hex, "017f22e279b07cc398c4dc0c0c07398f");
    assert_eq!(convert("uuidv7", "hex", "uuid", &hex), UUID7);

    let ulid: Ulid = ULID.parse().unwrap();
    let uuid = convert("ulid", "ulid", "uuid", ULID);
    assert_eq!(uuid.replace('-', ""), format!("{:032x}", ulid.to_u128()));
    assert_eq!(convert("ulid", "uuid", "ulid", &uuid), ULID);
    assert_eq!(
        convert("ulid", "ulid", "decimal", ULID),
        ulid.to_u128().to_string()
    );
}

/// Regression: `convert --layout uuidv7|ulid` read decimal unless `--from` said otherwise, and
/// its error did not mention `--from`. It reads the layout's own text by default.
#[test]
fn convert_reads_the_layouts_own_text_by_default() {
    let uuid: Uuid7 = UUID7.parse().unwrap();
    let ulid: Ulid = ULID.parse().unwrap();
    let cases = [
        ("uuidv7", UUID7, "decimal", uuid.to_u128().to_string()),
        ("ulid", ULID, "decimal", ulid.to_u128().to_string()),
        (
            "ulid",
            ULID,
            "uuid",
            Ulid::from_u128(ulid.to_u128()).to_uuid_string(),
        ),
    ];
    for (layout, id, to, expected) in cases {
        let args = ["convert", "--layout", layout, "--to", to, id];
        assert_eq!(stdout_of(&run(&args)), format!("{expected}\n"), "{args:?}");
    }
    // Minted IDs pipe straight in.
    for layout in ["uuidv7", "ulid"] {
        let minted = stdout_of(&run(&["mint", "--layout", layout, "--count", "3"])).to_owned();
        let args = ["convert", "--layout", layout, "--to", "hex"];
        let hex = stdout_of(&run_with_stdin(&args, &minted)).to_owned();
        assert_eq!(hex.lines().count(), 3, "{layout}: {hex}");
        let back = [
            "convert",
            "--layout",
            layout,
            "--from",
            "hex",
            "--to",
            layout_text(layout),
        ];
        assert_eq!(stdout_of(&run_with_stdin(&back, &hex)), minted, "{layout}");
    }
    // Without --layout, convert reads decimal.
    assert_eq!(
        stdout_of(&run(&["convert", "--to", "hex", "255"])),
        "00000000000000ff\n"
    );
}

/// The `--from`/`--to` name of `layout`'s own text.
fn layout_text(layout: &str) -> &'static str {
    match layout {
        "uuidv7" => "uuid",
        _ => "ulid",
    }
}

#[test]
fn options_without_meaning_for_128_bit_ids_are_usage_errors() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["mint", "--layout", "uuidv7", "--machine", "3"],
            &["--machine", "uuidv7"],
        ),
        (
            &["mint", "--layout", "ulid", "--node", "host=1"],
            &["--node", "ulid"],
        ),
        (
            &["mint", "--layout", "ulid", "--partition", "1"],
            &["--partition", "ulid"],
        ),
        (
            &["mint", "--layout", "uuidv7", "--meta", "1"],
            &["--meta", "uuidv7"],
        ),
        (
            &["mint", "--layout", "uuidv7", "--snapshot", "s.json"],
            &["--snapshot", "uuidv7"],
        ),
        (
            &[
                "mint",
                "--layout",
                "ulid",
                "--etcd",
                "http://127.0.0.1:1",
                "--prefix",
                "/p/",
            ],
            &["--etcd", "ulid"],
        ),
        (
            &[
                "mint",
                "--layout",
                "uuidv7",
                "--on-clock-behind",
                "tick-tock",
            ],
            &["tick-tock", "uuidv7"],
        ),
        (
            &["mint", "--layout", "ulid", "--format", "base62"],
            &["--format base62", "ulid"],
        ),
        (
            &["bounds", "--layout", "ulid", "--epoch-ms", "5", "now"],
            &["--epoch-ms", "ulid"],
        ),
        (
            &["convert", "--layout", "uuidv7", "--to", "base36", "1"],
            &["--to base36", "uuidv7", "uuid, ulid, decimal and hex"],
        ),
        (
            &["convert", "--to", "uuid", "1"],
            &["--to uuid", "--layout uuidv7 or ulid"],
        ),
    ];
    for (args, needles) in cases {
        assert_fails(args, &run(args), 2, needles);
    }
}

#[test]
fn bad_id_text_gets_the_librarys_parse_message() {
    let args = [
        "inspect",
        "--layout",
        "uuidv7",
        "017f22e2-79b0-4cc3-98c4-dc0c0c07398f",
    ];
    let message = Uuid7::parse(args[3]).unwrap_err().to_string();
    assert_fails(&args, &run(&args), 2, &["argument 1: ", &message]);
    let args = ["inspect", "--layout", "ulid"];
    let message = Ulid::parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
        .unwrap_err()
        .to_string();
    let out = run_with_stdin(&args, "8ZZZZZZZZZZZZZZZZZZZZZZZZZ\n");
    assert_fails(&args, &out, 1, &["line 1: ", &message]);
    let long = "x".repeat(500);
    let args = [
        "convert", "--layout", "ulid", "--from", "decimal", "--to", "ulid", &long,
    ];
    let out = run(&args);
    assert_fails(&args, &out, 2, &["not a decimal 128-bit id"]);
    assert!(
        out.stderr.len() < 200,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_lists_the_128_bit_layouts() {
    for command in ["mint", "inspect", "bounds"] {
        let help = stdout_of(&run(&[command, "--help"])).to_owned();
        assert!(help.contains("sno, uuidv7, ulid"), "{command}: {help}");
    }
    let help = stdout_of(&run(&["convert", "--help"])).to_owned();
    assert!(help.contains("uuid, ulid, decimal or hex"), "{help}");
}
