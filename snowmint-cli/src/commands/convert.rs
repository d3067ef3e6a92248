//! `snowmint convert`: IDs read from the arguments or stdin in `--from`'s form, written in
//! `--to`'s. With `--layout`, each ID must be one of its kind; without, any 64-bit ID converts.

use snowmint::Layout;

use crate::args::ConvertArgs;
use crate::failure::Failure;
use crate::id_kind::{IdKind, OverKind};
use crate::layout;
use crate::stdio::for_each_id;

/// Runs `snowmint convert`.
pub(crate) fn run(args: &ConvertArgs) -> Result<(), Failure> {
    match &args.layout {
        // The 64-bit text forms, with no layout to check each ID against.
        None => convert::<Layout>(None, args),
        Some(value) => layout::resolve(value, args.epoch_ms, args.tick_ms)?.run(Convert(args)),
    }
}

/// `convert --layout` with its flags.
struct Convert<'a>(&'a ConvertArgs);

impl OverKind for Convert<'_> {
    fn run<K: IdKind>(self, kind: &K) -> Result<(), Failure> {
        convert(Some(kind), self.0)
    }
}

/// Converts between `K`'s text forms, each ID checked to fit `kind` when there is one.
fn convert<K: IdKind>(kind: Option<&K>, args: &ConvertArgs) -> Result<(), Failure> {
    let from = K::form("--from", args.from)?;
    let to = K::form("--to", Some(args.to))?;
    for_each_id(
        &args.ids,
        args.keep_going,
        |text| {
            let id = K::read(from, text)?;
            if let Some(kind) = kind {
                kind.decode(from, id)?;
            }
            Ok(id)
        },
        |out, id| out.line(K::write(to, id)),
    )
}
