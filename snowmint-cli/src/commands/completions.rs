//! `snowmint completions SHELL`: a completion script made from the command line's clap
//! definitions.

use clap::CommandFactory;
use clap_complete::{Shell as Target, generate};

use crate::args::{Cli, Shell};
use crate::failure::Failure;
use crate::stdio::Stdout;

/// Writes `shell`'s completion script for the whole command line to stdout. The script is
/// made in memory first: clap_complete panics when its writer fails, and a closed stdout
/// (`snowmint completions zsh | true`) is a write error like any other here.
pub(crate) fn run(shell: Shell) -> Result<(), Failure> {
    let target = match shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
    };
    let mut script = Vec::new();
    generate(target, &mut Cli::command(), "snowmint", &mut script);
    let mut out = Stdout::new();
    out.bytes(&script)?;
    out.flush()
}
