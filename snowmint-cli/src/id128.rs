//! `--layout uuidv7` and `--layout ulid`: the library's 128-bit IDs in `mint`, `inspect`,
//! `convert` and `bounds`.
//!
//! Their layout is fixed (48 bits of Unix milliseconds, the rest random, and for a UUIDv7 its
//! version and variant), so the options of the 64-bit layouts that give an ID's parts or keep
//! generators apart (node values, `--etcd`, `--snapshot`, sno's `--partition` and `--meta`,
//! `--on-clock-behind tick-tock`) are refused: each generator draws a random key of its own,
//! which keeps runs apart. `--on-clock-behind wait|error` and `--max-wait-ms` apply as they do
//! for every layout.
//!
//! Text forms: the ID's own text (a hyphenated lowercase UUID; 26 characters of Crockford's
//! base32) by default, or its 128-bit integer, `decimal` or `hex` (32 digits: the 16 bytes,
//! big-endian). `convert` also writes either family's bits in the other's text: `uuid` and
//! `ulid`.

use std::fmt;

use crate::Failure;
use crate::args::{ConvertForm, InspectArgs, MintArgs, Policy};
use crate::inspect::for_each_id;
use crate::layout::bounded;
use crate::mint::mint_ids;
use crate::output::write_json_line;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use snowmint::clock::Rfc3339;
use snowmint::encoding::Encoding;
use snowmint::family::{Family, FamilyGenerator};
use snowmint::id128::{Ulid, Uuid7};

/// What the command line needs of [`Uuid7`] and [`Ulid`].
pub(crate) trait Wide: Family + fmt::Display {
    /// The `--layout` name.
    const LAYOUT: &'static str;
    /// The ID's own text form.
    const TEXT: Form;
    /// Hex digits of the random part: 74 bits for a UUIDv7, 80 for a ULID.
    const RANDOM_DIGITS: usize;
    /// The version and variant a UUIDv7 carries.
    const VERSION_VARIANT: Option<(u8, &'static str)>;
    /// Reads the ID's own text form with the library's parser.
    fn parse(text: &str) -> snowmint::Result<Self>;
    /// The ID with these bits; a UUIDv7's version and variant are checked.
    fn of_bits(bits: u128) -> snowmint::Result<Self>;
    fn bits(self) -> u128;
    fn unix_ms(self) -> u64;
    fn random(self) -> u128;
    fn min_at(unix_ms: u64) -> snowmint::Result<Self>;
    fn max_at(unix_ms: u64) -> snowmint::Result<Self>;
}

impl Wide for Uuid7 {
    const LAYOUT: &'static str = "uuidv7";
    const TEXT: Form = Form::Uuid;
    const RANDOM_DIGITS: usize = 19;
    const VERSION_VARIANT: Option<(u8, &'static str)> = Some((7, "0b10"));
    fn parse(text: &str) -> snowmint::Result<Self> {
        Uuid7::parse(text)
    }
    fn of_bits(bits: u128) -> snowmint::Result<Self> {
        Uuid7::from_u128(bits)
    }
    fn bits(self) -> u128 {
        self.to_u128()
    }
    fn unix_ms(self) -> u64 {
        Uuid7::unix_ms(self)
    }
    fn random(self) -> u128 {
        Uuid7::random(self)
    }
    fn min_at(unix_ms: u64) -> snowmint::Result<Self> {
        Uuid7::min_at(unix_ms)
    }
    fn max_at(unix_ms: u64) -> snowmint::Result<Self> {
        Uuid7::max_at(unix_ms)
    }
}

impl Wide for Ulid {
    const LAYOUT: &'static str = "ulid";
    const TEXT: Form = Form::Ulid;
    const RANDOM_DIGITS: usize = 20;
    const VERSION_VARIANT: Option<(u8, &'static str)> = None;
    fn parse(text: &str) -> snowmint::Result<Self> {
        Ulid::parse(text)
    }
    fn of_bits(bits: u128) -> snowmint::Result<Self> {
        Ok(Ulid::from_u128(bits))
    }
    fn bits(self) -> u128 {
        self.to_u128()
    }
    fn unix_ms(self) -> u64 {
        Ulid::unix_ms(self)
    }
    fn random(self) -> u128 {
        Ulid::random(self)
    }
    fn min_at(unix_ms: u64) -> snowmint::Result<Self> {
        Ulid::min_at(unix_ms)
    }
    fn max_at(unix_ms: u64) -> snowmint::Result<Self> {
        Ulid::max_at(unix_ms)
    }
}

/// A text form of 128 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// A hyphenated lowercase UUID (read: hyphenated or 32 hex digits, either case).
    Uuid,
    /// 26 characters of Crockford's base32.
    Ulid,
    /// The 128-bit integer in decimal.
    Decimal,
    /// The 128-bit integer in 32 hex digits: the 16 bytes, big-endian (read: 1 to 32 digits,
    /// optionally after 0x).
    Hex,
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Form::Uuid => "uuid",
            Form::Ulid => "ulid",
            Form::Decimal => "decimal",
            Form::Hex => "hex",
        })
    }
}

