//! `snowmint mask` and `snowmint unmask` run as processes: the library's values, the round
//! trip through a pipe, the key from a file or the environment and never an argument, and
//! errors that name what was wrong.

use std::process::{Command, Output};

use snowmint::mask::{MaskKey, MaskWidth, Masker};
use snowmint::{Id, Layout};

mod common;

use common::cli::{BIN, stdout_of};

const KEY: &str = "000102030405060708090a0b0c0d0e0f";

/// `snowmint ARGS` with `SNOWMINT_MASK_KEY` set to `key` (or unset) and `stdin` on its input.
fn run(key: Option<&str>, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut command = Command::new(BIN);
    command.args(args).env_remove("SNOWMINT_MASK_KEY");
    if let Some(key) = key {
        command.env("SNOWMINT_MASK_KEY", key);
    }
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn snowmint");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("wait for snowmint")
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn mask_prints_the_librarys_values_and_unmask_reads_them_back() {
    let tweet = Layout::TWITTER.parse("1541815603606036480").unwrap();
    let key = MaskKey::from_hex(KEY).unwrap();
    for (width, flag) in [
        (MaskWidth::BIGINT, "bigint"),
        (MaskWidth::JS_SAFE, "js"),
        (MaskWidth::U64, "64"),
        (MaskWidth::bits(40).unwrap(), "40"),
    ] {
        let masker = Masker::new(&key, width);
        let ids: Vec<Id> = (0..5u64)
            .map(|i| Id::from_u64((tweet.to_u64() >> (64 - width.get().min(63))) + i))
            .collect();
        let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let masked = run(Some(KEY), &["mask", "--width", flag], &input);
        let expected: String = ids
            .iter()
            .map(|&id| format!("{}\n", masker.mask(id).unwrap()))
            .collect();
        assert_eq!(stdout_of(&masked), expected, "--width {flag}");
        let back = run(Some(KEY), &["unmask", "--width", flag], &expected);
        assert_eq!(stdout_of(&back), input, "--width {flag}");
    }
}

#[test]
fn the_key_comes_from_a_file_or_the_environment_and_the_format_applies_both_ways() {
    let dir = std::env::temp_dir().join(format!("snowmint-cli-mask-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let key_file = key_file.to_str().unwrap();
    let from_env = run(
        Some(KEY),
        &["mask", "--format", "base62", "1bVF6M4a2Gk"],
        "",
    );
    let from_file = run(
        None,
        &[
            "mask",
            "--key-file",
            key_file,
            "--format",
            "base62",
            "1bVF6M4a2Gk",
        ],
        "",
    );
    assert_eq!(stdout_of(&from_env), stdout_of(&from_file));
    assert_eq!(stdout_of(&from_env).trim().len(), 11, "a base62 value");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_missing_key_the_bad_key_and_the_value_outside_the_width() {
    let no_key = run(None, &["mask", "1"], "");
    assert_eq!(no_key.status.code(), Some(2));
    assert!(
        stderr_of(&no_key)
            .contains("no masking key: give --key-file PATH or set SNOWMINT_MASK_KEY"),
        "{}",
        stderr_of(&no_key)
    );
    let short = run(Some("0011"), &["mask", "1"], "");
    assert_eq!(short.status.code(), Some(2));
    assert!(
        stderr_of(&short).contains("SNOWMINT_MASK_KEY: invalid masking key: 4 characters"),
        "{}",
        stderr_of(&short)
    );
    // The key is never echoed.
    assert!(!stderr_of(&short).contains("0011"));
    // A key file that holds no key is a file's failure (status 1), as an unreadable one is.
    let bad_file = std::env::temp_dir().join(format!("snowmint-cli-badkey-{}", std::process::id()));
    std::fs::write(&bad_file, "not a key\n").unwrap();
    let from_file = run(
        None,
        &["mask", "--key-file", bad_file.to_str().unwrap(), "1"],
        "",
    );
    assert_eq!(from_file.status.code(), Some(1));
    assert!(
        stderr_of(&from_file).contains("invalid masking key: 9 characters"),
        "{}",
        stderr_of(&from_file)
    );
    std::fs::remove_file(&bad_file).unwrap();
    let missing = run(
        None,
        &["mask", "--key-file", "/nonexistent/snowmint-key", "1"],
        "",
    );
    assert_eq!(missing.status.code(), Some(1));
    let wide = run(
        Some(KEY),
        &["mask", "--width", "js", "9007199254740992"],
        "",
    );
    assert_eq!(wide.status.code(), Some(2));
    assert!(
        stderr_of(&wide).contains("outside the mask's 53-bit width"),
        "{}",
        stderr_of(&wide)
    );
    let junk = run(Some(KEY), &["unmask", "--keep-going"], "12\nnot-a-value\n");
    assert_eq!(junk.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&junk.stdout).lines().count(), 1);
    assert!(stderr_of(&junk).contains("line 2: invalid decimal id"));
    let width = run(Some(KEY), &["mask", "--width", "31", "1"], "");
    assert_eq!(width.status.code(), Some(2));
}
