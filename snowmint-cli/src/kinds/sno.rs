//! `--layout sno`: sno's 80-bit IDs, in their one 16-character text form, with `--partition`
//! and `--meta` instead of node values; minted fresh or resumed from `--snapshot`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use snowmint::mark::MarkStore;
use snowmint::sno::{SnoGenerator, SnoId, SnoSnapshot};

use crate::args::{MintArgs, TextForm};
use crate::failure::Failure;
use crate::id_kind::{IdKind, Minter, Plain, Times};
use crate::snapshot::{
    SnapshotLock, SnapshotStore, finish, invalid_content, load_snapshot, save_snapshot,
};
use crate::stdio::AsText;

/// sno's IDs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sno;

impl IdKind for Sno {
    type Id = SnoId;
    /// sno has one text form.
    type Form = ();
    type Decoded<'k> = Decoded;

    fn name(&self) -> &str {
        "sno"
    }

    fn form(flag: &str, form: Option<TextForm>) -> Result<(), Failure> {
        match form {
            None => Ok(()),
            Some(form) => Err(Failure::Usage(format!(
                "{flag} {form} does not apply to --layout sno: sno ids have one text form"
            ))),
        }
    }

    fn read((): (), text: &str) -> Result<SnoId, Failure> {
        Ok(text.parse()?)
    }

    fn write((): (), id: SnoId) -> impl fmt::Display {
        id
    }

    fn decode(&self, (): (), id: SnoId) -> Result<Decoded, Failure> {
        Ok(Decoded(id))
    }

    fn times(&self) -> Times {
        let layout = SnoGenerator::LAYOUT;
        Times {
            epoch_ms: layout.epoch_ms(),
            tick_ms: layout.tick_ms(),
            last_ms: layout.max_unix_ms(),
        }
    }

    /// Every ID of the span's 4 ms units: both timelines, every metabyte, partition and
    /// sequence.
    fn bounds(&self, first_ms: u64, last_ms: u64) -> Result<(SnoId, SnoId), Failure> {
        let lower = SnoId::compose(first_ms, 0, 0, 0, 0).map_err(Failure::usage)?;
        let upper =
            SnoId::compose(last_ms, 1, u8::MAX, u16::MAX, u16::MAX).map_err(Failure::usage)?;
        Ok((lower, upper))
    }

    fn minter(&self, args: &MintArgs) -> Result<Box<dyn Minter<SnoId>>, Failure> {
        let refused = [
            ("--etcd", args.etcd.is_some()),
            ("node values (--machine, --node, ...)", args.has_nodes()),
        ];
        if let Some((flag, _)) = refused.into_iter().find(|&(_, given)| given) {
            return Err(Failure::Usage(format!(
                "{flag} does not apply to --layout sno (sno ids carry --partition and --meta)"
            )));
        }
        // Both checked by their parsers: a partition fits 16 bits, a metabyte 8.
        let partition = args.partition.map(|p| u16::try_from(p).unwrap_or(u16::MAX));
        let meta = args.meta.map(|m| u8::try_from(m).unwrap_or(u8::MAX));
        let policy = args.policy()?;
        let Some(path) = &args.snapshot else {
            let generator = SnoGenerator::builder()
                .partition(partition.unwrap_or(0))
                .meta(meta.unwrap_or(0))
                .on_clock_behind(policy)
                .build()?;
            return Ok(Box::new(Plain(generator)));
        };
        let lock = SnapshotLock::take(path)?;
        let loaded = load_snapshot::<SnoSnapshot>(path)?;
        if let Some(snapshot) = &loaded {
            check_fits(path, snapshot, partition, meta)?;
        }
        let from_file = loaded.is_some();
        let resumed = loaded.unwrap_or_else(|| {
            SnoSnapshot::at_mark(partition.unwrap_or(0), meta.unwrap_or(0), None)
        });
        let generator = SnoGenerator::resume(&resumed)
            .on_clock_behind(policy)
            .build()
            .map_err(|error| match from_file {
                // --partition and --meta were checked by their parsers: what is left is the
                // file's.
                true => invalid_content(path, &error),
                false => error.into(),
            })?;
        Ok(Box::new(SnapshotRun {
            generator,
            store: SnapshotStore::new(path, resumed),
            path: path.to_owned(),
            _lock: lock,
        }))
    }
}