/// The 128-bit forms `mint`, `inspect` and `bounds` take with `--format`, and `convert` with
/// `--from` and `--to`, for the message that refuses another.
const FORMS: &str = "decimal or hex (the 128-bit integer), or no --format for the id's own text";

impl Form {
    /// `--format` for `K`'s IDs: none for their own text, `decimal` or `hex`.
    fn of<K: Wide>(format: Option<Encoding>) -> Result<Form, Failure> {
        match format {
            None => Ok(K::TEXT),
            Some(Encoding::Decimal) => Ok(Form::Decimal),
            Some(Encoding::Hex) => Ok(Form::Hex),
            Some(other) => Err(Failure::Usage(format!(
                "--format {other} does not apply to --layout {}: expected {FORMS}",
                <K as Wide>::LAYOUT
            ))),
        }
    }

    /// `convert`'s `--from` or `--to` (named `flag`) for `K`'s IDs.
    fn of_convert<K: Wide>(flag: &str, form: ConvertForm) -> Result<Form, Failure> {
        match form {
            ConvertForm::Uuid => Ok(Form::Uuid),
            ConvertForm::Ulid => Ok(Form::Ulid),
            ConvertForm::Id(Encoding::Decimal) => Ok(Form::Decimal),
            ConvertForm::Id(Encoding::Hex) => Ok(Form::Hex),
            ConvertForm::Id(other) => Err(Failure::Usage(format!(
                "{flag} {other} does not apply to --layout {}: 128-bit ids convert between uuid, \
                 ulid, decimal and hex",
                <K as Wide>::LAYOUT
            ))),
        }
    }

    /// `id`'s bits in this form.
    fn write<K: Wide>(self, id: K) -> Text<K> {
        Text(self, id)
    }

    /// Reads `K`'s ID in this form; a UUIDv7's version and variant are checked.
    fn read<K: Wide>(self, text: &str) -> Result<K, Failure> {
        let bits = match self {
            form if form == K::TEXT => return Ok(K::parse(text)?),
            Form::Uuid => Ulid::parse_uuid(text)?.to_u128(),
            Form::Ulid => Ulid::parse(text)?.to_u128(),
            Form::Decimal => text
                .parse::<u128>()
                .ok()
                .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "{:?} is not a decimal 128-bit id: expected 1 to 39 digits, at most {}",
                        bounded(text),
                        u128::MAX
                    ))
                })?,
            Form::Hex => {
                let digits = text
                    .strip_prefix("0x")
                    .or_else(|| text.strip_prefix("0X"))
                    .unwrap_or(text);
                let valid = (1..=32).contains(&digits.len())
                    && digits.bytes().all(|b| b.is_ascii_hexdigit());
                match valid {
                    true => u128::from_str_radix(digits, 16).expect("1 to 32 hex digits"),
                    false => {
                        return Err(Failure::Usage(format!(
                            "{:?} is not a hex 128-bit id: expected 1 to 32 hex digits, \
                             optionally after 0x",
                            bounded(text)
                        )));
                    }
                }
            }
        };
        Ok(K::of_bits(bits)?)
    }
}

/// An ID's bits written in a [`Form`].
pub(crate) struct Text<K>(Form, K);

impl<K: Wide> fmt::Display for Text<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Text(form, id) = *self;
        let bits = id.bits();
        match form {
            form if form == K::TEXT => id.fmt(f),
            Form::Uuid => f.write_str(&Ulid::from_u128(bits).to_uuid_string()),
            Form::Ulid => Ulid::from_u128(bits).fmt(f),
            Form::Decimal => bits.fmt(f),
            Form::Hex => write!(f, "{bits:032x}"),
        }
    }
}

