//! [`SequenceRanges`]: one node ID's sequence cut into disjoint ranges, one per generator.

use std::ops::RangeInclusive;

use crate::error::{Error, Result};
use crate::layout::Layout;

/// The most parts [`SequenceRanges::split_range`] cuts a range into, and the most shards a
/// [`ShardedGenerator`] or [`GeneratorBuilder::build_local_shards`] builds: each is a
/// generator of its own, and a count beyond this is a mistake, not a deployment.
///
/// [`ShardedGenerator`]: crate::shard::ShardedGenerator
/// [`GeneratorBuilder::build_local_shards`]: crate::GeneratorBuilder::build_local_shards
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, shard::{MAX_PARTS, SequenceRanges}};
///
/// let wide = Layout::builder("wide", 64).time(40).sequence(24).build()?;
/// assert_eq!(SequenceRanges::split(&wide, MAX_PARTS)?.len(), MAX_PARTS);
/// assert!(SequenceRanges::split(&wide, MAX_PARTS + 1).is_err());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub const MAX_PARTS: usize = 1 << 16;

/// Disjoint, non-empty ranges of one layout's sequence values, one per generator that shares
/// a node ID with the others.
///
/// [`split`](Self::split) cuts a range into k parts whose sizes differ by at most one;
/// [`new`](Self::new) checks ranges chosen by hand. Either way every range is non-empty and
/// inside the layout's sequence field, and no two overlap.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::SequenceRanges};
///
/// let ranges = SequenceRanges::split(&Layout::TWITTER, 3)?;
/// assert_eq!(ranges.as_slice(), [0..=1365, 1366..=2730, 2731..=4095]);
///
/// // One generator per range, all with machine 7: their IDs never collide.
/// let generators = ranges
///     .iter()
///     .map(|range| {
///         Generator::builder(Layout::TWITTER).node("machine", 7).sequence_range(range.clone()).build()
///     })
///     .collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(generators.len(), 3);
///
/// let err = SequenceRanges::new(&Layout::TWITTER, [0..=99, 50..=199]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "sequence ranges 0..=99 and 50..=199 for layout twitter overlap; expected disjoint ranges"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceRanges {
    ranges: Vec<RangeInclusive<u64>>,
}