/// A sno snapshot's partition and metabyte must equal `--partition` and `--meta` where they are
/// given (an absent flag takes the snapshot's).
fn check_fits(
    path: &Path,
    snapshot: &SnoSnapshot,
    partition: Option<u16>,
    meta: Option<u8>,
) -> Result<(), Failure> {
    let given = [
        (
            "partition",
            partition.map(u64::from),
            u64::from(snapshot.partition),
        ),
        ("meta", meta.map(u64::from), u64::from(snapshot.meta)),
    ];
    for (name, value, saved) in given {
        match value {
            Some(value) if value != saved => {
                return Err(Failure::snapshot_mismatch(
                    path,
                    format_args!(
                        "--{name} {value} does not match the snapshot's {name} {saved}; omit \
                         --{name} or give {saved}"
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `mint --layout sno --snapshot` run: the sno generator, the snapshot file as its mark
/// store, and the file's lock.
struct SnapshotRun {
    generator: SnoGenerator,
    store: SnapshotStore<SnoSnapshot>,
    path: PathBuf,
    /// Held until the exact state is written.
    _lock: SnapshotLock,
}

impl Minter<SnoId> for SnapshotRun {
    /// As the library's marked generator does: a batch is returned only once the file holds a
    /// state above its last ID, the latest; a failed write stops minting.
    fn mint_batch(&mut self, out: &mut [SnoId]) -> Result<usize, Failure> {
        let written = self.generator.mint_batch(out)?;
        let Some(last) = out[..written].last() else {
            return Ok(0);
        };
        if let Err(error) = self.store.admit(last.unix_ms()) {
            out[..written].fill(SnoId::default());
            return Err(Failure::from(error).in_snapshot(&self.path));
        }
        Ok(written)
    }

    /// Writes the exact state, never below the state resumed.
    fn finish(self: Box<Self>, minted: Result<(), Failure>) -> Result<(), Failure> {
        let exact = self.store.exact(&self.generator.snapshot());
        finish(&self.path, minted, save_snapshot(&self.path, &exact))
    }
}

/// A sno ID, every component.
///
/// Text: `2222222222222222 (sno 2010-01-01T00:00:00.000Z timeline=0 meta=0 partition=0 sequence=0)`,
/// the tick-tock bit named `timeline` as for every layout.
///
/// JSON: `{"id":"…","layout":"sno","unix_ms":…,"time":"…","timeline":…,"meta":…,
/// "partition":…,"sequence":…}`.
pub(crate) struct Decoded(SnoId);

impl fmt::Display for Decoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.0;
        write!(
            f,
            "{id} (sno {} timeline={} meta={} partition={} sequence={})",
            id.time_rfc3339(),
            id.timeline(),
            id.meta(),
            id.partition(),
            id.sequence()
        )
    }
}

impl Serialize for Decoded {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let id = self.0;
        let mut object = serializer.serialize_struct("Sno", 8)?;
        object.serialize_field("id", &AsText(id))?;
        object.serialize_field("layout", "sno")?;
        object.serialize_field("unix_ms", &id.unix_ms())?;
        object.serialize_field("time", &AsText(id.time_rfc3339()))?;
        object.serialize_field("timeline", &id.timeline())?;
        object.serialize_field("meta", &id.meta())?;
        object.serialize_field("partition", &id.partition())?;
        object.serialize_field("sequence", &id.sequence())?;
        object.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sno_text_and_json_list_every_component() {
        let id: SnoId = "2222222222222222".parse().unwrap();
        assert_eq!(
            Decoded(id).to_string(),
            "2222222222222222 (sno 2010-01-01T00:00:00.000Z timeline=0 meta=0 partition=0 sequence=0)"
        );
        assert_eq!(
            serde_json::to_string(&Decoded(id)).unwrap() + "\n",
            "{\"id\":\"2222222222222222\",\"layout\":\"sno\",\"unix_ms\":1262304000000,\
             \"time\":\"2010-01-01T00:00:00.000Z\",\"timeline\":0,\"meta\":0,\"partition\":0,\
             \"sequence\":0}\n"
        );
    }
}
