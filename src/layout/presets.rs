//! The presets: the layouts of the source documents, and [`Layout::preset`] by name.

use super::builder::LayoutBuilder;
use super::shape::Layout;
use crate::error::{Error, Result, bounded};

/// [`Layout::PRESETS`] on one line, the `expected` of [`Error::UnknownLayout`].
const PRESETS_LISTED: &str =
    "twitter, discord, instagram, mastodon, sonyflake, nanoflake, snowflake-si, osmium";

impl Layout {
    /// The presets: the names [`preset`](Self::preset) accepts, in the order of the README's
    /// table. A slice, as [`Encoding::ALL`](crate::encoding::Encoding::ALL) lists the text
    /// forms; a name rather than a layout, since `nanoflake`'s epoch is the application's.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// for &name in Layout::PRESETS {
    ///     let epoch_ms = if name == "nanoflake" { Some(0) } else { None };
    ///     assert_eq!(Layout::preset(name, epoch_ms)?.name(), name);
    /// }
    /// assert_eq!(Layout::PRESETS[0], "twitter");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const PRESETS: &'static [&'static str] = &[
        "twitter",
        "discord",
        "instagram",
        "mastodon",
        "sonyflake",
        "nanoflake",
        "snowflake-si",
        "osmium",
    ];

    /// Twitter: 1 unused sign bit, 41 time, 10 machine, 12 sequence; 1 ms; epoch 1288834974657.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::TWITTER.decode(Id::from_u64(1_541_815_603_606_036_480))?;
    /// assert_eq!((parts.unix_ms(), parts.node("machine")), (1_656_432_460_105, Some(378)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const TWITTER: Layout = Layout::builder("twitter", 64)
        .unused(1)
        .time(41)
        .node("machine", 10)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    /// Discord: 42 time, 5 worker, 5 process, 12 sequence; 1 ms; epoch 1420070400000 (2015).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!((parts.unix_ms(), parts.node("worker")), (1_462_015_105_796, Some(1)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const DISCORD: Layout = Layout::builder("discord", 64)
        .time(42)
        .node("worker", 5)
        .node("process", 5)
        .sequence(12)
        .epoch_ms(1_420_070_400_000)
        .build_const();

    /// Instagram: 41 time, 13 shard, 10 sequence; 1 ms; epoch 1293840000000 (2011).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::INSTAGRAM.node_field("shard").unwrap().max(), 8191);
    /// assert_eq!(Layout::INSTAGRAM.max_sequence(), 1023);
    /// ```
    pub const INSTAGRAM: Layout = Layout::builder("instagram", 64)
        .time(41)
        .node("shard", 13)
        .sequence(10)
        .epoch_ms(1_293_840_000_000)
        .build_const();

    /// Mastodon: 48 time, 16 sequence; 1 ms; the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::MASTODON.node_fields().count(), 0);
    /// assert_eq!((Layout::MASTODON.epoch_ms(), Layout::MASTODON.max_sequence()), (0, 65_535));
    /// ```
    pub const MASTODON: Layout = Layout::builder("mastodon", 64)
        .time(48)
        .sequence(16)
        .epoch_ms(0)
        .build_const();

    /// Sonyflake: 1 unused, 39 time, 8 sequence, 16 machine; 10 ms; epoch 1409529600000 (2014-09-01).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!((Layout::SONYFLAKE.tick_ms(), Layout::SONYFLAKE.max_sequence()), (10, 255));
    /// assert_eq!(Layout::SONYFLAKE.node_field("machine").unwrap().shift(), 0); // below the sequence
    /// ```
    pub const SONYFLAKE: Layout = Layout::builder("sonyflake", 64)
        .unused(1)
        .time(39)
        .sequence(8)
        .node("machine", 16)
        .tick_ms(10)
        .epoch_ms(1_409_529_600_000)
        .build_const();

    /// Snowflake-SI with its default epoch: 53 bits, JavaScript-safe: 40 time, 5 machine,
    /// 8 sequence; 1 ms; epoch 1577836800000 (2020). Use [`with_epoch_ms`](Self::with_epoch_ms)
    /// for another epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, layout::JS_MAX_SAFE_INTEGER};
    ///
    /// assert_eq!(Layout::SNOWFLAKE_SI.max_id().to_u64(), JS_MAX_SAFE_INTEGER);
    /// assert_eq!(Layout::SNOWFLAKE_SI.epoch_ms(), 1_577_836_800_000);
    /// ```
    pub const SNOWFLAKE_SI: Layout = Layout::builder("snowflake-si", 53)
        .time(40)
        .node("machine", 5)
        .sequence(8)
        .epoch_ms(1_577_836_800_000)
        .build_const();

    /// The chat protocol's layout with its default epoch: 42 time, 5 worker, 5 process,
    /// 12 sequence, all 64 bits unsigned; 1 ms; epoch 1640995200000 (2022).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::OSMIUM.max_id().to_u64(), u64::MAX); // all 64 bits
    /// assert_eq!(Layout::OSMIUM.epoch_ms(), 1_640_995_200_000);
    /// ```
    pub const OSMIUM: Layout = Layout::builder("osmium", 64)
        .time(42)
        .node("worker", 5)
        .node("process", 5)
        .sequence(12)
        .epoch_ms(1_640_995_200_000)
        .build_const();

    /// Nanoflake: 1 unused, 41 time, 10 generator, 12 sequence; 1 ms; the epoch the application
    /// chooses.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayout`] when the epoch is so late that the last representable time
    /// passes `u64::MAX` milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::nanoflake(1_700_000_000_000)?;
    /// assert_eq!(layout.epoch_ms(), 1_700_000_000_000);
    /// assert_eq!(layout.node_field("generator").unwrap().max(), 1023);
    /// assert!(Layout::nanoflake(u64::MAX).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn nanoflake(epoch_ms: u64) -> Result<Layout> {
        Layout::builder("nanoflake", 64)
            .unused(1)
            .time(41)
            .node("generator", 10)
            .sequence(12)
            .epoch_ms(epoch_ms)
            .build()
    }

    /// A preset by name, with the epoch rules of the README's table.
    ///
    /// `twitter`, `discord`, `instagram`, `mastodon` and `sonyflake` have fixed epochs and take
    /// none; `nanoflake` needs one; `snowflake-si` and `osmium` take one or use their default.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownLayout`] for a name not in [`PRESETS`](Self::PRESETS),
    /// [`Error::EpochFixed`] for an epoch given to a fixed-epoch preset,
    /// [`Error::EpochRequired`] for `nanoflake` without one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::preset("discord", None)?, Layout::DISCORD);
    /// assert_eq!(Layout::preset("osmium", Some(0))?.epoch_ms(), 0);
    /// assert!(Layout::preset("nanoflake", None).is_err());
    /// assert!(Layout::preset("twitter", Some(0)).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn preset(name: &str, epoch_ms: Option<u64>) -> Result<Layout> {
        let fixed = match name {
            "twitter" => Layout::TWITTER,
            "discord" => Layout::DISCORD,
            "instagram" => Layout::INSTAGRAM,
            "mastodon" => Layout::MASTODON,
            "sonyflake" => Layout::SONYFLAKE,
            "snowflake-si" => return Layout::SNOWFLAKE_SI.with_epoch_or_default(epoch_ms),
            "osmium" => return Layout::OSMIUM.with_epoch_or_default(epoch_ms),
            "nanoflake" => {
                let epoch_ms = epoch_ms.ok_or(Error::EpochRequired {
                    layout: "nanoflake",
                })?;
                return Layout::nanoflake(epoch_ms);
            }
            _ => {
                return Err(Error::UnknownLayout {
                    name: bounded(name),
                    expected: PRESETS_LISTED,
                });
            }
        };
        match epoch_ms {
            Some(given_ms) if given_ms != fixed.epoch_ms => Err(Error::EpochFixed {
                layout: fixed.name,
                epoch_ms: fixed.epoch_ms,
                given_ms,
            }),
            _ => Ok(fixed),
        }
    }

    fn with_epoch_or_default(self, epoch_ms: Option<u64>) -> Result<Layout> {
        match epoch_ms {
            Some(epoch_ms) => self.with_epoch_ms(epoch_ms),
            None => Ok(self),
        }
    }

    /// The same layout with another epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let si = Layout::SNOWFLAKE_SI.with_epoch_ms(1_700_000_000_000)?;
    /// assert_eq!(si.epoch_ms(), 1_700_000_000_000);
    /// assert_eq!(si.fields(), Layout::SNOWFLAKE_SI.fields());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayout`] when the last representable time would pass `u64::MAX` ms.
    pub fn with_epoch_ms(self, epoch_ms: u64) -> Result<Layout> {
        LayoutBuilder::of(&self).epoch_ms(epoch_ms).build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_presets_are_the_presets() {
        assert_eq!(Layout::PRESETS.join(", "), PRESETS_LISTED);
    }
}
