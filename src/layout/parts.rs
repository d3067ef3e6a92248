//! An ID decoded under its layout: [`Parts`].

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::shape::Layout;
use crate::clock::Rfc3339;
use crate::id::Id;

/// An ID decoded under its layout: time, node fields and sequence.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, Layout};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
/// assert_eq!(parts.unix_ms(), 1_462_015_105_796);
/// assert_eq!(parts.time(), UNIX_EPOCH + Duration::from_millis(1_462_015_105_796));
/// assert_eq!(parts.node("worker"), Some(1));
/// assert_eq!(parts.node("process"), Some(0));
/// assert_eq!(parts.sequence(), 7);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts<'l> {
    layout: &'l Layout,
    id: Id,
}

impl<'l> Parts<'l> {
    pub(crate) fn new(layout: &'l Layout, id: Id) -> Self {
        Parts { layout, id }
    }

    /// The ID.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let id = Id::from_u64(175_928_847_299_117_063);
    /// assert_eq!(Layout::DISCORD.decode(id)?.id(), id);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    /// The layout it was decoded under.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.layout(), &Layout::DISCORD);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn layout(&self) -> &'l Layout {
        self.layout
    }

    /// Ticks since the layout's epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.ticks(), 1_462_015_105_796 - Layout::DISCORD.epoch_ms());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn ticks(&self) -> u64 {
        self.layout.time_field().get(self.id.to_u64())
    }

    /// The time the ID carries, in Unix milliseconds (the start of its tick).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.unix_ms(), 1_462_015_105_796);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn unix_ms(&self) -> u64 {
        self.layout.unix_ms_of(self.id)
    }

    /// The time the ID carries, as a `SystemTime`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.time(), UNIX_EPOCH + Duration::from_millis(1_462_015_105_796));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn time(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_ms())
    }

    /// The time the ID carries, displayed as RFC 3339 in UTC with milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.time_rfc3339().to_string(), "2016-04-30T11:18:25.796Z");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn time_rfc3339(&self) -> impl fmt::Display + use<> {
        Rfc3339(self.unix_ms())
    }

    /// The sequence number.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.sequence(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn sequence(&self) -> u64 {
        self.layout.sequence_field().get(self.id.to_u64())
    }

    /// The timeline (the tick-tock bit: 0 or 1), or `None` if the layout has no tick-tock bit.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let tt = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12)
    ///     .epoch_ms(1_288_834_974_657).build()?;
    /// let bit = tt.tick_tock_field().unwrap().mask();
    /// assert_eq!(tt.decode(Id::from_u64(5 << 23 | bit))?.timeline(), Some(1));
    /// assert_eq!(Layout::TWITTER.decode(Id::from_u64(5 << 22))?.timeline(), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn timeline(&self) -> Option<u64> {
        self.layout
            .tick_tock_field()
            .map(|f| f.get(self.id.to_u64()))
    }

    /// The value of the node field called `name`, or `None` if the layout has no such field.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.node("worker"), Some(1));
    /// assert_eq!(parts.node("machine"), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn node(&self, name: &str) -> Option<u64> {
        self.layout
            .node_field(name)
            .map(|f| f.get(self.id.to_u64()))
    }

    /// Every node field as `(name, value)`, most significant first.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
    /// assert_eq!(parts.nodes().collect::<Vec<_>>(), [("worker", 1), ("process", 0)]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn nodes(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.layout
            .node_fields()
            .map(|f| (f.name(), f.get(self.id.to_u64())))
    }
}

impl fmt::Debug for Parts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Parts");
        s.field("id", &self.id.to_u64())
            .field("layout", &self.layout.name())
            .field("time", &format_args!("{}", self.time_rfc3339()))
            .field("unix_ms", &self.unix_ms());
        if let Some(timeline) = self.timeline() {
            s.field("timeline", &timeline);
        }
        for (name, value) in self.nodes() {
            s.field(name, &value);
        }
        s.field("sequence", &self.sequence()).finish()
    }
}

impl fmt::Display for Parts<'_> {
    /// `1541815603606036480 (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=0)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} {}",
            self.id,
            self.layout.name(),
            self.time_rfc3339()
        )?;
        if let Some(timeline) = self.timeline() {
            write!(f, " timeline={timeline}")?;
        }
        for (name, value) in self.nodes() {
            write!(f, " {name}={value}")?;
        }
        write!(f, " sequence={})", self.sequence())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_of_parts_lists_every_field() {
        let parts = Layout::DISCORD
            .decode(Id::from_u64(175_928_847_299_117_063))
            .unwrap();
        assert_eq!(
            parts.to_string(),
            "175928847299117063 (discord 2016-04-30T11:18:25.796Z worker=1 process=0 sequence=7)"
        );
    }
}
