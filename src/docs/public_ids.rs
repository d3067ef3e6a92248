//! Public IDs: the sortable ID in the database, an opaque one at the API, and the way back
//! without a lookup table (feature `mask`).
//!
//! A Snowflake ID in a URL or a JSON body tells whoever reads it when the row was made, on
//! which node, and how many IDs that node minted in that millisecond; two of them tell the
//! rate at which rows are made. The database wants the opposite of opaque: IDs in time order
//! keep a B-tree's inserts at its right edge and make paging by time one range scan. The
//! pattern keeps both: **store the real ID, show the masked one, and unmask what comes back.**
//!
//! # The pattern
//!
//! 1. At startup, load the 128-bit key from the service's secrets (a file, an environment
//!    variable; `openssl rand -hex 16` makes one) and [`install`](crate::mask::install) the
//!    process's [`Masker`](crate::mask::Masker), at the width the clients need:
//!    [`MaskWidth::JS_SAFE`](crate::mask::MaskWidth::JS_SAFE) when browsers read the IDs as
//!    numbers, [`MaskWidth::BIGINT`](crate::mask::MaskWidth::BIGINT) when the masked value is
//!    stored too (an audit log, a partner's table), or
//!    [`MaskWidth::U64`](crate::mask::MaskWidth::U64) for text only.
//! 2. Rows keep the real [`Id`](crate::Id) in a `BIGINT` primary key, minted as usual.
//! 3. Response types mark their ID fields `#[serde(with = "snowmint::mask::masked")]`: the
//!    JSON shows the masked value (a decimal string), the struct holds the real ID.
//! 4. An ID that comes back (a path segment, a body, a paging cursor) is unmasked, with the
//!    same adapter for bodies or [`Masker::unmask`](crate::mask::Masker::unmask) for a path,
//!    and the query uses the real ID: `WHERE id = $1`. A value that was never shown unmasks to
//!    an ID no row has, so the lookup answers "not found", as for any unknown ID.
//! 5. Paging: the cursor is the masked ID of the page's last row; the next page is
//!    `WHERE id > $real ORDER BY id LIMIT n`, by the real ID, in time order. A window of time
//!    is [`Layout::id_range`](crate::Layout::id_range) of two
//!    [`Rfc3339`](crate::clock::Rfc3339) times the client sends, on the server: no time
//!    leaves the server inside an ID.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use snowmint::clock::Rfc3339;
//! use snowmint::mask::{self, MaskKey, MaskWidth, Masker};
//! use snowmint::{Generator, Id, Layout};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Order {
//!     #[serde(with = "snowmint::mask::masked")]
//!     id: Id,
//!     item: String,
//! }
//!
//! // 1. Startup: the key from the service's secrets (here, a fixed one).
//! let key = MaskKey::from_hex("8f3a9c2d1e4b5a6978c0d1e2f3a4b5c6")?;
//! let masker = Masker::new(&key, MaskWidth::JS_SAFE);
//! let _ = mask::install(masker.clone());
//!
//! // 2. A row, its real ID minted on a layout whose IDs fit 53 bits (41 bits of milliseconds
//! //    from 2024: until 2093).
//! let layout = Layout::builder("orders", 53)
//!     .time(41)
//!     .node("machine", 3)
//!     .sequence(9)
//!     .epoch_ms(1_704_067_200_000)
//!     .build()?;
//! let generator = Generator::builder(layout).node("machine", 1).build()?;
//! let order = Order { id: generator.mint()?, item: "tea".into() };
//!
//! // 3. The response shows the masked value only.
//! let json = serde_json::to_string(&order).unwrap();
//! assert!(!json.contains(&order.id.to_string()));
//!
//! // 4. What comes back is unmasked before the query.
//! let shown: u64 = serde_json::from_str::<serde_json::Value>(&json).unwrap()["id"]
//!     .as_str()
//!     .unwrap()
//!     .parse()
//!     .unwrap();
//! assert_eq!(masker.unmask(shown)?, order.id); // WHERE id = $1
//!
//! // 5. A time window, from the client's RFC 3339 times, as bounds on the real ID.
//! let since: Rfc3339 = "2024-05-01T00:00:00Z".parse()?;
//! let until: Rfc3339 = "2024-05-02T00:00:00Z".parse()?;
//! let window = layout.id_range(since..until).expect("inside the layout's years");
//! assert!(window.start() < window.end()); // WHERE id BETWEEN $start AND $end
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! `db-tests/` runs this pattern against a real PostgreSQL: rows stored by real ID, served
//! masked, looked up and paged through masked cursors.
//!
//! # What to know before relying on it
//!
//! The [module docs](crate::mask) say what masking hides (time, node, counts, order) and what
//! it does not: equality (the same row always shows the same value) and authentication (a
//! guessed value is told apart only by the lookup that finds no row). Keep the key as secret
//! as a session key, and plan its life: masked values carry no key ID, so a new key changes
//! every public ID; serve the new values while unmasking under both keys for as long as old
//! links should work, or keep one key for the life of the data.
//!
//! From the command line, `snowmint mask` and `snowmint unmask` do the same with the key from
//! `--key-file` or `SNOWMINT_MASK_KEY`, never from an argument.
