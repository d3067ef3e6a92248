//! `--layout uuidv7` and `--layout ulid`: the library's 128-bit IDs, one [`IdKind`] over the
//! two families ([`Wide`], implemented in `uuid7.rs` and `ulid.rs`).
//!
//! Their layout is fixed (48 bits of Unix milliseconds, the rest random, and for a UUIDv7 its
//! version and variant), so the options of the 64-bit layouts that give an ID's parts or keep
//! generators apart (node values, `--etcd`, `--snapshot`, sno's `--partition` and `--meta`,
//! `--on-clock-behind tick-tock`) are refused: each generator draws a random key of its own,
//! which keeps runs apart. `--on-clock-behind wait|error` and `--max-wait-ms` apply as they do
//! for every layout.
//!
//! Text forms: the ID's own text (a hyphenated lowercase UUID; 26 characters of Crockford's
//! base32) by default, the other family's text (`uuid`, `ulid`), or its 128-bit integer,
//! `decimal` or `hex` (32 digits: the 16 bytes, big-endian).

use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use snowmint::clock::Rfc3339;
use snowmint::encoding::Encoding;
use snowmint::family::{Family, FamilyGenerator};
use snowmint::id128::Ulid;

use crate::args::{MintArgs, Policy, TextForm};
use crate::failure::{Failure, bounded};
use crate::id_kind::{IdKind, Minter, Plain, Times};
use crate::stdio::AsText;

/// What the command line needs of a 128-bit family, [`Uuid7`](snowmint::id128::Uuid7) or
/// [`Ulid`].
pub(crate) trait Wide: Family + fmt::Display + 'static {
    /// The `--layout` name.
    const LAYOUT: &'static str;
    /// The ID's own text form.
    const TEXT: Form;
    /// Hex digits of the random part: 74 bits for a UUIDv7, 80 for a ULID.
    const RANDOM_DIGITS: usize;
    /// The version and variant a UUIDv7 carries.
    const VERSION_VARIANT: Option<(u8, &'static str)>;
    /// The last millisecond the family's IDs hold.
    const MAX_UNIX_MS: u64;
    /// Reads the ID's own text form with the library's parser.
    fn parse(text: &str) -> snowmint::Result<Self>;
    /// The ID with these bits; a UUIDv7's version and variant are checked.
    fn of_bits(bits: u128) -> snowmint::Result<Self>;
    /// The ID's 128 bits.
    fn bits(self) -> u128;
    /// The ID's time.
    fn unix_ms(self) -> u64;
    /// The ID's random part.
    fn random(self) -> u128;
    /// The least ID of millisecond `unix_ms`.
    fn min_at(unix_ms: u64) -> snowmint::Result<Self>;
    /// The greatest ID of millisecond `unix_ms`.
    fn max_at(unix_ms: u64) -> snowmint::Result<Self>;
}

/// The IDs of the 128-bit family `F`.
pub(crate) struct Id128<F>(PhantomData<F>);

impl<F> Id128<F> {
    /// The family's IDs.
    pub(crate) const KIND: Self = Id128(PhantomData);
}

impl<F: Wide> IdKind for Id128<F> {
    type Id = F;
    type Form = Form;
    type Decoded<'k> = Decoded<F>;

    fn name(&self) -> &str {
        <F as Wide>::LAYOUT
    }

    fn form(flag: &str, form: Option<TextForm>) -> Result<Form, Failure> {
        match form {
            None => Ok(F::TEXT),
            Some(TextForm::Uuid) => Ok(Form::Uuid),
            Some(TextForm::Ulid) => Ok(Form::Ulid),
            Some(TextForm::Id(Encoding::Decimal)) => Ok(Form::Decimal),
            Some(TextForm::Id(Encoding::Hex)) => Ok(Form::Hex),
            Some(other) => Err(Failure::Usage(format!(
                "{flag} {other} does not apply to --layout {}: 128-bit ids take uuid, ulid, \
                 decimal and hex (the 128-bit integer)",
                <F as Wide>::LAYOUT
            ))),
        }
    }

    fn read(form: Form, text: &str) -> Result<F, Failure> {
        form.read(text)
    }

    fn write(form: Form, id: F) -> impl fmt::Display {
        Text(form, id)
    }

