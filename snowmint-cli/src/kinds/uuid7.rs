//! `--layout uuidv7`: the library's UUIDv7s, a [`Wide`] family of the 128-bit kind.

use snowmint::id128::Uuid7;

use super::id128::{Form, Wide};

impl Wide for Uuid7 {
    const LAYOUT: &'static str = "uuidv7";
    const TEXT: Form = Form::Uuid;
    const RANDOM_DIGITS: usize = 19;
    const VERSION_VARIANT: Option<(u8, &'static str)> = Some((7, "0b10"));
    const MAX_UNIX_MS: u64 = Uuid7::MAX_UNIX_MS;

    fn parse(text: &str) -> snowmint::Result<Self> {
        Uuid7::parse(text)
    }

    fn of_bits(bits: u128) -> snowmint::Result<Self> {
        Uuid7::from_u128(bits)
    }

    fn bits(self) -> u128 {
        self.to_u128()
    }

    fn unix_ms(self) -> u64 {
        Uuid7::unix_ms(self)
    }

    fn random(self) -> u128 {
        Uuid7::random(self)
    }

    fn min_at(unix_ms: u64) -> snowmint::Result<Self> {
        Uuid7::min_at(unix_ms)
    }

    fn max_at(unix_ms: u64) -> snowmint::Result<Self> {
        Uuid7::max_at(unix_ms)
    }
}
