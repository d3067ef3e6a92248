//! Node IDs from the environment: each case runs this test binary again as a child process
//! with the variables it needs, since changing the environment of a running (multi-threaded)
//! test process is unsound.

use std::process::Command;

use snowmint::{Error, Generator, Layout, node_id::NodeIdSource};

/// Runs the ignored test `name` of this binary in a child with `vars` set; it must pass.
fn run_child(name: &str, vars: &[(&str, &str)]) {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--test-threads=1"])
        .env_remove("HOSTNAME")
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child {name}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn an_environment_variable_gives_the_node_id() {
    run_child("env_child", &[("SNOWMINT_TEST_NODE", "17")]);
}

#[test]
fn a_bad_environment_variable_is_an_error_naming_it() {
    run_child("bad_env_child", &[("SNOWMINT_TEST_NODE", "seventeen")]);
}

#[test]
fn the_host_name_gives_a_statefulset_ordinal() {
    run_child("hostname_child", &[("HOSTNAME", "ids-web-5")]);
}

#[test]
#[ignore = "run by an_environment_variable_gives_the_node_id, with the variable set"]
fn env_child() {
    let source = NodeIdSource::Env("SNOWMINT_TEST_NODE".into());
    let machine = source.resolve(&Layout::TWITTER, "machine").unwrap();
    assert_eq!(machine, 17);
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", machine)
        .build()
        .unwrap();
    assert_eq!(
        generator
            .decode(generator.mint().unwrap())
            .unwrap()
            .node("machine"),
        Some(17)
    );
    // 17 does not fit a 4-bit field: the error says where the value came from.
    let small = Layout::builder("small", 64)
        .time(41)
        .node("host", 4)
        .sequence(19)
        .epoch_ms(0)
        .build()
        .unwrap();
    assert_eq!(
        source.resolve(&small, "host").unwrap_err().to_string(),
        "node id from environment variable SNOWMINT_TEST_NODE: host id 17 is out of range for \
         layout small (0..=15)"
    );
}

#[test]
#[ignore = "run by a_bad_environment_variable_is_an_error_naming_it, with the variable set"]
fn bad_env_child() {
    let err = NodeIdSource::Env("SNOWMINT_TEST_NODE".into())
        .resolve(&Layout::TWITTER, "machine")
        .unwrap_err();
    assert!(matches!(err, Error::NodeIdSource { .. }));
    assert_eq!(
        err.to_string(),
        "node id from environment variable SNOWMINT_TEST_NODE: it holds \"seventeen\"; \
         expected a machine id in 0..=1023"
    );
}

#[test]
#[ignore = "run by the_host_name_gives_a_statefulset_ordinal, with HOSTNAME set"]
fn hostname_child() {
    let source = NodeIdSource::HostOrdinal(None);
    assert_eq!(source.resolve(&Layout::TWITTER, "machine"), Ok(5));
    assert_eq!(source.resolve(&Layout::SONYFLAKE, "machine"), Ok(5));
}