/// `mint --layout uuidv7|ulid`.
pub(crate) fn mint<K: Wide>(args: &MintArgs) -> Result<(), Failure> {
    let layout = <K as Wide>::LAYOUT;
    let refused = [
        (
            "--node (or --machine, --worker, ...)",
            args.has_nodes(),
            "its ids have no node field",
        ),
        (
            "--partition",
            args.partition.is_some(),
            "it is for --layout sno",
        ),
        ("--meta", args.meta.is_some(), "it is for --layout sno"),
        (
            "--etcd",
            args.etcd.is_some(),
            "its ids have no node field to lease",
        ),
        (
            "--snapshot",
            args.snapshot.is_some(),
            "each run draws a random key of its own, which keeps runs apart",
        ),
        (
            "--on-clock-behind tick-tock",
            args.on_clock_behind == Policy::TickTock,
            "its ids have no tick-tock bit; expected wait or error",
        ),
    ];
    if let Some((flag, _, why)) = refused.into_iter().find(|&(_, given, _)| given) {
        return Err(Failure::Usage(format!(
            "{flag} does not apply to --layout {layout}: {why}"
        )));
    }
    let form = Form::of::<K>(args.format)?;
    let generator = FamilyGenerator::<K>::builder()
        .on_clock_behind(args.policy())
        .build()?;
    mint_ids(
        |out| generator.mint_batch(out),
        args.count,
        |id| form.write(id),
    )
}

/// `inspect --layout uuidv7|ulid`.
pub(crate) fn inspect<K: Wide>(args: &InspectArgs) -> Result<(), Failure> {
    let form = Form::of::<K>(args.format)?;
    for_each_id(&args.ids, args.keep_going, |out, text| {
        let id = match form.read::<K>(text) {
            Ok(id) => Decoded { form, id },
            Err(error) => return Ok(Err(error)),
        };
        if args.json {
            write_json_line(out, &id)?;
        } else {
            writeln!(out, "{id}")?;
        }
        Ok(Ok(()))
    })
}

/// `convert --layout uuidv7|ulid`: between uuid, ulid, decimal and hex.
pub(crate) fn convert<K: Wide>(
    from: ConvertForm,
    to: ConvertForm,
    ids: &[String],
    keep_going: bool,
) -> Result<(), Failure> {
    let from = Form::of_convert::<K>("--from", from)?;
    let to = Form::of_convert::<K>("--to", to)?;
    for_each_id(ids, keep_going, |out, text| match from.read::<K>(text) {
        Ok(id) => writeln!(out, "{}", to.write(id)).map(Ok),
        Err(error) => Ok(Err(error)),
    })
}

/// `bounds --layout uuidv7|ulid`: the least ID of millisecond `first` and the greatest of
/// `last`, in `--format`.
pub(crate) fn bounds<K: Wide>(
    first: u64,
    last: u64,
    format: Option<Encoding>,
) -> Result<(String, String), Failure> {
    let form = Form::of::<K>(format)?;
    let lower = K::min_at(first).map_err(Failure::usage)?;
    let upper = K::max_at(last).map_err(Failure::usage)?;
    Ok((form.write(lower).to_string(), form.write(upper).to_string()))
}

/// A 128-bit ID decoded, echoed in the form it was read in.
///
/// Text: `017f22e2-79b0-7cc3-98c4-dc0c0c07398f (uuidv7 2022-02-22T19:22:22.000Z version=7
/// variant=0b10 random=330d8c4dc0c0c07398f)`, `01ARZ3NDEKTSV4RRFFQ69G5FAV (ulid
/// 2016-07-30T23:54:10.259Z random=d6764c61efb99302bd5b)`; the random part in hex.
///
/// JSON: `{"id":"…",["text":"…",]"layout":"…","unix_ms":…,"time":"…",["version":7,
/// "variant":"0b10",]"random":"…"}`: `text` (the ID's own) exactly when `id` is in another
/// form, `version` and `variant` for a UUIDv7.
pub(crate) struct Decoded<K> {
    form: Form,
    id: K,
}

