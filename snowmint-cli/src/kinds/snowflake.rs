//! The 64-bit Snowflake-style IDs of a layout (a preset, a JSON layout file's, an inline one):
//! read and written in the library's text forms, minted fresh, resumed from `--snapshot`, or
//! on a node ID leased with `--etcd`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use snowmint::clock::Clock;
use snowmint::encoding::Encoding;
use snowmint::mark::MarkedGenerator;
use snowmint::{ClockBehind, Generator, GeneratorBuilder, Id, Layout, Parts, Snapshot};

use crate::args::{FORMS, MintArgs, TextForm, with_nodes};
use crate::failure::{Failure, bounded};
use crate::id_kind::{IdKind, Minter, Plain, Times};
use crate::lease;
use crate::snapshot::{
    SnapshotLock, SnapshotStore, finish, invalid_content, load_snapshot, save_snapshot,
};
use crate::stdio::AsText;

impl IdKind for Layout {
    type Id = Id;
    type Form = Encoding;
    type Decoded<'k> = Decoded<'k>;

    fn name(&self) -> &str {
        Layout::name(self)
    }

    fn form(flag: &str, form: Option<TextForm>) -> Result<Encoding, Failure> {
        match form {
            None => Ok(Encoding::Decimal),
            Some(TextForm::Id(encoding)) => Ok(encoding),
            // uuid and ulid are 128-bit forms.
            Some(form) => Err(Failure::Usage(format!(
                "{flag} {form} is for 128-bit ids: expected --layout uuidv7 or ulid, or a 64-bit \
                 form ({FORMS})"
            ))),
        }
    }

    fn read(form: Encoding, text: &str) -> Result<Id, Failure> {
        read_id(form, text)
    }

    fn write(form: Encoding, id: Id) -> impl fmt::Display {
        form.encode(id)
    }

    fn decode(&self, form: Encoding, id: Id) -> Result<Decoded<'_>, Failure> {
        let parts = Layout::decode(self, id)?;
        Ok(Decoded { form, parts })
    }

    fn times(&self) -> Times {
        Times {
            epoch_ms: self.epoch_ms(),
            tick_ms: self.tick_ms(),
            last_ms: self.max_unix_ms(),
        }
    }

    fn bounds(&self, first_ms: u64, last_ms: u64) -> Result<(Id, Id), Failure> {
        let lower = self.min_id_at(first_ms).map_err(Failure::usage)?;
        let upper = self.max_id_at(last_ms).map_err(Failure::usage)?;
        Ok((lower, upper))
    }

    fn minter(&self, args: &MintArgs) -> Result<Box<dyn Minter<Id>>, Failure> {
        let layout = *self;
        for (flag, given) in [("--partition", args.partition), ("--meta", args.meta)] {
            if let Some(value) = given {
                return Err(Failure::Usage(format!(
                    "{flag} {value} is for --layout sno; layout {} has node fields instead \
                     (--node)",
                    layout.name()
                )));
            }
        }
        let nodes = args.nodes(&layout)?;
        let policy = args.policy()?;
        if let (ClockBehind::TickTock { .. }, None) = (policy, layout.tick_tock_field()) {
            return Err(Failure::Usage(format!(
                "--on-clock-behind tick-tock needs a layout with a tick-tock bit, and layout {} \
                 has none; give --layout fields with one, e.g. unused:1,time:41,tick-tock,\
                 machine:9,sequence:12 with --epoch-ms",
                layout.name()
            )));
        }
        if let Some(endpoints) = &args.etcd {
            let prefix = args.prefix.as_deref().unwrap_or_default();
            return lease::minter(layout, &nodes, endpoints, prefix, args.ttl, policy);
        }
        let Some(path) = &args.snapshot else {
            let generator = fresh(layout, &nodes).on_clock_behind(policy).build()?;
            return Ok(Box::new(Plain(generator)));
        };
        snapshot_run(path, layout, &nodes, policy)
    }
}

/// A generator builder for a fresh start, with the node flags given and 0 for the rest.
fn fresh(layout: Layout, nodes: &[(&'static str, u64)]) -> GeneratorBuilder {
    with_nodes(Generator::builder(layout), nodes)
}

/// Reads an ID in `form` with the library's parser. Hex may also be written with a `0x` or
/// `0X` prefix and fewer than 16 digits (`0x1565a11f6217a000`, `1565a11f6217a00`): such text
/// is zero-padded to the library's 16 digits first. Other text goes to the library as given,
/// so its error names what was typed.
fn read_id(form: Encoding, text: &str) -> Result<Id, Failure> {
    const WIDTH: usize = 16;
    if form == Encoding::Hex {
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        if (1..=WIDTH).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut padded = [b'0'; WIDTH];
            padded[WIDTH - digits.len()..].copy_from_slice(digits.as_bytes());
            let padded = std::str::from_utf8(&padded).expect("ASCII hex digits");
            return form.decode(padded).map_err(Failure::from);
        }
        return Err(Failure::Usage(format!(
            "{:?} is not a hex id: expected 1 to {WIDTH} hex digits, optionally after 0x",
            bounded(text)
        )));
    }
    form.decode(text).map_err(Failure::from)
}

/// A `mint --snapshot` run: the library's marked generator over the snapshot file, which
/// holds a state above every ID before it is printed, and the file's lock.
struct SnapshotRun<C: Clock + Send + Sync + 'static> {
    generator: MarkedGenerator<C, SnapshotStore<Snapshot>>,
    path: PathBuf,
    /// Held until the exact state is written.
    _lock: SnapshotLock,
}

