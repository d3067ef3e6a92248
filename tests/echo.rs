//! Every error that repeats a name or value the user gave repeats at most 64 characters of it,
//! with an ellipsis marking the cut.

use snowmint::{Error, Generator, Layout};

/// The longest message a bounded echo can produce here: the fixed text plus 64 characters.
const SHORT: usize = 300;

#[test]
fn an_unknown_node_name_is_echoed_at_most_64_characters_with_an_ellipsis() {
    let long = "x".repeat(100_000);
    let built = Generator::builder(Layout::TWITTER).node(&long, 1).build();
    let Err(Error::UnknownNodeField { field, .. }) = &built else {
        panic!("{built:?}")
    };
    assert_eq!(field.chars().count(), 65);
    assert_eq!(*field, format!("{}…", "x".repeat(64)));
    let message = built.unwrap_err().to_string();
    assert!(message.len() < SHORT, "{} bytes", message.len());

    let message = Layout::TWITTER
        .node_bits(&[(&long, 1)])
        .unwrap_err()
        .to_string();
    assert!(message.len() < SHORT, "{} bytes", message.len());
}

#[test]
fn a_cut_name_ends_on_a_character_boundary() {
    let long = "é".repeat(100);
    let err = Layout::TWITTER.node_bits(&[(&long, 1)]).unwrap_err();
    let Error::UnknownNodeField { field, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(field, format!("{}…", "é".repeat(64)));
}

#[test]
fn a_name_of_64_characters_is_echoed_whole() {
    let name = "y".repeat(64);
    let err = Layout::TWITTER.node_bits(&[(&name, 1)]).unwrap_err();
    assert!(matches!(err, Error::UnknownNodeField { field, .. } if field == name));
}

#[test]
fn a_long_mark_file_path_is_echoed_as_its_last_256_characters() {
    let dir = std::env::temp_dir()
        .join(format!("snowmint-echo-{}", std::process::id()))
        .join("d".repeat(200))
        .join("e".repeat(200));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mark");
    std::fs::write(&path, "not a mark\n").unwrap();
    let Err(err) = snowmint::mark::MarkFile::open(&path, std::time::Duration::from_secs(1)) else {
        panic!("a file without a mark was opened")
    };
    std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap()).unwrap();
    let Error::MarkFile { path: shown, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(shown.chars().count(), 256);
    assert!(
        shown.starts_with('…') && shown.ends_with("eee/mark"),
        "{shown}"
    );
    assert!(err.to_string().len() < SHORT + 256 * 3, "{err}");
}
