//! `--layout`: a preset name, `sno`, `uuidv7`, `ulid`, a JSON layout file, or an inline spec
//! of fields; resolved to the kind of ID a command runs over.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use snowmint::id128::{Ulid, Uuid7};
use snowmint::layout::LayoutBuilder;
use snowmint::{Error, Layout};

use crate::args::LayoutArgs;
use crate::failure::{Failure, bounded};
use crate::id_kind::OverKind;
use crate::kinds::{Id128, JSON_KEYS, Sno};

/// What `--layout` names.
#[derive(Debug, Clone, Copy)]
// Short-lived, one per run: a boxed layout would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Choice {
    /// A 64-bit layout: a preset, a file's or an inline one.
    Snowflake(Layout),
    /// sno's 80-bit IDs.
    Sno,
    /// 128-bit UUIDv7s.
    Uuid7,
    /// 128-bit ULIDs.
    Ulid,
}

impl Choice {
    /// What `--layout`, `--epoch-ms` and `--tick-ms` name.
    pub(crate) fn of(args: &LayoutArgs) -> Result<Choice, Failure> {
        resolve(&args.layout, args.epoch_ms, args.tick_ms)
    }

    /// Runs `command` over the kind of ID chosen.
    pub(crate) fn run(self, command: impl OverKind) -> Result<(), Failure> {
        match self {
            Choice::Snowflake(layout) => command.run(&layout),
            Choice::Sno => command.run(&Sno),
            Choice::Uuid7 => command.run(&Id128::<Uuid7>::KIND),
            Choice::Ulid => command.run(&Id128::<Ulid>::KIND),
        }
    }
}

/// The name inline layouts get.
pub(crate) const INLINE_NAME: &str = "custom";

/// The largest layout file read; real ones are under a kilobyte.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// `--layout`'s value, with `--epoch-ms` and `--tick-ms`: a preset name, `sno`, `uuidv7`,
/// `ulid`, a path to a
/// JSON layout file (as `Layout` serializes), or an inline spec such as
/// `unused:1,time:41,tick-tock,region:4,host:5,sequence:12`.
pub(crate) fn resolve(
    value: &str,
    epoch_ms: Option<u64>,
    tick_ms: Option<u64>,
) -> Result<Choice, Failure> {
    let refuse = |flag: &str, given: u64, why: &str| {
        Err(Failure::Usage(format!(
            "--{flag} {given} does not apply to --layout {}: {why}",
            bounded(value)
        )))
    };
    if value == "sno" {
        if let Some(given) = epoch_ms {
            return refuse(
                "epoch-ms",
                given,
                "sno has the fixed epoch 1262304000000 ms",
            );
        }
        if let Some(given) = tick_ms {
            return refuse("tick-ms", given, "sno's ticks are 4 ms");
        }
        return Ok(Choice::Sno);
    }
    if let Some(choice) = match value {
        "uuidv7" => Some(Choice::Uuid7),
        "ulid" => Some(Choice::Ulid),
        _ => None,
    } {
        let why = "its time is 48 bits of Unix milliseconds";
        if let Some(given) = epoch_ms {
            return refuse("epoch-ms", given, why);
        }
        if let Some(given) = tick_ms {
            return refuse("tick-ms", given, why);
        }
        return Ok(choice);
    }
    let path = Path::new(value);
    if value.ends_with(".json") || path.is_file() {
        if let Some(given) = epoch_ms {
            return refuse("epoch-ms", given, "a layout file holds its epoch");
        }
        if let Some(given) = tick_ms {
            return refuse("tick-ms", given, "a layout file holds its tick");
        }
        return read_file(path).and_then(free_keys).map(Choice::Snowflake);
    }
    if value.contains(':') || value.contains(',') || value == "tick-tock" {
        return inline(value, epoch_ms, tick_ms)
            .and_then(free_keys)
            .map(Choice::Snowflake);
    }
    if let Some(given) = tick_ms {
        return refuse(
            "tick-ms",
            given,
            "a preset's tick is fixed; --tick-ms is for inline layouts",
        );
    }
    Layout::preset(value, epoch_ms).map(Choice::Snowflake).map_err(|error| match error {
        Error::EpochRequired { layout } => Failure::Usage(format!(
            "layout {layout} needs --epoch-ms, its epoch in Unix milliseconds"
        )),
        Error::UnknownLayout { name, expected } => Failure::Usage(format!(
            "unknown layout {name:?}; expected sno, uuidv7, ulid, a preset ({expected}), a JSON layout file, or \
             fields such as unused:1,time:41,machine:10,sequence:12"
        )),
        error => error.into(),
    })
}

/// `layout`, if none of its node fields is named as one of [`JSON_KEYS`].
fn free_keys(layout: Layout) -> Result<Layout, Failure> {
    match layout
        .node_fields()
        .find(|field| JSON_KEYS.contains(&field.name()))
    {
        Some(field) => Err(Failure::Usage(format!(
            "layout {}: a node field may not be named {}, a key of inspect --json ({})",
            layout.name(),
            field.name(),
            JSON_KEYS.join(", ")
        ))),
        None => Ok(layout),
    }
}

