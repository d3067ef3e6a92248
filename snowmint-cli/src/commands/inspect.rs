//! `snowmint inspect`: IDs read from the arguments or stdin in `--from`'s form, decoded under
//! the kind `--layout` names, one line of text or JSON each.

use crate::args::InspectArgs;
use crate::failure::Failure;
use crate::id_kind::{IdKind, OverKind};
use crate::layout::Choice;
use crate::stdio::for_each_id;

/// Runs `snowmint inspect`.
pub(crate) fn run(args: &InspectArgs) -> Result<(), Failure> {
    Choice::of(&args.layout)?.run(Inspect(args))
}

/// `inspect` with its flags.
struct Inspect<'a>(&'a InspectArgs);

impl OverKind for Inspect<'_> {
    fn run<K: IdKind>(self, kind: &K) -> Result<(), Failure> {
        let args = self.0;
        let form = K::form("--from", args.from)?;
        for_each_id(
            &args.ids,
            args.keep_going,
            |text| kind.decode(form, K::read(form, text)?),
            |out, decoded| match args.json {
                true => out.json_line(&decoded),
                false => out.line(decoded),
            },
        )
    }
}
