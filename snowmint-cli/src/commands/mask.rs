//! `snowmint mask` and `snowmint unmask`: IDs to their opaque values under a key and back
//! (the library's `mask` module), the key from a file or the environment.

use std::path::Path;

use snowmint::mask::{MaskKey, Masker};

use crate::args::MaskArgs;
use crate::failure::Failure;
use crate::stdio::for_each_id;

/// The environment variable that holds the key when `--key-file` is not given.
pub(crate) const KEY_VARIABLE: &str = "SNOWMINT_MASK_KEY";

/// Which way the values go.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Direction {
    /// IDs to masked values.
    Mask,
    /// Masked values to IDs.
    Unmask,
}

/// Runs `snowmint mask` or `snowmint unmask`.
pub(crate) fn run(args: &MaskArgs, direction: Direction) -> Result<(), Failure> {
    let key = key(args.key_file.as_deref())?;
    let masker = Masker::new(&key, args.width);
    for_each_id(
        &args.values,
        args.keep_going,
        |text| {
            let value = args.format.decode(text).map_err(Failure::Snowmint)?;
            let out = match direction {
                Direction::Mask => masker.mask(value).map(snowmint::Id::from_u64),
                Direction::Unmask => masker.unmask(value.to_u64()),
            };
            out.map_err(Failure::Snowmint)
        },
        |out, value| out.line(args.format.encode(value)),
    )
}

/// The key from `path`, or from [`KEY_VARIABLE`] without one. A key file that cannot be read
/// or holds no key is a failure at run time (a file, status 1); a variable that is unset or
/// holds no key, a usage error (status 2).
fn key(path: Option<&Path>) -> Result<MaskKey, Failure> {
    if let Some(path) = path {
        let text = std::fs::read_to_string(path).map_err(|error| {
            Failure::Data(format!(
                "key file {}: {error}; expected a readable file of 32 hexadecimal digits",
                path.display()
            ))
        })?;
        return MaskKey::from_hex(&text)
            .map_err(|error| Failure::Data(format!("key file {}: {error}", path.display())));
    }
    match std::env::var(KEY_VARIABLE) {
        Ok(text) => MaskKey::from_hex(&text)
            .map_err(|error| Failure::Usage(format!("{KEY_VARIABLE}: {error}"))),
        Err(std::env::VarError::NotUnicode(_)) => Err(Failure::Usage(format!(
            "{KEY_VARIABLE} is not text; expected 32 hexadecimal digits"
        ))),
        Err(std::env::VarError::NotPresent) => Err(Failure::Usage(format!(
            "no masking key: give --key-file PATH or set {KEY_VARIABLE} to 32 hexadecimal \
             digits (never an argument, where ps would show it)"
        ))),
    }
}