    fn decode(&self, form: Form, id: F) -> Result<Decoded<F>, Failure> {
        Ok(Decoded { form, id })
    }

    fn times(&self) -> Times {
        Times {
            epoch_ms: 0,
            tick_ms: 1,
            last_ms: F::MAX_UNIX_MS,
        }
    }

    fn bounds(&self, first_ms: u64, last_ms: u64) -> Result<(F, F), Failure> {
        let lower = F::min_at(first_ms).map_err(Failure::usage)?;
        let upper = F::max_at(last_ms).map_err(Failure::usage)?;
        Ok((lower, upper))
    }

    fn minter(&self, args: &MintArgs) -> Result<Box<dyn Minter<F>>, Failure> {
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
                "{flag} does not apply to --layout {}: {why}",
                <F as Wide>::LAYOUT
            )));
        }
        let generator = FamilyGenerator::<F>::builder()
            .on_clock_behind(args.policy()?)
            .build()?;
        Ok(Box::new(Plain(generator)))
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

impl Form {
    /// Reads `F`'s ID in this form; a UUIDv7's version and variant are checked.
    fn read<F: Wide>(self, text: &str) -> Result<F, Failure> {
        let bits = match self {
            form if form == F::TEXT => return Ok(F::parse(text)?),
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
        Ok(F::of_bits(bits)?)
    }
}

/// An ID's bits written in a [`Form`].
struct Text<F>(Form, F);

impl<F: Wide> fmt::Display for Text<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Text(form, id) = *self;
        let bits = id.bits();
        match form {
            form if form == F::TEXT => id.fmt(f),
            Form::Uuid => f.write_str(&Ulid::from_u128(bits).to_uuid_string()),
            Form::Ulid => Ulid::from_u128(bits).fmt(f),
            Form::Decimal => bits.fmt(f),
            Form::Hex => write!(f, "{bits:032x}"),
        }
    }
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
pub(crate) struct Decoded<F> {
    form: Form,
    id: F,
}

impl<F: Wide> fmt::Display for Decoded<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        write!(
            f,
            "{} ({} {}",
            Text(self.form, id),
            <F as Wide>::LAYOUT,
            Rfc3339(id.unix_ms())
        )?;
        if let Some((version, variant)) = F::VERSION_VARIANT {
            write!(f, " version={version} variant={variant}")?;
        }
        write!(
            f,
            " random={:0width$x})",
            id.random(),
            width = F::RANDOM_DIGITS
        )
    }
}

impl<F: Wide> Serialize for Decoded<F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let id = self.id;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &AsText(Text(self.form, id)))?;
        if self.form != F::TEXT {
            map.serialize_entry("text", &AsText(id))?;
        }
        map.serialize_entry("layout", <F as Wide>::LAYOUT)?;
        map.serialize_entry("unix_ms", &id.unix_ms())?;
        map.serialize_entry("time", &AsText(Rfc3339(id.unix_ms())))?;
        if let Some((version, variant)) = F::VERSION_VARIANT {
            map.serialize_entry("version", &version)?;
            map.serialize_entry("variant", variant)?;
        }
        let random = format!("{:0width$x}", id.random(), width = F::RANDOM_DIGITS);
        map.serialize_entry("random", &random)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snowmint::id128::Uuid7;

    const EXAMPLE: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

    #[test]
    fn every_form_round_trips_both_families() {
        let uuid: Uuid7 = EXAMPLE.parse().unwrap();
        let ulid: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
        for form in [Form::Uuid, Form::Ulid, Form::Decimal, Form::Hex] {
            let text = Text(form, uuid).to_string();
            assert_eq!(form.read::<Uuid7>(&text).unwrap(), uuid, "{form}");
            let text = Text(form, ulid).to_string();
            assert_eq!(form.read::<Ulid>(&text).unwrap(), ulid, "{form}");
        }
        assert_eq!(Text(Form::Uuid, uuid).to_string(), EXAMPLE);
        assert_eq!(
            Text(Form::Hex, uuid).to_string(),
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
        let json = serde_json::to_string(&Decoded {
            form: Form::Decimal,
            id: uuid,
        })
        .unwrap();
        assert_eq!(
            json + "\n",
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