/// A `mint --snapshot` run: takes the snapshot file's lock, resumes from the file if it exists
/// (else starts fresh with `nodes`), and builds the marked generator.
fn snapshot_run(
    path: &Path,
    layout: Layout,
    nodes: &[(&'static str, u64)],
    policy: ClockBehind,
) -> Result<Box<dyn Minter<Id>>, Failure> {
    let lock = SnapshotLock::take(path)?;
    let loaded = load_snapshot::<Snapshot>(path)?;
    let builder = match &loaded {
        Some(snapshot) => {
            check_fits(path, snapshot, &layout, nodes)?;
            Generator::resume(snapshot)
        }
        None => fresh(layout, nodes),
    };
    let generator = builder
        .on_clock_behind(policy)
        .build()
        .map_err(|error| match &loaded {
            // The command line was checked against the layout: what is left is the file's.
            Some(_) => invalid_content(path, &error),
            None => error.into(),
        })?;
    let resumed = loaded.unwrap_or_else(|| generator.snapshot());
    let store = SnapshotStore::new(path, resumed);
    Ok(Box::new(SnapshotRun {
        generator: MarkedGenerator::new(generator, store)?,
        path: path.to_owned(),
        _lock: lock,
    }))
}

impl<C: Clock + Send + Sync + 'static> Minter<Id> for SnapshotRun<C> {
    /// A failed write of the file stops minting.
    fn mint_batch(&mut self, out: &mut [Id]) -> Result<usize, Failure> {
        self.generator
            .mint_batch(out)
            .map_err(|error| Failure::from(error).in_snapshot(&self.path))
    }

    /// Writes the exact state, never below the state resumed.
    fn finish(self: Box<Self>, minted: Result<(), Failure>) -> Result<(), Failure> {
        let SnapshotRun {
            generator,
            path,
            _lock,
        } = *self;
        let exact = generator.store().exact(&generator.generator().snapshot());
        drop(generator);
        finish(&path, minted, save_snapshot(&path, &exact))
    }
}

/// The snapshot's layout must be the command line's, and each node flag given must equal the
/// snapshot's value (an absent flag takes it).
fn check_fits(
    path: &Path,
    snapshot: &Snapshot,
    layout: &Layout,
    nodes: &[(&'static str, u64)],
) -> Result<(), Failure> {
    let saved = &snapshot.layout;
    if saved != layout {
        return Err(Failure::snapshot_mismatch(
            path,
            format_args!(
                "it is for layout {} with epoch {} ms, but --layout/--epoch-ms give layout {} \
                 with epoch {} ms",
                saved.name(),
                saved.epoch_ms(),
                layout.name(),
                layout.epoch_ms()
            ),
        ));
    }
    // The errors of a fresh start first: a field the layout lacks, a value out of range.
    layout.node_bits(nodes)?;
    for &(name, value) in nodes {
        let saved = snapshot.nodes.iter().find(|&&(n, _)| n == name);
        match saved {
            Some(&(_, saved)) if saved == value => {}
            Some(&(_, saved)) => {
                return Err(Failure::snapshot_mismatch(
                    path,
                    format_args!(
                        "--{name} {value} does not match the snapshot's {name} {saved}; \
                         omit --{name} or give {saved}"
                    ),
                ));
            }
            None => {
                return Err(Failure::snapshot_mismatch(
                    path,
                    format_args!("--{name} {value} is given, but the snapshot has no {name}"),
                ));
            }
        }
    }
    Ok(())
}

/// The keys `inspect --json` writes beside the node fields, which a node field may not be named.
pub(crate) const JSON_KEYS: [&str; 7] = [
    "id", "decimal", "layout", "unix_ms", "time", "timeline", "sequence",
];

/// An ID decoded under its layout, echoed in the text form it was read in.
///
/// Text: `1ptWyK4WgZU (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=0)`, the
/// library's [`Parts`] `Display` with the ID in `form`.
///
/// JSON: `{"id":"…",["decimal":"…",]"layout":"…","unix_ms":…,"time":"…",["timeline":0|1,]
/// <node fields>,"sequence":…}`. `id` is in `form`, and `decimal` is there exactly when
/// `form` is not decimal; `timeline` (the tick-tock bit) exactly when the layout has one, as in
/// the text form.
pub(crate) struct Decoded<'l> {
    form: Encoding,
    parts: Parts<'l>,
}

impl fmt::Display for Decoded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = &self.parts;
        write!(
            f,
            "{} ({} {}",
            self.form.encode(parts.id()),
            parts.layout().name(),
            parts.time_rfc3339()
        )?;
        if let Some(timeline) = parts.timeline() {
            write!(f, " timeline={timeline}")?;
        }
        for (name, value) in parts.nodes() {
            write!(f, " {name}={value}")?;
        }
        write!(f, " sequence={})", parts.sequence())
    }
}

