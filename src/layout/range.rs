//! Paging by time: the inclusive range of IDs that can carry a range of times.

use std::ops::{Bound, RangeBounds, RangeInclusive};
use std::time::{SystemTime, UNIX_EPOCH};

use super::field::low_bits;
use super::shape::Layout;
use crate::clock::Rfc3339;
use crate::id::Id;

/// A time [`Layout::id_range`] (and the 128-bit IDs' `id_range`) takes: Unix milliseconds as
/// a `u64`, a [`SystemTime`], or an [`Rfc3339`] time.
///
/// Sealed: implemented for these three types only.
pub trait UnixTime: sealed::Sealed {
    /// The time as whole Unix milliseconds rounded down (negative before 1970), and whether
    /// it was exactly that millisecond.
    #[doc(hidden)]
    fn floor_unix_ms(&self) -> (i128, bool);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for std::time::SystemTime {}
    impl Sealed for crate::clock::Rfc3339 {}
}

impl UnixTime for u64 {
    fn floor_unix_ms(&self) -> (i128, bool) {
        (i128::from(*self), true)
    }
}

impl UnixTime for Rfc3339 {
    fn floor_unix_ms(&self) -> (i128, bool) {
        self.0.floor_unix_ms()
    }
}

impl UnixTime for SystemTime {
    fn floor_unix_ms(&self) -> (i128, bool) {
        let nanos = match self.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_nanos() as i128,
            Err(before) => -(before.duration().as_nanos() as i128),
        };
        (
            nanos.div_euclid(1_000_000),
            nanos.rem_euclid(1_000_000) == 0,
        )
    }
}

impl Layout {
    /// The inclusive range of IDs that can carry a time in `times`, clamped to the layout: from
    /// the smallest ID of the first tick that holds such a time to the largest ID of the last.
    ///
    /// `times` is any range of Unix milliseconds (`u64`), of [`SystemTime`]s or of
    /// [`Rfc3339`] times: `t0..t1`,
    /// `t0..=t1`, `t0..`, `..t1`, `..`. An open end, or one before the epoch or past the
    /// layout's last tick, stops at the layout's first or last ID. A time inside a tick stands
    /// for the whole tick (a `sonyflake` tick is 10 ms), so the range can hold IDs minted up to
    /// one tick outside `times`, never fewer than those inside it. In a layout with a tick-tock
    /// bit the range covers both timelines.
    ///
    /// For pagination: `WHERE id BETWEEN start AND end`, or `id >= start AND id <= end`.
    ///
    /// Returns `None` when no ID can carry a time in `times`: the range is empty, ends before
    /// the epoch, or starts past the layout's last tick.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let t0 = 1_656_432_460_000; // 2022-06-28T16:07:40Z
    /// let tweet = Layout::TWITTER.parse("1541815603606036480")?; // minted at t0 + 105 ms
    /// let ids = Layout::TWITTER.id_range(t0..t0 + 1_000).unwrap();
    /// assert!(ids.contains(&tweet));
    /// assert_eq!(*ids.start(), Layout::TWITTER.min_id_at(t0)?);
    /// assert_eq!(*ids.end(), Layout::TWITTER.max_id_at(t0 + 999)?);
    ///
    /// // The same window as `SystemTime`s.
    /// let at = UNIX_EPOCH + Duration::from_millis(t0);
    /// assert_eq!(Layout::TWITTER.id_range(at..at + Duration::from_secs(1)), Some(ids));
    ///
    /// // Open ends and times before the epoch clamp to the layout.
    /// let all = Layout::TWITTER.id_range::<u64>(..).unwrap();
    /// assert_eq!((all.start().to_u64(), *all.end()), (0, Layout::TWITTER.max_id()));
    /// assert_eq!(Layout::TWITTER.id_range(0..=t0).unwrap().start().to_u64(), 0);
    ///
    /// // Nothing can carry an empty range, or one wholly before the epoch.
    /// assert_eq!(Layout::TWITTER.id_range(t0..t0), None);
    /// assert_eq!(Layout::TWITTER.id_range(..1_000), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn id_range<T: UnixTime>(&self, times: impl RangeBounds<T>) -> Option<RangeInclusive<Id>> {
        let (first_ms, last_ms) = ms_window(&times)?;
        let (epoch, tick) = (i128::from(self.epoch_ms), i128::from(self.tick_ms));
        let max_ticks = i128::from(self.max_ticks());
        if last_ms < epoch {
            return None;
        }
        let first_tick = (first_ms.max(epoch) - epoch) / tick;
        let last_tick = ((last_ms - epoch) / tick).min(max_ticks);
        if first_tick > max_ticks {
            return None;
        }
        // Both ticks are in 0..=max_ticks, so they fit the time field.
        let shift = self.time_field().shift();
        let below_time = self.max_id().to_u64() & low_bits(shift);
        let start = Id::from_u64((first_tick as u64) << shift);
        let end = Id::from_u64((last_tick as u64) << shift | below_time);
        Some(start..=end)
    }
}

/// The first and last whole Unix milliseconds that hold a time in `times` (`i128::MIN` and
/// `i128::MAX` for open ends), `None` when no millisecond does.
pub(crate) fn ms_window<T: UnixTime>(times: &impl RangeBounds<T>) -> Option<(i128, i128)> {
    let first_ms = match times.start_bound() {
        Bound::Included(t) => t.floor_unix_ms().0,
        Bound::Excluded(t) => match t.floor_unix_ms() {
            (ms, true) => ms + 1,
            (ms, false) => ms,
        },
        Bound::Unbounded => i128::MIN,
    };
    let last_ms = match times.end_bound() {
        Bound::Included(t) => t.floor_unix_ms().0,
        Bound::Excluded(t) => match t.floor_unix_ms() {
            (ms, true) => ms - 1,
            (ms, false) => ms,
        },
        Bound::Unbounded => i128::MAX,
    };
    (first_ms <= last_ms).then_some((first_ms, last_ms))
}
