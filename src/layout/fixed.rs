//! Layouts as types: a [`FixedLayout`] names a layout the compiler knows, so that a
//! per-thread generator of that type mints with the layout's sequence step as a constant
//! instead of a load ([`GeneratorBuilder::build_local_fixed`]).
//!
//! [`GeneratorBuilder::build_local_fixed`]: crate::GeneratorBuilder::build_local_fixed

use super::shape::Layout;

/// A layout known at compile time, as a type: a preset's (the types in this module) or any
/// layout written as a constant ([`LayoutBuilder::build_const`](super::LayoutBuilder::build_const)).
///
/// A [`LocalGenerator`](crate::LocalGenerator) of a fixed layout mints the same IDs as one of
/// the same layout given at run time; its mints between two clock ticks read one field fewer
/// (the sequence step is a constant of the code).
///
/// # Examples
///
/// ```
/// use snowmint::layout::FixedLayout;
/// use snowmint::{Generator, Layout, LocalGenerator};
///
/// /// 41 time bits, 22 sequence bits, from the Twitter epoch.
/// struct Wide;
///
/// impl FixedLayout for Wide {
///     const LAYOUT: Layout = Layout::builder("wide", 64)
///         .unused(1)
///         .time(41)
///         .sequence(22)
///         .epoch_ms(1_288_834_974_657)
///         .build_const();
/// }
///
/// let generator: LocalGenerator<_, Wide> = Generator::builder(Wide::LAYOUT).build_local_fixed()?;
/// let a = generator.mint()?;
/// assert!(generator.mint()? > a);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait FixedLayout: 'static {
    /// The layout.
    const LAYOUT: Layout;
}

/// A generator's layout as its type knows it: [`AnyLayout`] for a layout given at run time,
/// or any [`FixedLayout`]. Sealed: implemented for exactly those.
pub trait LayoutKind: seal::Kind {}

/// The layout of a generator whose type does not fix one: given at run time, to the builder.
/// The default of [`LocalGenerator`](crate::LocalGenerator)'s layout parameter.
#[derive(Debug)]
pub enum AnyLayout {}

impl seal::Kind for AnyLayout {
    const SEQUENCE_STEP: u64 = 0;
}

impl LayoutKind for AnyLayout {}

impl<L: FixedLayout> seal::Kind for L {
    const SEQUENCE_STEP: u64 = 1 << L::LAYOUT.sequence_field().shift();
}

impl<L: FixedLayout> LayoutKind for L {}

pub(crate) mod seal {
    /// What a generator's code may take as a constant of its layout.
    pub trait Kind: 'static {
        /// One step of the sequence field, in ID coordinates; 0 when the layout is not known
        /// at compile time.
        const SEQUENCE_STEP: u64;
    }
}

macro_rules! presets {
    ($($(#[$doc:meta])* $name:ident = $layout:ident;)*) => {
        $(
            $(#[$doc])*
            #[derive(Debug)]
            pub enum $name {}

            impl FixedLayout for $name {
                const LAYOUT: Layout = Layout::$layout;
            }
        )*
    };
}

presets! {
    /// [`Layout::TWITTER`] as a type.
    Twitter = TWITTER;
    /// [`Layout::DISCORD`] as a type.
    Discord = DISCORD;
    /// [`Layout::INSTAGRAM`] as a type.
    Instagram = INSTAGRAM;
    /// [`Layout::MASTODON`] as a type.
    Mastodon = MASTODON;
    /// [`Layout::SONYFLAKE`] as a type.
    Sonyflake = SONYFLAKE;
    /// [`Layout::SNOWFLAKE_SI`] as a type.
    SnowflakeSi = SNOWFLAKE_SI;
    /// [`Layout::OSMIUM`] as a type.
    Osmium = OSMIUM;
}