impl<K: Wide> fmt::Display for Decoded<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        write!(
            f,
            "{} ({} {}",
            self.form.write(id),
            <K as Wide>::LAYOUT,
            Rfc3339(id.unix_ms())
        )?;
        if let Some((version, variant)) = K::VERSION_VARIANT {
            write!(f, " version={version} variant={variant}")?;
        }
        write!(
            f,
            " random={:0width$x})",
            id.random(),
            width = K::RANDOM_DIGITS
        )
    }
}

impl<K: Wide> Serialize for Decoded<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let id = self.id;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &self.form.write(id).to_string())?;
        if self.form != K::TEXT {
            map.serialize_entry("text", &id.to_string())?;
        }
        map.serialize_entry("layout", <K as Wide>::LAYOUT)?;
        map.serialize_entry("unix_ms", &id.unix_ms())?;
        map.serialize_entry("time", &Rfc3339(id.unix_ms()).to_string())?;
        if let Some((version, variant)) = K::VERSION_VARIANT {
            map.serialize_entry("version", &version)?;
            map.serialize_entry("variant", variant)?;
        }
        let random = format!("{:0width$x}", id.random(), width = K::RANDOM_DIGITS);
        map.serialize_entry("random", &random)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

    #[test]
    fn every_form_round_trips_both_families() {
        let uuid: Uuid7 = EXAMPLE.parse().unwrap();
        let ulid: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
        for form in [Form::Uuid, Form::Ulid, Form::Decimal, Form::Hex] {
            let text = form.write(uuid).to_string();
            assert_eq!(form.read::<Uuid7>(&text).unwrap(), uuid, "{form}");
            let text = form.write(ulid).to_string();
            assert_eq!(form.read::<Ulid>(&text).unwrap(), ulid, "{form}");
        }
        assert_eq!(Form::Uuid.write(uuid).to_string(), EXAMPLE);
        assert_eq!(
            Form::Hex.write(uuid).to_string(),
            "017f22e279b07cc398c4dc0c0c07398f"
        );
        assert_eq!(
            Form::Hex
                .read::<Uuid7>("0x17f22e279b07cc398c4dc0c0c07398f")
                .unwrap(),
            uuid
        );
    }

    #[test]
    fn text_and_json_show_the_time_and_random_part() {
        let uuid: Uuid7 = EXAMPLE.parse().unwrap();
        let decoded = Decoded {
            form: Form::Uuid,
            id: uuid,
        };
        assert_eq!(
            decoded.to_string(),
            format!(
                "{EXAMPLE} (uuidv7 2022-02-22T19:22:22.000Z version=7 variant=0b10 \
                 random=330d8c4dc0c0c07398f)"
            )
        );
        let mut json = Vec::new();
        write_json_line(
            &mut json,
            &Decoded {
                form: Form::Decimal,
                id: uuid,
            },
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            format!(
                "{{\"id\":\"{}\",\"text\":\"{EXAMPLE}\",\"layout\":\"uuidv7\",\
                 \"unix_ms\":1645557742000,\"time\":\"2022-02-22T19:22:22.000Z\",\"version\":7,\
                 \"variant\":\"0b10\",\"random\":\"330d8c4dc0c0c07398f\"}}\n",
                uuid.to_u128()
            )
        );
    }

    #[test]
    fn bad_text_names_the_form_expected() {
        let cases = [
            (Form::Decimal, "12a", "not a decimal 128-bit id"),
            (Form::Decimal, "+12", "not a decimal 128-bit id"),
            (Form::Hex, "0x", "not a hex 128-bit id"),
            (Form::Uuid, "017f22e2", "invalid uuidv7 id"),
        ];
        for (form, text, message) in cases {
            let error = form.read::<Uuid7>(text).unwrap_err().to_string();
            assert!(error.contains(message), "{form} {text}: {error}");
        }
        let error = Form::Uuid.read::<Ulid>("017f22e2").unwrap_err().to_string();
        assert!(
            error.contains("expected 36 (8-4-4-4-12 with hyphens) or 32 (hex digits only)"),
            "{error}"
        );
        // A version 4 UUID is no UUIDv7, whatever the form.
        let v4 = "017f22e2-79b0-4cc3-98c4-dc0c0c07398f";
        let bits = Form::Uuid.read::<Ulid>(v4).unwrap().to_u128().to_string();
        let error = Form::Decimal.read::<Uuid7>(&bits).unwrap_err().to_string();
        assert!(error.contains("version 4"), "{error}");
    }
}
