//! `--layout ulid`: the library's ULIDs, a [`Wide`] family of the 128-bit kind.

use snowmint::id128::Ulid;

use super::id128::{Form, Wide};

impl Wide for Ulid {
    const LAYOUT: &'static str = "ulid";
    const TEXT: Form = Form::Ulid;
    const RANDOM_DIGITS: usize = 20;
    const VERSION_VARIANT: Option<(u8, &'static str)> = None;
    const MAX_UNIX_MS: u64 = Ulid::MAX_UNIX_MS;

    fn parse(text: &str) -> snowmint::Result<Self> {
        Ulid::parse(text)
    }

    /// Every 128 bits are a ULID.
    fn of_bits(bits: u128) -> snowmint::Result<Self> {
        Ok(Ulid::from_u128(bits))
    }

    fn bits(self) -> u128 {
        self.to_u128()
    }

    fn unix_ms(self) -> u64 {
        Ulid::unix_ms(self)
    }

    fn random(self) -> u128 {
        Ulid::random(self)
    }

    fn min_at(unix_ms: u64) -> snowmint::Result<Self> {
        Ulid::min_at(unix_ms)
    }

    fn max_at(unix_ms: u64) -> snowmint::Result<Self> {
        Ulid::max_at(unix_ms)
    }
}
