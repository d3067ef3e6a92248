//! Paired rounds: contenders measured back to back in an order that changes from round to
//! round, their figures compared within each round; a round in which a figure could not be
//! taken (a busy machine) is counted as inconclusive and left out, never a panic.

/// The median of some figures, with the lowest and the highest.
#[derive(Clone, Copy)]
pub struct Spread {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Spread {
    /// The spread of `figures`; `None` when there are none.
    pub fn of(figures: impl Iterator<Item = f64>) -> Option<Spread> {
        let mut figures: Vec<f64> = figures.collect();
        figures.sort_by(f64::total_cmp);
        Some(Spread {
            median: median(figures.iter().copied())?,
            low: *figures.first()?,
            high: *figures.last()?,
        })
    }

    /// `**median** (lowest–highest)`, with `decimals` decimals and `unit` after each figure.
    pub fn shown(self, decimals: usize, unit: &str) -> String {
        format!(
            "**{:.decimals$}{unit}** ({:.decimals$}–{:.decimals$}{unit})",
            self.median, self.low, self.high
        )
    }
}

/// [`Spread::shown`] of `spread`, or "inconclusive" where no round gave a figure.
pub fn shown_or_inconclusive(spread: Option<Spread>, decimals: usize, unit: &str) -> String {
    spread.map_or_else(
        || "inconclusive".to_owned(),
        |spread| spread.shown(decimals, unit),
    )
}

/// The figures of N contenders over paired rounds.
pub struct Rounds<const N: usize> {
    /// The rounds in which every contender gave a figure: the figures, by round and contender.
    pub conclusive: Vec<[f64; N]>,
    /// The rounds measured, warm-up excluded.
    pub measured: usize,
}

impl<const N: usize> Rounds<N> {
    /// Contender `k`'s figure divided by the last's, round by round.
    pub fn ratio_to_last(&self, k: usize) -> Option<Spread> {
        Spread::of(self.conclusive.iter().map(|r| r[k] / r[N - 1]))
    }

    /// Contender `k`'s figure divided by `j`'s, round by round.
    pub fn ratio(&self, k: usize, j: usize) -> Option<Spread> {
        Spread::of(self.conclusive.iter().map(|r| r[k] / r[j]))
    }

    /// Each contender's median figure over the conclusive rounds.
    pub fn medians(&self) -> Option<[f64; N]> {
        let medians: Vec<f64> = (0..N)
            .map(|k| median(self.conclusive.iter().map(|r| r[k])))
            .collect::<Option<_>>()?;
        medians.try_into().ok()
    }

    /// Contender `k`'s figures over the conclusive rounds.
    pub fn spread(&self, k: usize) -> Option<Spread> {
        Spread::of(self.conclusive.iter().map(|r| r[k]))
    }

    /// How many rounds were inconclusive.
    pub fn inconclusive(&self) -> usize {
        self.measured - self.conclusive.len()
    }

    /// "inconclusive: i of n rounds", or `None` when every round gave its figures.
    pub fn note(&self) -> Option<String> {
        let inconclusive = self.inconclusive();
        (inconclusive > 0)
            .then(|| format!("inconclusive: {inconclusive} of {} rounds", self.measured))
    }
}

/// `measure(k)` of contenders k = 0..N in `rounds` rounds after one of warm-up, each round in
/// another order: the rotations of 0..N, forwards and then backwards. `measure` returns `None`
/// where the machine kept it from a figure (see [`crate::measure::saturation_rate`]); the
/// round is then inconclusive.
pub fn rotated<const N: usize>(
    rounds: usize,
    mut measure: impl FnMut(usize) -> Option<f64>,
) -> Rounds<N> {
    let conclusive = (0..=rounds)
        .map(|round| {
            let mut figures = [None; N];
            for step in 0..N {
                let step = if (round / N).is_multiple_of(2) {
                    step
                } else {
                    N - 1 - step
                };
                let k = (round + step) % N;
                figures[k] = measure(k);
            }
            figures
        })
        .skip(1)
        .filter_map(|figures| {
            let figures: Vec<f64> = figures.into_iter().collect::<Option<_>>()?;
            figures.try_into().ok()
        })
        .collect();
    Rounds {
        conclusive,
        measured: rounds,
    }
}

/// The median: the middle figure, or the mean of the two middle ones; `None` of no figures.
pub fn median(figures: impl Iterator<Item = f64>) -> Option<f64> {
    let mut figures: Vec<f64> = figures.collect();
    figures.sort_by(f64::total_cmp);
    let middle = figures.len() / 2;
    match figures.len() {
        0 => None,
        len if len.is_multiple_of(2) => Some((figures[middle - 1] + figures[middle]) / 2.0),
        _ => Some(figures[middle]),
    }
}