impl SequenceRanges {
    /// Splits the layout's whole sequence field into `parts` disjoint ranges, in order.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShards`] when `parts` is 0 or more than the field has values.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 4)?;
    /// assert_eq!(ranges.as_slice()[3], 3072..=4095);
    /// assert!(SequenceRanges::split(&Layout::TWITTER, 0).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn split(layout: &Layout, parts: usize) -> Result<SequenceRanges> {
        Self::split_range(layout, 0..=layout.max_sequence(), parts)
    }

    /// Splits `range` of the layout's sequence values into `parts` disjoint ranges, in order;
    /// the first `len % parts` ranges hold one value more than the others.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSequenceRange`] for an empty range or one past the sequence field, and
    /// [`Error::InvalidShards`] when `parts` is 0, more than the range has values, or more than
    /// [`MAX_PARTS`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// // This process owns the upper half of machine 3's sequence; split it between 2 shards.
    /// let ranges = SequenceRanges::split_range(&Layout::TWITTER, 2048..=4095, 2)?;
    /// assert_eq!(ranges.as_slice(), [2048..=3071, 3072..=4095]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn split_range(
        layout: &Layout,
        range: RangeInclusive<u64>,
        parts: usize,
    ) -> Result<SequenceRanges> {
        let range = layout.check_sequence_range(&range)?;
        let (start, end) = (*range.start(), *range.end());
        // At most 2^63 values: a sequence field is narrower than the whole ID.
        let values = end - start + 1;
        // Checked before anything is allocated: at most one part per value, and at most
        // `MAX_PARTS` parts.
        let most = values.min(MAX_PARTS as u64);
        let Some(count) = u64::try_from(parts)
            .ok()
            .filter(|&n| (1..=most).contains(&n))
        else {
            return Err(Error::InvalidShards {
                layout: layout.name(),
                reason: format!(
                    "cannot split the {values} sequence values {start}..={end} into {parts} \
                     non-empty ranges; expected 1..={most} parts"
                ),
            });
        };
        let (size, extra) = (values / count, values % count);
        let mut next = start;
        let ranges = (0..count)
            .map(|i| {
                let len = size + u64::from(i < extra);
                let part = next..=next + len - 1;
                next += len;
                part
            })
            .collect();
        Ok(SequenceRanges { ranges })
    }

    /// Checks ranges chosen by hand: each non-empty and inside the layout's sequence field,
    /// no two sharing a value. The order given is kept.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSequenceRange`] for an empty range or one past the sequence field,
    /// [`Error::SequenceRangesOverlap`] naming two ranges that share a value, and
    /// [`Error::InvalidShards`] for no ranges at all.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::new(&Layout::TWITTER, [1024..=4095, 0..=1023])?;
    /// assert_eq!(ranges.as_slice(), [1024..=4095, 0..=1023]); // the order given
    /// assert!(SequenceRanges::new(&Layout::TWITTER, [0..=4096]).is_err()); // past the field
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn new(
        layout: &Layout,
        ranges: impl IntoIterator<Item = RangeInclusive<u64>>,
    ) -> Result<SequenceRanges> {
        let ranges = ranges
            .into_iter()
            .map(|range| layout.check_sequence_range(&range))
            .collect::<Result<Vec<_>>>()?;
        if ranges.is_empty() {
            return Err(Error::InvalidShards {
                layout: layout.name(),
                reason: "no sequence ranges were given; expected at least one".to_owned(),
            });
        }
        let mut sorted: Vec<&RangeInclusive<u64>> = ranges.iter().collect();
        sorted.sort_by_key(|range| range.start());
        if let Some(pair) = sorted
            .windows(2)
            .find(|pair| pair[1].start() <= pair[0].end())
        {
            return Err(Error::SequenceRangesOverlap {
                layout: layout.name(),
                first: pair[0].clone(),
                second: pair[1].clone(),
            });
        }
        Ok(SequenceRanges { ranges })
    }

    /// The ranges, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 2)?;
    /// assert_eq!(ranges.as_slice(), [0..=2047, 2048..=4095]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn as_slice(&self) -> &[RangeInclusive<u64>] {
        &self.ranges
    }

    /// An iterator over the ranges, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 3)?;
    /// let sizes: Vec<u64> = ranges.iter().map(|r| r.end() - r.start() + 1).collect();
    /// assert_eq!(sizes, [1366, 1365, 1365]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, RangeInclusive<u64>> {
        self.ranges.iter()
    }

    /// How many ranges there are (at least one).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// assert_eq!(SequenceRanges::split(&Layout::TWITTER, 5)?.len(), 5);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Always `false`: a set holds at least one range.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// assert!(!SequenceRanges::split(&Layout::TWITTER, 1)?.is_empty());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

impl<'a> IntoIterator for &'a SequenceRanges {
    type Item = &'a RangeInclusive<u64>;
    type IntoIter = std::slice::Iter<'a, RangeInclusive<u64>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::generator::Generator;

    const TWITTER: Layout = Layout::TWITTER;

    /// One time bit and 63 sequence bits: the widest sequence field a layout can have, so
    /// `split` counts 2^63 values.
    const WIDE: Layout = Layout::builder("wide", 64)
        .time(1)
        .sequence(63)
        .build_const();

    /// 5..=4, spelled so that it reads (and lints) as deliberately empty.
    const EMPTY: RangeInclusive<u64> = RangeInclusive::new(5, 4);

    fn size(range: &RangeInclusive<u64>) -> u64 {
        range.end() - range.start() + 1
    }

