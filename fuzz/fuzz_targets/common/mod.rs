//! What the generator targets share: the calls they make, how they perform them on a
//! generator (shared or local, on any target's clock), and what their models say of them;
//! the layouts they mint on ([`layouts`]), the tick arithmetic of their models ([`ticks`]) and
//! the model of the generator's rules ([`model`]).

pub(crate) mod layouts;
pub(crate) mod model;
pub(crate) mod ticks;

use arbitrary::Arbitrary;
use std::fmt::Debug;

use snowmint::{
    Clock, ClockBehind, Error, Generator, Id, Layout, LocalGenerator, generator::State,
};

/// What a batch buffer holds before the call: no generator here mints it (every layout has an
/// unused top bit or is narrower than 64 bits).
pub(crate) const UNWRITTEN: Id = Id::from_u64(u64::MAX);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub(crate) enum Policy {
    Error,
    Wait,
    TickTock,
}

impl Policy {
    pub(crate) fn get(self) -> ClockBehind {
        match self {
            Policy::Error => ClockBehind::Error,
            Policy::Wait => ClockBehind::Wait { max_ms: 0 },
            Policy::TickTock => ClockBehind::TickTock { max_ms: 0 },
        }
    }
}

/// The policy, or `Wait { max_ms: 0 }` in place of tick-tock on a layout without the bit.
pub(crate) fn supported(layout: &Layout, policy: Policy) -> Policy {
    if policy == Policy::TickTock && layout.tick_tock_field().is_none() {
        Policy::Wait
    } else {
        policy
    }
}

/// One ID, as the model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Minted {
    pub(crate) tick: u64,
    pub(crate) timeline: u64,
    pub(crate) sequence: u64,
}

impl Minted {
    /// What an ID minted on `layout` carries (timeline 0 on a layout without the bit).
    pub(crate) fn of(layout: &Layout, id: Id) -> Minted {
        let parts = layout.decode(id).expect("minted ids decode");
        Minted {
            tick: parts.ticks(),
            timeline: parts.timeline().unwrap_or(0),
            sequence: parts.sequence(),
        }
    }
}

/// What the model says a call does.
#[derive(Debug, PartialEq)]
pub(crate) enum Outcome {
    /// The IDs returned, in order (one for `mint`).
    Ids(Vec<Minted>),
    Fail(Error),
    /// A waiting call would wait for a later tick (never made).
    Blocks,
}

/// A call the generator answers with one reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    Mint,
    TryMint,
    MintBatch(usize),
    TryMintBatch(usize),
}

impl Call {
    /// The call that fails where this one waits for a full tick.
    pub(crate) fn without_wait(self) -> Call {
        match self {
            Call::Mint | Call::TryMint => Call::TryMint,
            Call::MintBatch(n) | Call::TryMintBatch(n) => Call::TryMintBatch(n),
        }
    }

    pub(crate) fn waits(self) -> bool {
        matches!(self, Call::Mint | Call::MintBatch(_))
    }

    /// How many IDs the call asks for: 1 for a mint, the buffer's length for a batch.
    pub(crate) fn wants(self) -> u64 {
        match self {
            Call::Mint | Call::TryMint => 1,
            Call::MintBatch(n) | Call::TryMintBatch(n) => n as u64,
        }
    }
}

/// A run that makes calls on its generator and checks them.
pub(crate) trait Calls {
    /// One call; how many IDs it returned, `None` on error or when skipped.
    fn call(&mut self, call: Call) -> Option<usize>;

    /// `count` `try_mint`s.
    fn burst(&mut self, count: u64) {
        for _ in 0..count {
            self.call(Call::TryMint);
        }
    }

    /// `try_mint` until it fails, at most `limit` times.
    fn fill(&mut self, limit: u64) {
        for _ in 0..limit {
            if self.call(Call::TryMint).is_none() {
                break;
            }
        }
    }
}

/// What a call returned (the IDs, one for a mint, or the error) and, for a batch, the whole
/// buffer it was given; a batch fills the front of the buffer and leaves the rest untouched.
pub(crate) fn perform<C: Clock, S: State>(
    generator: &Generator<C, S>,
    call: Call,
) -> (Result<Vec<Id>, Error>, Vec<Id>) {
    match call {
        Call::Mint => (generator.mint().map(|id| vec![id]), Vec::new()),
        Call::TryMint => (generator.try_mint().map(|id| vec![id]), Vec::new()),
        Call::MintBatch(len) | Call::TryMintBatch(len) => {
            let mut buffer = vec![UNWRITTEN; len];
            let result = if call.waits() {
                generator.mint_batch(&mut buffer)
            } else {
                generator.try_mint_batch(&mut buffer)
            };
            let written = *result.as_ref().unwrap_or(&0);
            assert!(
                written <= len && (written > 0 || len == 0 || result.is_err()),
                "{call:?} wrote {written} IDs ({result:?})"
            );
            assert!(
                buffer[written..].iter().all(|&id| id == UNWRITTEN),
                "{call:?} returned {result:?} but wrote past the IDs it returned"
            );
            (result.map(|_| buffer[..written].to_vec()), buffer)
        }
    }
}

/// The `LocalGenerator` twin agrees with the shared generator on everything it shows: its
/// snapshot, its counters and its `Debug` output.
pub(crate) fn check_twin<C: Clock + Debug>(generator: &Generator<C>, twin: &LocalGenerator<C>) {
    assert_eq!(
        twin.snapshot(),
        generator.snapshot(),
        "the LocalGenerator's snapshot (left) differs"
    );
    assert_eq!(
        twin.stats(),
        generator.stats(),
        "the LocalGenerator's stats (left) differ"
    );
    assert_eq!(
        format!("{twin:?}"),
        format!("{generator:?}"),
        "the LocalGenerator's Debug output (left) differs"
    );
}
