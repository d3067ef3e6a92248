//! `snowmint mint`: `--count` IDs of the kind `--layout` names, printed one per line as
//! `--format` writes them, from the kind's generator (fresh, resumed from `--snapshot`, or on a
//! node ID leased with `--etcd`).

use crate::args::MintArgs;
use crate::failure::Failure;
use crate::id_kind::{IdKind, Minter, OverKind};
use crate::layout::Choice;
use crate::stdio::Stdout;

/// Runs `snowmint mint`.
pub(crate) fn run(args: &MintArgs) -> Result<(), Failure> {
    Choice::of(&args.layout)?.run(Mint(args))
}

/// `mint` with its flags.
struct Mint<'a>(&'a MintArgs);

impl OverKind for Mint<'_> {
    fn run<K: IdKind>(self, kind: &K) -> Result<(), Failure> {
        let args = self.0;
        let form = K::form("--format", args.format)?;
        let mut minter = kind.minter(args)?;
        let minted = mint_ids(minter.as_mut(), args.count, |id| K::write(form, id));
        minter.finish(minted)
    }
}

/// The most IDs reserved by one batch: a whole tick of the twitter layout.
const BATCH: usize = 4096;

/// Mints `count` IDs onto stdout, one per line as `text` writes it, in batches: one
/// compare-and-swap reserves what is left of the current tick, up to [`BATCH`] IDs. Each
/// batch is written out once printed, so a reader sees every tick's IDs as the tick is
/// minted on a slow layout, and a run killed midway has printed all it minted but one batch.
fn mint_ids<T: Copy + Default, D: std::fmt::Display>(
    minter: &mut dyn Minter<T>,
    count: u64,
    text: impl Fn(T) -> D,
) -> Result<(), Failure> {
    let mut out = Stdout::with_capacity(64 * 1024);
    let mut batch = [T::default(); BATCH];
    let mut left = count;
    while left > 0 {
        let want = usize::try_from(left).map_or(BATCH, |left| left.min(BATCH));
        let minted = match minter.mint_batch(&mut batch[..want]) {
            Ok(minted) => minted,
            Err(failure) => return Err(out.fail(failure)),
        };
        for &id in &batch[..minted] {
            out.line(text(id))?;
        }
        // At most a tick's IDs: at most one write per tick, or per BATCH lines.
        out.flush()?;
        left -= minted as u64;
    }
    out.flush()
}