    #[test]
    fn an_empty_range_is_rejected_by_new_split_range_and_the_builder() {
        let expected = Error::InvalidSequenceRange {
            layout: "twitter",
            range: EMPTY,
            problem: "is empty",
            max: 4095,
        };
        assert_eq!(
            SequenceRanges::new(&TWITTER, [EMPTY]),
            Err(expected.clone())
        );
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, EMPTY, 1),
            Err(expected.clone())
        );
        let err = Generator::builder(TWITTER)
            .node("machine", 0)
            .sequence_range(EMPTY)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(
            err.to_string(),
            "sequence range 5..=4 for layout twitter is empty; \
             expected a non-empty range within 0..=4095"
        );
    }

    #[test]
    fn a_range_past_the_sequence_field_is_rejected_by_new_split_range_and_the_builder() {
        let expected = Error::InvalidSequenceRange {
            layout: "twitter",
            range: 0..=4096,
            problem: "ends past the sequence field",
            max: 4095,
        };
        assert_eq!(
            SequenceRanges::new(&TWITTER, [0..=99, 0..=4096]),
            Err(expected.clone())
        );
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, 0..=4096, 2),
            Err(expected.clone())
        );
        let err = Generator::builder(TWITTER)
            .node("machine", 0)
            .sequence_range(0..=4096)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(
            err.to_string(),
            "sequence range 0..=4096 for layout twitter ends past the sequence field; \
             expected a non-empty range within 0..=4095"
        );
        // The field's last value itself is inside.
        assert!(SequenceRanges::new(&TWITTER, [4095..=4095]).is_ok());
    }

    #[test]
    fn overlapping_ranges_are_rejected_naming_the_two_that_overlap() {
        let err = SequenceRanges::new(&TWITTER, [0..=99, 100..=199, 150..=300]).unwrap_err();
        assert_eq!(
            err,
            Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 100..=199,
                second: 150..=300,
            }
        );
        assert_eq!(
            err.to_string(),
            "sequence ranges 100..=199 and 150..=300 for layout twitter overlap; \
             expected disjoint ranges"
        );
        // Given out of order: the overlap is found all the same, lower start first.
        assert_eq!(
            SequenceRanges::new(&TWITTER, [250..=260, 0..=99, 200..=300]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 200..=300,
                second: 250..=260,
            })
        );
        // Sharing a single value, or being the same range, is overlapping.
        assert_eq!(
            SequenceRanges::new(&TWITTER, [0..=100, 100..=200]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 0..=100,
                second: 100..=200,
            })
        );
        assert_eq!(
            SequenceRanges::new(&TWITTER, [7..=7, 7..=7]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 7..=7,
                second: 7..=7,
            })
        );
        // A range inside another one.
        assert!(matches!(
            SequenceRanges::new(&TWITTER, [0..=4095, 10..=20]),
            Err(Error::SequenceRangesOverlap { .. })
        ));
    }

    #[test]
    fn adjacent_disjoint_ranges_are_accepted_in_the_order_given() {
        let given = [100..=199, 0..=99, 200..=4095];
        let ranges = SequenceRanges::new(&TWITTER, given.clone()).unwrap();
        assert_eq!(ranges.as_slice(), given);
        assert_eq!(ranges.len(), 3);
        assert!(!ranges.is_empty());
        assert_eq!(ranges.iter().cloned().collect::<Vec<_>>(), given);
        assert_eq!((&ranges).into_iter().count(), 3);
        // Gaps are allowed too: the ranges need not cover the field.
        let sparse = SequenceRanges::new(&TWITTER, [4000..=4095, 0..=0]).unwrap();
        assert_eq!(sparse.as_slice(), [4000..=4095, 0..=0]);
    }

    #[test]
    fn no_ranges_at_all_is_invalid_shards() {
        let err = SequenceRanges::new(&TWITTER, []).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidShards {
                layout: "twitter",
                reason: "no sequence ranges were given; expected at least one".to_owned(),
            }
        );
        assert_eq!(
            err.to_string(),
            "invalid shards for layout twitter: no sequence ranges were given; expected at least one"
        );
    }

    #[test]
    fn splitting_into_zero_parts_is_invalid_shards() {
        let err = SequenceRanges::split(&TWITTER, 0).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidShards {
                layout: "twitter",
                reason: "cannot split the 4096 sequence values 0..=4095 into 0 non-empty ranges; \
                         expected 1..=4096 parts"
                    .to_owned(),
            }
        );
        assert_eq!(
            err.to_string(),
            "invalid shards for layout twitter: cannot split the 4096 sequence values 0..=4095 \
             into 0 non-empty ranges; expected 1..=4096 parts"
        );
        assert!(matches!(
            SequenceRanges::split_range(&TWITTER, 10..=19, 0),
            Err(Error::InvalidShards {
                layout: "twitter",
                ..
            })
        ));
    }

    #[test]
    fn splitting_into_more_parts_than_values_is_invalid_shards() {
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, 10..=12, 4),
            Err(Error::InvalidShards {
                layout: "twitter",
                reason: "cannot split the 3 sequence values 10..=12 into 4 non-empty ranges; \
                         expected 1..=3 parts"
                    .to_owned(),
            })
        );
        assert!(matches!(
            SequenceRanges::split(&TWITTER, 4097),
            Err(Error::InvalidShards { .. })
        ));
        assert!(matches!(
            SequenceRanges::split(&TWITTER, usize::MAX),
            Err(Error::InvalidShards { .. })
        ));
        // As many parts as values: one value each.
        let singles = SequenceRanges::split_range(&TWITTER, 10..=12, 3).unwrap();
        assert_eq!(singles.as_slice(), [10..=10, 11..=11, 12..=12]);
        assert_eq!(SequenceRanges::split(&TWITTER, 4096).unwrap().len(), 4096);
    }

    /// Checks that `ranges` are `parts` ranges that tile `whole` in order, with no gap or
    /// overlap, whose sizes differ by at most one, the larger ones first.
    fn assert_tiles(
        layout: &Layout,
        ranges: &SequenceRanges,
        whole: &RangeInclusive<u64>,
        parts: usize,
    ) {
        let context = format!("{whole:?} into {parts}: {:?}", ranges.as_slice());
        assert_eq!(ranges.len(), parts, "{context}");
        let slice = ranges.as_slice();
        assert_eq!(slice[0].start(), whole.start(), "{context}");
        assert_eq!(slice[parts - 1].end(), whole.end(), "{context}");
        for pair in slice.windows(2) {
            assert_eq!(*pair[1].start(), pair[0].end() + 1, "{context}");
        }
        let sizes: Vec<u64> = slice.iter().map(size).collect();
        let (min, max) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
        assert!(min >= 1 && max - min <= 1, "{context}");
        // The first `len % parts` ranges hold the extra values.
        let extra = (size(whole) % parts as u64) as usize;
        assert!(sizes[..extra].iter().all(|&s| s == max), "{context}");
        assert!(sizes[extra..].iter().all(|&s| s == min), "{context}");
        // The ranges are accepted by `new` as they are.
        assert_eq!(
            SequenceRanges::new(layout, slice.iter().cloned()).as_ref(),
            Ok(ranges),
            "{context}"
        );
    }

    #[test]
    fn split_sizes_differ_by_at_most_one_and_tile_the_range_exactly() {
        for parts in (1..=64).chain([100, 1000, 4095, 4096]) {
            let ranges = SequenceRanges::split(&TWITTER, parts).unwrap();
            assert_tiles(&TWITTER, &ranges, &(0..=4095), parts);
        }
        for (whole, parts) in [
            (10..=20, 3),
            (2048..=4095, 2),
            (4095..=4095, 1),
            (1..=4094, 7),
            (100..=199, 100),
        ] {
            let ranges = SequenceRanges::split_range(&TWITTER, whole.clone(), parts).unwrap();
            assert_tiles(&TWITTER, &ranges, &whole, parts);
        }
        assert_eq!(
            SequenceRanges::split(&TWITTER, 3).unwrap().as_slice(),
            [0..=1365, 1366..=2730, 2731..=4095]
        );
    }

    #[test]
    fn split_counts_a_63_bit_sequence_field_without_overflow() {
        let max = WIDE.max_sequence();
        assert_eq!(max, (1 << 63) - 1);
        for parts in [1, 2, 3, 7, 64] {
            let ranges = SequenceRanges::split(&WIDE, parts).unwrap();
            assert_tiles(&WIDE, &ranges, &(0..=max), parts);
        }
    }
}
