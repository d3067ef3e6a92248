//! `Id` with serde: a decimal string in JSON by default, a number per field on request, either
//! accepted when reading; the `u64` in binary formats.
#![cfg(feature = "serde")]

use serde::{Deserialize, Serialize};
use snowmint::{Id, Layout};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Message {
    id: Id,
    #[serde(with = "snowmint::serde_id::number")]
    author: Id,
    reply_to: Option<Id>,
}

const TWEET: Id = Id::from_u64(1_541_815_603_606_036_480);

#[test]
fn ids_serialize_as_decimal_strings_and_number_fields_as_numbers() {
    let message = Message {
        id: TWEET,
        author: Id::from_u64(u64::MAX),
        reply_to: Some(Id::from_u64(0)),
    };
    let json = serde_json::to_string(&message).unwrap();
    assert_eq!(
        json,
        r#"{"id":"1541815603606036480","author":18446744073709551615,"reply_to":"0"}"#
    );
    assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
    assert_eq!(
        serde_json::to_string(&TWEET).unwrap(),
        r#""1541815603606036480""#
    );
    assert_eq!(
        serde_json::to_string(&[Id::from_u64(1), Id::from_u64(2)]).unwrap(),
        r#"["1","2"]"#
    );
}

#[test]
fn deserializing_accepts_a_string_or_a_number_in_either_kind_of_field() {
    let expected = Message {
        id: TWEET,
        author: Id::from_u64(42),
        reply_to: None,
    };
    for json in [
        r#"{"id":"1541815603606036480","author":42,"reply_to":null}"#,
        r#"{"id":1541815603606036480,"author":"42","reply_to":null}"#,
        r#"{"id":1541815603606036480,"author":42,"reply_to":null}"#,
        r#"{"id":"1541815603606036480","author":"42","reply_to":null}"#,
    ] {
        assert_eq!(
            serde_json::from_str::<Message>(json).unwrap(),
            expected,
            "{json}"
        );
    }
    for json in ["18446744073709551615", r#""18446744073709551615""#] {
        assert_eq!(serde_json::from_str::<Id>(json).unwrap().to_u64(), u64::MAX);
    }
}

fn error(json: &str) -> String {
    serde_json::from_str::<Id>(json).unwrap_err().to_string()
}

#[test]
fn negative_out_of_range_and_malformed_ids_are_rejected_with_the_reason() {
    assert_eq!(
        error("-1"),
        "id -1 is out of range, expected a decimal string or an integer in \
         0..=18446744073709551615 at line 1 column 2"
    );
    // serde_json reads an integer past u64::MAX as a double.
    assert_eq!(
        error("18446744073709551616"),
        "id 1.8446744073709552e19 is not an integer in 0..=18446744073709551615, expected a \
         decimal string or an integer in that range at line 1 column 20"
    );
    assert!(error("1.5").starts_with("id 1.5 is not an integer in 0..="));
    assert!(error("5.0").starts_with("id 5.0 is not an integer in 0..="));
    assert_eq!(
        error(r#""18446744073709551616""#),
        "invalid decimal id \"18446744073709551616\": larger than the largest id, \
         18446744073709551615 at line 1 column 22"
    );
    assert_eq!(
        error(r#""-1""#),
        "invalid decimal id \"-1\": '-' at position 0 is not a decimal digit at line 1 column 4"
    );
    assert!(error(r#""""#).starts_with("invalid decimal id \"\": empty string"));
    assert!(error("true").starts_with("invalid type: boolean `true`, expected an id"));
    // The number form rejects the same inputs.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct N(#[serde(with = "snowmint::serde_id::number")] Id);
    assert!(serde_json::from_str::<N>("-5").is_err());
    assert!(serde_json::from_str::<N>(r#""0x10""#).is_err());
}

#[test]
fn binary_formats_carry_the_u64() {
    let mut cbor = Vec::new();
    ciborium::into_writer(&TWEET, &mut cbor).unwrap();
    // CBOR: major type 0 (unsigned), 8-byte argument, big-endian.
    let mut expected = vec![0x1b];
    expected.extend_from_slice(&TWEET.to_u64().to_be_bytes());
    assert_eq!(cbor, expected);
    assert_eq!(
        ciborium::from_reader::<Id, _>(cbor.as_slice()).unwrap(),
        TWEET
    );

    let message = Message {
        id: TWEET,
        author: Id::from_u64(u64::MAX),
        reply_to: Some(Id::from_u64(7)),
    };
    let mut cbor = Vec::new();
    ciborium::into_writer(&message, &mut cbor).unwrap();
    assert_eq!(
        ciborium::from_reader::<Message, _>(cbor.as_slice()).unwrap(),
        message
    );
}

#[test]
fn numbers_are_exact_in_javascript_only_for_js_safe_layouts() {
    // A JavaScript reader parses JSON numbers as doubles; model it with f64.
    let as_js_number = |id: Id| {
        let json = serde_json::to_string(&serde_json::json!(id.to_u64())).unwrap();
        serde_json::from_str::<f64>(&json).unwrap()
    };
    let si = Layout::SNOWFLAKE_SI;
    let largest = si
        .compose(si.max_unix_ms(), &[("machine", 31)], 255)
        .unwrap();
    assert_eq!(as_js_number(largest) as u64, largest.to_u64());
    // A twitter ID loses its low bits as a double; as a string it keeps them.
    let next = Id::from_u64(TWEET.to_u64() + 1);
    assert_ne!(as_js_number(next) as u64, next.to_u64());
    let json = serde_json::to_string(&next).unwrap();
    assert_eq!(json, r#""1541815603606036481""#);
}
