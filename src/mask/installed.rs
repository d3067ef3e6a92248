//! The process's masker, for the serde adapter [`masked`](super::masked): installed once at
//! startup, read by every (de)serialization.

use std::sync::OnceLock;

use super::Masker;

/// The process's masker. Fork: set only inside a fork section, so a child finds it set or
/// never begun (a child keeps its parent's masker: the same key, the same public IDs).
static INSTALLED: OnceLock<Masker> = OnceLock::new();

/// Installs the process's masker, which [`masked`](super::masked) fields use: once, at
/// startup, before the first such field is written or read.
///
/// # Errors
///
/// The masker given back when one is installed already (the first stays: public IDs never
/// change under a running process).
///
/// # Examples
///
/// ```
/// use snowmint::mask::{self, MaskKey, MaskWidth, Masker};
///
/// let key = MaskKey::from_hex("000102030405060708090a0b0c0d0e0f")?;
/// assert!(mask::install(Masker::new(&key, MaskWidth::JS_SAFE)).is_ok());
/// assert_eq!(mask::installed().map(Masker::width), Some(MaskWidth::JS_SAFE));
/// // A second install is refused, and the first masker stays.
/// assert!(mask::install(Masker::new(&key, MaskWidth::U64)).is_err());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub fn install(masker: Masker) -> Result<(), Masker> {
    let _section = crate::fork::enter();
    INSTALLED.set(masker)
}

/// The process's masker, once [`install`] has run.
pub fn installed() -> Option<&'static Masker> {
    INSTALLED.get()
}
