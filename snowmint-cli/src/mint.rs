//! `snowmint mint`: fresh, resumed from a snapshot, or on a node ID leased from etcd.

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::Failure;
use crate::args::MintArgs;
use crate::inspect::fail_after_flush;
use crate::snapshot::{
    INVALID, SnapshotLock, SnapshotStore, fresh_sno, load_snapshot, plain, save_snapshot,
};

use crate::id128;
use crate::layout::Choice;

use snowmint::id128::{Ulid, Uuid7};
use snowmint::mark::{MarkStore, MarkedGenerator};
use snowmint::sno::{SnoGenerator, SnoId, SnoSnapshot};
use snowmint::{ClockBehind, Generator, GeneratorBuilder, Layout, Snapshot};

pub(crate) fn mint(args: &MintArgs) -> Result<(), Failure> {
    let layout = match args.layout.choice()? {
        Choice::Ids(layout) => layout,
        Choice::Sno => return mint_sno(args),
        Choice::Uuid7 => return id128::mint::<Uuid7>(args),
        Choice::Ulid => return id128::mint::<Ulid>(args),
    };
    for (flag, given) in [("--partition", args.partition), ("--meta", args.meta)] {
        if let Some(value) = given {
            return Err(Failure::Usage(format!(
                "{flag} {value} is for --layout sno; layout {} has node fields instead (--node)",
                layout.name()
            )));
        }
    }
    let nodes = args.nodes(&layout)?;
    let policy = args.policy();
    let format = args.format.unwrap_or_default();
    if let (ClockBehind::TickTock { .. }, None) = (policy, layout.tick_tock_field()) {
        return Err(Failure::Usage(format!(
            "--on-clock-behind tick-tock needs a layout with a tick-tock bit, and layout {} has \
             none; give --layout fields with one, e.g. unused:1,time:41,tick-tock,machine:9,\
             sequence:12 with --epoch-ms",
            layout.name()
        )));
    }
    if let Some(endpoints) = &args.etcd {
        return mint_leased(args, layout, &nodes, endpoints, policy);
    }
    let Some(path) = &args.snapshot else {
        let generator = fresh(layout, &nodes).on_clock_behind(policy).build()?;
        return mint_ids(
            |out| generator.mint_batch(out),
            args.count,
            |id| format.encode(id),
        );
    };

    // Held until this function returns: past the write of the exact state.
    let _held = SnapshotLock::take(path)?;
    let loaded = load_snapshot::<Snapshot>(path)?;
    let builder = match &loaded {
        Some(snapshot) => {
            check_fits(path, snapshot, &layout, &nodes)?;
            Generator::resume(snapshot)
        }
        None => fresh(layout, &nodes),
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
    let generator = MarkedGenerator::<_, SnapshotStore<Snapshot>>::new(generator, store)?;
    // The file holds a state above every ID before it is printed; a failed write stops minting.
    let minted = mint_ids(
        |out| generator.mint_batch(out),
        args.count,
        |id| format.encode(id),
    )
    .map_err(|failure| failure.in_snapshot(path));
    let exact = generator.store().exact(&generator.generator().snapshot());
    drop(generator);
    finish(path, minted, save_snapshot(path, &exact))
}

/// The library's refusal of the state read from the snapshot file at `path`, said as the
/// file's.
fn invalid_content(path: &Path, error: &snowmint::Error) -> Failure {
    Failure::snapshot(
        path,
        format_args!("{INVALID}: {}", plain(&error.to_string())),
    )
}

/// How a run with a snapshot file ends: `minted`, unless the write of the exact state
/// (`saved`) failed. If that write failed, the state written ahead stays, above every ID.
fn finish(
    path: &Path,
    minted: Result<(), Failure>,
    saved: Result<(), String>,
) -> Result<(), Failure> {
    match (minted, saved) {
        (minted, Ok(())) => minted,
        (Ok(()), Err(error)) => Err(Failure::snapshot(
            path,
            format_args!("{error}; it holds a state ahead of the IDs minted"),
        )),
        // The write ahead failed, and so did this one: the first says it.
        (Err(failure @ Failure::Snapshot { .. }), Err(_)) => Err(failure),
        (Err(failure), Err(error)) => Err(Failure::snapshot(
            path,
            format_args!("{error}; minting had stopped on: {failure}"),
        )),
    }
}

/// `mint --layout sno`: sno's 16-character IDs, with `--partition` and `--meta`.
pub(crate) fn mint_sno(args: &MintArgs) -> Result<(), Failure> {
    let refused = [
        ("--etcd", args.etcd.is_some()),
        ("--format", args.format.is_some()),
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
    let Some(path) = &args.snapshot else {
        let generator = SnoGenerator::builder()
            .partition(partition.unwrap_or(0))
            .meta(meta.unwrap_or(0))
            .on_clock_behind(args.policy())
            .build()?;
        return mint_ids(|out| generator.mint_batch(out), args.count, |id: SnoId| id);
    };
    // Held until this function returns: past the write of the exact state.
    let _held = SnapshotLock::take(path)?;
    let loaded = load_snapshot::<SnoSnapshot>(path)?;
    if let Some(snapshot) = &loaded {
        check_sno_fits(path, snapshot, partition, meta)?;
    }
    let from_file = loaded.is_some();
    let resumed = loaded.unwrap_or_else(|| fresh_sno(partition.unwrap_or(0), meta.unwrap_or(0)));
    let generator = SnoGenerator::resume(&resumed)
        .on_clock_behind(args.policy())
        .build()
        .map_err(|error| match from_file {
            // --partition and --meta were checked by their parsers: what is left is the file's.
            true => invalid_content(path, &error),
            false => error.into(),
        })?;
    let store = SnapshotStore::new(path, resumed);
    // As the marked generator does: a batch is printed only once the file holds a state above
    // its last ID, the latest.
    let minted = mint_ids(
        |out: &mut [SnoId]| {
            let written = generator.mint_batch(out)?;
            let Some(last) = out[..written].last() else {
                return Ok(0);
            };
            if let Err(error) = store.admit(last.unix_ms()) {
                out[..written].fill(SnoId::default());
                return Err(error);
            }
            Ok(written)
        },
        args.count,
        |id: SnoId| id,
    )
    .map_err(|failure| failure.in_snapshot(path));
    let exact = store.exact(&generator.snapshot());
    finish(path, minted, save_snapshot(path, &exact))
}

/// A sno snapshot's partition and metabyte must equal `--partition` and `--meta` where they are
/// given (an absent flag takes the snapshot's).
fn check_sno_fits(
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

/// `mint --etcd`: leases the layout's first node field for the run, mints, and releases the
/// node ID (lowering its mark to the last ID's tick) at exit.
#[cfg(feature = "etcd")]
pub(crate) fn mint_leased(
    args: &MintArgs,
    layout: Layout,
    nodes: &[(&'static str, u64)],
    endpoints: &str,
    policy: ClockBehind,
) -> Result<(), Failure> {
    use snowmint_etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
    use std::time::Duration;

    let field = leased_field(&layout, nodes)?;
    let prefix = args.prefix.as_deref().unwrap_or_default();
    let config = EtcdConfig::new(endpoints.split(','), prefix, 0..=field.max())
        .ttl(Duration::from_secs(args.ttl));
    let lease = EtcdLease::claim(&config).map_err(lease_failure)?;
    let builder = with_nodes(lease.resume(layout, field.name()), nodes);
    let generator = LeasedGenerator::new(builder.on_clock_behind(policy).build()?, lease)
        .map_err(|error| lease_failure(error.into()))?;
    let format = args.format.unwrap_or_default();
    let minted = mint_ids(
        |out| generator.mint_batch(out),
        args.count,
        |id| format.encode(id),
    );
    let released = generator.shutdown().map_err(Failure::from);
    minted.and(released).map_err(|failure| match failure {
        Failure::Snowmint(error) => lease_failure(error.into()),
        failure => failure,
    })
}

/// A lease's error as the command line reports it, in the lease's own words: an inconsistent
/// configuration (`--ttl`) is a usage error, the rest a failure at run time.
#[cfg(feature = "etcd")]
fn lease_failure(error: snowmint_etcd::Error) -> Failure {
    match error {
        snowmint_etcd::Error::Snowmint(error) => Failure::Snowmint(error),
        error @ snowmint_etcd::Error::InvalidLeaseConfig { .. } => {
            Failure::Usage(error.to_string())
        }
        error => Failure::Data(error.to_string()),
    }
}

/// Without the etcd feature, `--etcd` is an error that says how to get it.
#[cfg(not(feature = "etcd"))]
pub(crate) fn mint_leased(
    _args: &MintArgs,
    layout: Layout,
    nodes: &[(&'static str, u64)],
    _endpoints: &str,
    _policy: ClockBehind,
) -> Result<(), Failure> {
    leased_field(&layout, nodes)?;
    Err(Failure::Usage(
        "--etcd needs snowmint-cli built with its etcd feature (cargo install snowmint-cli --features etcd)"
            .to_owned(),
    ))
}

/// The node field `--etcd` leases: the layout's first, which no node flag may give.
pub(crate) fn leased_field(
    layout: &Layout,
    nodes: &[(&'static str, u64)],
) -> Result<snowmint::layout::Field, Failure> {
    let field = *layout.node_fields().next().ok_or_else(|| {
        Failure::Usage(format!(
            "layout {} has no node field for --etcd to lease; expected a layout with one",
            layout.name()
        ))
    })?;
    if let Some(&(name, value)) = nodes.iter().find(|&&(name, _)| name == field.name()) {
        return Err(Failure::Usage(format!(
            "--{name} {value} and --etcd both give the {name} id; omit --{name}"
        )));
    }
    Ok(field)
}

/// A generator builder for a fresh start, with the node flags given and 0 for the rest.
pub(crate) fn fresh(layout: Layout, nodes: &[(&'static str, u64)]) -> GeneratorBuilder {
    with_nodes(Generator::builder(layout), nodes)
}

/// `builder` with the node flags given, and 0 for every other node field it does not set
/// (the library has no default node ID; the command line's is 0).
pub(crate) fn with_nodes<C>(
    builder: GeneratorBuilder<C>,
    nodes: &[(&'static str, u64)],
) -> GeneratorBuilder<C> {
    nodes
        .iter()
        .fold(builder, |builder, &(name, value)| builder.node(name, value))
        .default_nodes()
}

/// The most IDs reserved by one batch: a whole tick of the twitter layout.
pub(crate) const BATCH: usize = 4096;

/// Mints `count` IDs onto stdout, one per line as `text` writes it, in batches: one
/// compare-and-swap reserves what is left of the current tick, up to [`BATCH`] IDs. Each
/// batch is written out once printed, so a reader sees every tick's IDs as the tick is
/// minted on a slow layout, and a run killed midway has printed all it minted but one batch.
pub(crate) fn mint_ids<T: Copy + Default, D: fmt::Display>(
    mut mint_batch: impl FnMut(&mut [T]) -> snowmint::Result<usize>,
    count: u64,
    text: impl Fn(T) -> D,
) -> Result<(), Failure> {
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut batch = [T::default(); BATCH];
    let mut left = count;
    while left > 0 {
        let want = usize::try_from(left).map_or(BATCH, |left| left.min(BATCH));
        let minted = match mint_batch(&mut batch[..want]) {
            Ok(minted) => minted,
            Err(error) => return fail_after_flush(&mut out, error),
        };
        for &id in &batch[..minted] {
            writeln!(out, "{}", text(id))?;
        }
        // At most a tick's IDs: at most one write per tick, or per BATCH lines.
        out.flush()?;
        left -= minted as u64;
    }
    out.flush()?;
    Ok(())
}

/// The snapshot's layout must be the command line's, and each node flag given must equal the
/// snapshot's value (an absent flag takes it).
pub(crate) fn check_fits(
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