/// A layout from a JSON file, as `Layout` serializes.
fn read_file(path: &Path) -> Result<Layout, Failure> {
    let shown = path.display();
    let file = File::open(path)
        .map_err(|error| Failure::Data(format!("layout file {shown}: cannot open: {error}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| Failure::Data(format!("layout file {shown}: cannot read: {error}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Failure::Data(format!(
            "layout file {shown}: larger than {MAX_FILE_BYTES} bytes, expected a JSON layout"
        )));
    }
    serde_json::from_slice(&bytes).map_err(|error| {
        let message = error.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(message, _)| message);
        Failure::Data(match error.line() {
            0 => format!("layout file {shown}: {message}"),
            line => format!(
                "layout file {shown}: line {line} column {}: {message}",
                error.column()
            ),
        })
    })
}

/// An inline layout: fields most significant first, `NAME:BITS` each (`unused`, `time` and
/// `sequence` are those kinds, any other name a node field) or `tick-tock` (one bit).
fn inline(spec: &str, epoch_ms: Option<u64>, tick_ms: Option<u64>) -> Result<Layout, Failure> {
    let bad = |problem: String| Failure::Usage(format!("--layout {}: {problem}", bounded(spec)));
    let builder = LayoutBuilder::from_fields(INLINE_NAME, spec).map_err(|error| match error {
        Error::InvalidLayoutFields { problem, .. } => bad(problem),
        error => bad(error.to_string()),
    })?;
    let Some(epoch_ms) = epoch_ms else {
        return Err(bad(
            "an inline layout needs --epoch-ms, its epoch in Unix milliseconds".to_owned(),
        ));
    };
    builder
        .epoch_ms(epoch_ms)
        .tick_ms(tick_ms.unwrap_or(1))
        .build()
        .map_err(|error| bad(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(choice: Result<Choice, Failure>) -> Layout {
        match choice {
            Ok(Choice::Snowflake(layout)) => layout,
            other => panic!("expected a 64-bit layout, got {other:?}"),
        }
    }

    #[test]
    fn an_inline_spec_builds_the_layout_it_spells() {
        let spec = "unused:1,time:41,tick-tock,region:4,host:5,sequence:12";
        let layout = ids(resolve(spec, Some(1_704_067_200_000), None));
        let expected = Layout::builder(INLINE_NAME, 64)
            .unused(1)
            .time(41)
            .tick_tock()
            .node("region", 4)
            .node("host", 5)
            .sequence(12)
            .epoch_ms(1_704_067_200_000)
            .build()
            .unwrap();
        assert_eq!(layout, expected);
        let slow = ids(resolve(
            "time:39,machine:16,sequence:8",
            Some(1_409_529_600_000),
            Some(10),
        ));
        assert_eq!((slow.tick_ms(), slow.width()), (10, 63));
    }

    #[test]
    fn a_preset_a_file_and_sno_resolve() {
        assert_eq!(ids(resolve("discord", None, None)), Layout::DISCORD);
        assert!(matches!(resolve("sno", None, None), Ok(Choice::Sno)));
        assert!(matches!(resolve("uuidv7", None, None), Ok(Choice::Uuid7)));
        assert!(matches!(resolve("ulid", None, None), Ok(Choice::Ulid)));
        let path =
            std::env::temp_dir().join(format!("snowmint-layout-{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_string(&Layout::INSTAGRAM).unwrap()).unwrap();
        let layout = ids(resolve(path.to_str().unwrap(), None, None));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(layout, Layout::INSTAGRAM);
    }

    #[test]
    fn bad_layouts_say_what_was_wrong_in_the_flags_terms() {
        let cases: &[(&str, Option<u64>, Option<u64>, &str)] = &[
            ("nanoflake", None, None, "layout nanoflake needs --epoch-ms"),
            (
                "nope",
                None,
                None,
                "unknown layout \"nope\"; expected sno, uuidv7, ulid, a preset",
            ),
            (
                "twitter",
                None,
                Some(10),
                "--tick-ms 10 does not apply to --layout twitter",
            ),
            (
                "sno",
                Some(5),
                None,
                "--epoch-ms 5 does not apply to --layout sno",
            ),
            (
                "time:41,machine",
                Some(0),
                None,
                "field 2 \"machine\" is not NAME:BITS",
            ),
            (
                "time:41,machine:0,sequence:12",
                Some(0),
                None,
                "field 2 (machine) has \"0\" bits",
            ),
            (
                "time:41,mach ine:5",
                Some(0),
                None,
                "field 2 has the name \"mach ine\"",
            ),
            (
                "time:60,sequence:12",
                Some(0),
                None,
                "the fields add up to 72 bits",
            ),
            (
                "time:41,sequence:12",
                None,
                None,
                "an inline layout needs --epoch-ms",
            ),
            (
                "missing.json",
                None,
                None,
                "layout file missing.json: cannot open",
            ),
        ];
        for &(value, epoch, tick, message) in cases {
            let error = resolve(value, epoch, tick).unwrap_err().to_string();
            assert!(error.contains(message), "{value}: {error}");
        }
    }
}
