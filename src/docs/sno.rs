//! sno IDs: 80 bits, a metabyte per ID, and minting that does not stall when the clock goes
//! back.
//!
//! A [`SnoId`] is sno's 10-byte ID: 39 bits of 4 ms units since 2010-01-01, a tick-tock bit, a
//! metabyte, a 16-bit partition and a 16-bit sequence, big-endian. Its text form, also its
//! serde form with the `serde` feature, is 16 lowercase characters of an alphabet in ASCII
//! order, so bytes, text and time sort alike ([`SnoId`] documents the bits, the order and the
//! text). Pick it over a 64-bit layout when IDs must carry a type tag (the metabyte), when a
//! 4 ms unit needs more than 4,096 IDs (65,536 per partition), or when interoperating with sno.
//!
//! A [`SnoGenerator`] mints them on the same one-word hot path as every [`Generator`]: time,
//! tick-tock bit and sequence live in its `AtomicU64`, and the partition (required, as a node
//! field is) and the metabyte (set once, or given per ID with
//! [`SnoGenerator::mint_with_meta`]) are added to each ID. As in sno, a clock step back moves
//! minting to the other timeline instead of waiting ([`ClockBehind::TickTock`] is its
//! default, with a bounded wait only for a second step back into time already used), and
//! [`SnoGeneratorBuilder::sequence_range`] is sno's `SequenceMin`/`SequenceMax`. Snapshots
//! ([`SnoSnapshot`]) and the [`Mint`] trait work as for the other generators.
//!
//! ```
//! use snowmint::{clock::ManualClock, sno::{SnoGenerator, SnoId}};
//!
//! let clock = ManualClock::new(1_700_000_000_000);
//! let generator = SnoGenerator::builder()
//!     .partition(u16::from_be_bytes([b'A', 10]))
//!     .meta(1) // e.g. the entity type
//!     .clock(&clock)
//!     .build()?;
//! let id = generator.mint()?;
//! assert_eq!((id.meta(), id.partition(), id.timeline()), (1, 0x410a, 0));
//! let text = id.to_string(); // 16 characters, sorting like the ID
//! assert_eq!(text.parse::<SnoId>()?, id);
//! assert_eq!(generator.mint_with_meta(7)?.meta(), 7);
//!
//! // The clock steps back one second: no wait, the next ID is on the other timeline.
//! clock.set(1_699_999_999_000);
//! let after = generator.mint()?;
//! assert_eq!((after.unix_ms(), after.timeline()), (1_699_999_999_000, 1));
//! assert_ne!(after, id);
//!
//! assert_eq!(SnoId::from_bytes([0; 10]).to_string(), "2222222222222222");
//! assert_eq!(SnoId::from_bytes([0xff; 10]).to_string(), "xxxxxxxxxxxxxxxx");
//! assert_eq!(SnoId::from_bytes([0xff; 10]).time_rfc3339().to_string(), "2079-09-07T15:47:35.548Z");
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! [`ClockBehind::TickTock`]: crate::ClockBehind::TickTock
//! [`Generator`]: crate::Generator
//! [`Mint`]: crate::Mint
//! [`SnoGenerator`]: crate::sno::SnoGenerator
//! [`SnoGenerator::mint_with_meta`]: crate::sno::SnoGenerator::mint_with_meta
//! [`SnoGeneratorBuilder::sequence_range`]: crate::sno::SnoGeneratorBuilder::sequence_range
//! [`SnoId`]: crate::sno::SnoId
//! [`SnoSnapshot`]: crate::sno::SnoSnapshot