impl Serialize for Decoded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let parts = &self.parts;
        // A map, not a struct: the node fields' names are the layout's.
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", self.form.encode(parts.id()).as_str())?;
        if self.form != Encoding::Decimal {
            // `Id` serializes as its decimal string.
            map.serialize_entry("decimal", &parts.id())?;
        }
        map.serialize_entry("layout", parts.layout().name())?;
        map.serialize_entry("unix_ms", &parts.unix_ms())?;
        map.serialize_entry("time", &AsText(parts.time_rfc3339()))?;
        if let Some(timeline) = parts.timeline() {
            map.serialize_entry("timeline", &timeline)?;
        }
        for (name, value) in parts.nodes() {
            map.serialize_entry(name, &value)?;
        }
        map.serialize_entry("sequence", &parts.sequence())?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout with a tick-tock bit (no preset has one yet).
    const TICK_TOCK: Layout = Layout::builder("tt", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    fn json(value: &impl Serialize) -> String {
        serde_json::to_string(value).unwrap() + "\n"
    }

    fn decoded(layout: &Layout, form: Encoding, id: Id) -> Decoded<'_> {
        Decoded {
            form,
            parts: layout.decode(id).unwrap(),
        }
    }

    #[test]
    fn json_has_a_timeline_key_after_time_exactly_when_the_layout_has_the_bit() {
        for timeline in [0, 1] {
            let id = TICK_TOCK
                .compose_on_timeline(1_656_432_460_105, timeline, &[("machine", 378)], 9)
                .unwrap();
            assert_eq!(
                json(&decoded(&TICK_TOCK, Encoding::Decimal, id)),
                format!(
                    "{{\"id\":\"{id}\",\"layout\":\"tt\",\"unix_ms\":1656432460105,\
                     \"time\":\"2022-06-28T16:07:40.105Z\",\"timeline\":{timeline},\"machine\":378,\
                     \"sequence\":9}}\n"
                )
            );
        }
        let id = Layout::TWITTER
            .compose(1_656_432_460_105, &[("machine", 378)], 9)
            .unwrap();
        assert!(!json(&decoded(&Layout::TWITTER, Encoding::Decimal, id)).contains("timeline"));
    }

    #[test]
    fn json_echoes_the_form_read_and_adds_the_decimal_after_it() {
        let id = Id::from_u64(1_541_815_603_606_036_480);
        assert_eq!(
            json(&decoded(&Layout::TWITTER, Encoding::Base62, id)),
            "{\"id\":\"1ptWyK4WgZU\",\"decimal\":\"1541815603606036480\",\"layout\":\"twitter\",\
             \"unix_ms\":1656432460105,\"time\":\"2022-06-28T16:07:40.105Z\",\
             \"machine\":378,\"sequence\":0}\n"
        );
        for form in Encoding::ALL {
            let object: serde_json::Value =
                serde_json::from_str(&json(&decoded(&Layout::TWITTER, form, id))).unwrap();
            assert_eq!(object["id"], form.encode(id).as_str(), "{form}");
            let decimal = object.get("decimal");
            match form {
                Encoding::Decimal => assert_eq!(decimal, None),
                _ => assert_eq!(decimal.unwrap(), "1541815603606036480", "{form}"),
            }
        }
    }

    #[test]
    fn text_is_the_librarys_display_of_the_parts_with_the_id_in_its_form() {
        let cases = [
            (Layout::TWITTER, Id::from_u64(1_541_815_603_606_036_480)),
            (Layout::DISCORD, Id::from_u64(175_928_847_299_117_063)),
            (
                TICK_TOCK,
                TICK_TOCK
                    .compose_on_timeline(1_656_432_460_105, 1, &[("machine", 378)], 9)
                    .unwrap(),
            ),
        ];
        for (layout, id) in &cases {
            let library = layout.decode(*id).unwrap().to_string();
            let rest = library.strip_prefix(&id.to_string()).unwrap();
            assert_eq!(decoded(layout, Encoding::Decimal, *id).to_string(), library);
            for form in Encoding::ALL {
                let text = decoded(layout, form, *id).to_string();
                assert_eq!(text, format!("{}{rest}", form.encode(*id)), "{form}");
            }
        }
    }
}
