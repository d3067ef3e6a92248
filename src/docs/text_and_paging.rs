//! IDs as text, in JSON, in database columns (`BIGINT`, `uuid`, `BLOB`), and paging by ID.
//!
//! # Text forms
//!
//! An [`Id`] displays and parses as decimal; [`Id::encode`] and [`Encoding::decode`] add
//! base36 (Nanoflake's form), Crockford base32, base62 and hex. The fixed-width forms
//! (base32, base62, hex) sort as text the way the IDs sort as numbers, so a text column keeps
//! time order and range scans; [`Encoding`]'s table gives each form's width, alphabet and
//! case rules. Encoding never allocates (it returns a stack value that displays as the text);
//! a decoding error names the bad character and its position, the length found and expected,
//! or the largest ID the form holds.
//!
//! ```
//! use snowmint::{Layout, encoding::Encoding};
//!
//! let tweet = Layout::TWITTER.parse("1541815603606036480")?;
//! assert_eq!(tweet.encode(Encoding::Base36).as_str(), "bppc0m3ju134");
//! assert_eq!(tweet.encode(Encoding::Base32).as_str(), "1ASD13XH1F800");
//! assert_eq!(tweet.encode(Encoding::Base62).as_str(), "1ptWyK4WgZU");
//! assert_eq!(tweet.encode(Encoding::Hex).as_str(), "1565a11f6217a000");
//! assert_eq!(Encoding::Base32.decode("1asd13xh1f8oo")?, tweet); // case and O/0 forgiven
//!
//! let err = Encoding::Base62.decode("1ptWyK4W-ZU").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "invalid base62 id \"1ptWyK4W-ZU\": '-' at position 8 is not a base62 digit (0-9, A-Z, a-z)"
//! );
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! # JSON (feature `serde`)
//!
//! An [`Id`] serializes as a decimal string in JSON and other human-readable formats (as
//! Discord sends its IDs: JavaScript numbers are doubles and would round a 64-bit ID), and as
//! a `u64` in binary formats. Deserializing accepts a string or a number. A field opts into
//! numbers with `#[serde(with = "snowmint::serde_id::number")]`: safe only for a layout whose
//! every ID is at most 2^53 − 1 ([`Layout::is_js_safe`]). Of the presets only `snowflake-si`
//! is; the others pass 2^53 − 1 at most two months after their epoch (`mastodon`, whose
//! epoch is 1970's, in 1974).
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use serde::{Deserialize, Serialize};
//! use snowmint::{Id, Layout};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Message {
//!     id: Id,
//!     #[serde(with = "snowmint::serde_id::number")]
//!     channel: Id,
//! }
//!
//! let message = Message { id: Id::from_u64(1_541_815_603_606_036_480), channel: Id::from_u64(42) };
//! assert_eq!(
//!     serde_json::to_string(&message).unwrap(),
//!     r#"{"id":"1541815603606036480","channel":42}"#
//! );
//! let read: Message = serde_json::from_str(r#"{"id":1541815603606036480,"channel":"42"}"#).unwrap();
//! assert_eq!(read.id, message.id);
//! assert!(Layout::SNOWFLAKE_SI.is_js_safe() && !Layout::TWITTER.is_js_safe());
//! # }
//! ```
//!
//! # Storing as `BIGINT`
//!
//! SQL's `BIGINT` (PostgreSQL, MySQL's signed `BIGINT`, SQLite's `INTEGER`) is a signed 64-bit
//! integer. [`Id::to_i64`] gives an ID's value for such a column and fails for an ID above
//! `i64::MAX`; [`Id::from_i64`] reads it back and refuses a negative value. A layout whose top
//! bit is unused, or that is narrower than 64 bits, never sets it; a layout whose top bit is
//! its time field's sets it once half the time field has passed, `2^(time bits − 1)` ticks
//! after its epoch, and every ID from then on is above `i64::MAX`:
//!
//! | preset | IDs pass `i64::MAX` from | the layout's last tick (then [`Error::TimeOverflow`]) | store as |
//! |---|---|---|---|
//! | `twitter` | never (1 unused bit) | 2080-07-10T17:30:30.208Z | `BIGINT` |
//! | `sonyflake` | never (1 unused bit) | 2188-11-16T03:28:58.870Z | `BIGINT` |
//! | `nanoflake` | never (1 unused bit) | 2^41 − 1 ms after its epoch (69.7 years) | `BIGINT` |
//! | `snowflake-si` | never (53 bits) | 2054-11-03T19:53:47.775Z with its default epoch; 2^40 − 1 ms after the epoch | `BIGINT` |
//! | `instagram` | 2045-11-03T19:53:47.776Z | 2080-09-06T15:47:35.551Z | `NUMERIC(20)` or text for rows kept past 2045 |
//! | `discord` | 2084-09-06T15:47:35.552Z | 2154-05-15T07:35:11.103Z | `BIGINT` while no row outlives 2084 |
//! | `osmium` | 2091-09-07T15:47:35.552Z with its default epoch (2022); 2^41 ms after the epoch | 2161-05-15T07:35:11.103Z with its default epoch | `BIGINT` while no row outlives 2091 |
//! | `mastodon` | 6429-10-17T02:45:55.328Z | 10889-08-02T05:31:50.655Z | `BIGINT` |
//!
//! For IDs that pass it, choose the column before the first such ID is minted: changing a
//! primary key's type later rewrites the table and every index on it. Columns that hold every
//! `u64` and sort like the IDs:
//!
//! - an unsigned 64-bit integer where there is one (MySQL's `BIGINT UNSIGNED`);
//! - `NUMERIC(20)` (PostgreSQL, MySQL's `DECIMAL(20)`): write the decimal text form
//!   (`$1::numeric` with `id.to_string()`), read `id::text` and parse it;
//! - fixed-width text ([Text forms](#text-forms)): base32 (13 characters, Crockford's
//!   upper-case alphabet) or hex (16) sort as text the way the IDs sort as numbers under a
//!   byte-order collation (PostgreSQL's `COLLATE "C"`, SQLite's default `BINARY`, MySQL's
//!   `ascii_bin`); base62 mixes cases, so only under such a collation.
//!
//! ```
//! use snowmint::{Id, Layout};
//!
//! let tweet = Layout::TWITTER.parse("1541815603606036480")?;
//! let column: i64 = tweet.to_i64()?;
//! assert_eq!(Id::from_i64(column)?, tweet);
//! assert!(Layout::TWITTER.max_id().to_i64().is_ok()); // every twitter ID fits
//!
//! // instagram's IDs pass i64::MAX at 2045-11-03T19:53:47.776Z: its epoch plus 2^40 ms.
//! let from = Layout::INSTAGRAM.epoch_ms() + (1 << 40);
//! assert_eq!(from, 2_393_351_627_776);
//! assert!(Layout::INSTAGRAM.max_id_at(from - 1)?.to_i64().is_ok());
//! assert!(Layout::INSTAGRAM.min_id_at(from)?.to_i64().is_err());
//! let discord = Layout::DISCORD.epoch_ms() + (1 << 41);
//! let osmium = Layout::OSMIUM.epoch_ms() + (1 << 41);
//! assert_eq!(Layout::DISCORD.decode(Layout::DISCORD.min_id_at(discord)?)?.time_rfc3339().to_string(), "2084-09-06T15:47:35.552Z");
//! assert_eq!(Layout::OSMIUM.decode(Layout::OSMIUM.min_id_at(osmium)?)?.time_rfc3339().to_string(), "2091-09-07T15:47:35.552Z");
//! assert!(Layout::DISCORD.max_id_at(discord - 1)?.to_i64().is_ok());
//! assert!(Layout::OSMIUM.min_id_at(osmium)?.to_i64().is_err());
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
#![cfg_attr(not(doctest), doc = include_str!("database_types.md"))]
//!
//! # Paging by ID
//!
//! IDs sort by time, so an ID column pages without a time column.
//! [`Layout::id_range`]`(times)` turns a range of times (Unix milliseconds or
//! [`SystemTime`](std::time::SystemTime)s, `t0..t1`, `t0..=t1`, `t0..`, `..t1`) into the
//! inclusive range of IDs that can carry them, clamped to the layout: an open end, or one
//! before the epoch or past the last tick, stops at the layout's first or last ID. It is
//! `None` when no ID can carry a time of the range (empty, or wholly outside the layout).
//!
//! [`Layout::min_id_at`]`(t)` and [`Layout::max_id_at`]`(t)` are the smallest and largest ID
//! of one time's tick, every lower field zero or full; they are an error for a time outside
//! the layout. The CLI's `snowmint bounds` prints both for a time.
//!
//! ```
//! use snowmint::Layout;
//!
//! let t0 = 1_656_432_460_000; // 2022-06-28T16:07:40Z
//! let tweet = Layout::TWITTER.parse("1541815603606036480")?; // minted at t0 + 105 ms
//! let ids = Layout::TWITTER.id_range(t0..t0 + 1_000).unwrap();
//! assert!(ids.contains(&tweet));
//! // SELECT * FROM tweets WHERE id BETWEEN $1 AND $2 ORDER BY id  -- $1 = start, $2 = end
//! assert_eq!(
//!     (ids.start().to_i64()?, ids.end().to_i64()?),
//!     (1_541_815_603_164_086_272, 1_541_815_607_358_390_271)
//! );
//! // Everything up to t0, with no special case for the open start.
//! let before = Layout::TWITTER.id_range(..t0).unwrap();
//! assert_eq!((before.start().to_u64(), before.end().to_u64() + 1), (0, ids.start().to_u64()));
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! [`Encoding`]: crate::encoding::Encoding
//! [`Encoding::decode`]: crate::encoding::Encoding::decode
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId
//! [`Error::ParseId`]: crate::Error::ParseId
//! [`Error::TimeOverflow`]: crate::Error::TimeOverflow
//! [`Id`]: crate::Id
//! [`Id::encode`]: crate::Id::encode
//! [`Id::from_i64`]: crate::Id::from_i64
//! [`Id::to_i64`]: crate::Id::to_i64
//! [`Layout::is_js_safe`]: crate::Layout::is_js_safe
//! [`Layout::id_range`]: crate::Layout::id_range
//! [`Layout::max_id_at`]: crate::Layout::max_id_at
//! [`Layout::min_id_at`]: crate::Layout::min_id_at
//! [`Ulid`]: crate::id128::Ulid
//! [`Uuid7`]: crate::id128::Uuid7
//! [`Uuid7::max_at`]: crate::id128::Uuid7::max_at
//! [`Uuid7::min_at`]: crate::id128::Uuid7::min_at
