//! ID families minted on the 64-bit engine: one generator and one builder for every family.
//!
//! A family ([`Family`]: sno's [`SnoId`](crate::sno::SnoId), [`Uuid7`](crate::id128::Uuid7),
//! [`Ulid`](crate::id128::Ulid)) is an ID type and a map from an engine's state word to an ID.
//! A [`FamilyGenerator`] is an [`Engine`] (a shared [`Generator`](crate::Generator), a
//! [`LocalGenerator`](crate::LocalGenerator) or a
//! [`ShardedGenerator`](crate::shard::ShardedGenerator)) minting on the family's layout, plus
//! that map: one state word per ID, as the engine mints it, mapped by an inlined function of
//! the family. The family's own names ([`SnoGenerator`](crate::sno::SnoGenerator),
//! [`Uuid7Generator`](crate::id128::Uuid7Generator),
//! [`UlidGenerator`](crate::id128::UlidGenerator)) are this generator on each family.
//!
//! # Orderings
//!
//! None of its own: a family generator adds no atomic to the engine it wraps. Uniqueness and
//! order rest on the engine's state word (see the generator module's `# Orderings`); a minted
//! ID is a function of the state word and of what the family fixed at build. On an engine one
//! thread owns, a family may remember the current tick's first ID in a `Cell`; on one threads
//! share, each thread remembers its own in a thread-local, keyed by the generator.
//!
//! # Examples
//!
//! ```
//! use snowmint::family::{Family, FamilyGenerator};
//! use snowmint::id128::{Ulid, Uuid7};
//!
//! fn two<F: Family>() -> snowmint::Result<(F, F)> {
//!     let generator = FamilyGenerator::<F>::builder().build()?;
//!     Ok((generator.mint()?, generator.mint()?))
//! }
//!
//! let (a, b) = two::<Uuid7>()?;
//! assert!(a < b);
//! let (a, b) = two::<Ulid>()?;
//! assert!(a < b);
//! # Ok::<(), snowmint::Error>(())
//! ```

mod builder;
mod engine;
mod generator;
mod map;
mod starts;

pub use builder::FamilyBuilder;
pub use engine::Engine;
pub use generator::FamilyGenerator;
pub use map::Family;
pub(crate) use map::sealed;
#[cfg(test)]
pub(crate) use starts::Remember;
pub(crate) use starts::Starts;
