//! The `tracing` feature: one event per overflow, clock regression, toggle and borrow, at the
//! documented levels, with the generator's layout and ticks as fields.

#![cfg(feature = "tracing")]

mod common;

use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use snowmint::clock::ManualClock;
use snowmint::{ClockBehind, Generator, Layout};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id as SpanId, Record};
use tracing::{Event, Level, Metadata, Subscriber};

use common::clocks::on_manual_clock;
use common::layouts::TT;

/// One event as recorded: its level, target, and fields as `name=value` in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    level: Level,
    target: String,
    fields: String,
}

/// A subscriber that records every event.
#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<Vec<Seen>>>);

impl Recorder {
    fn events(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    /// The events whose fields contain `text`.
    fn with(&self, text: &str) -> Vec<Seen> {
        self.events()
            .into_iter()
            .filter(|seen| seen.fields.contains(text))
            .collect()
    }
}

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, "{}={value} ", field.name());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> SpanId {
        SpanId::from_u64(1)
    }

    fn record(&self, _: &SpanId, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &SpanId, _: &SpanId) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(Seen {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            fields: fields.0,
        });
    }

    fn enter(&self, _: &SpanId) {}

    fn exit(&self, _: &SpanId) {}
}

const T0: u64 = 1_700_000_000_000;

#[test]
fn a_clock_regression_and_a_toggle_are_warnings() {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        let (generator, clock) = on_manual_clock(
            Generator::builder(TT)
                .node("machine", 1)
                .on_clock_behind(ClockBehind::TickTock { max_ms: 1_000 }),
            T0,
        );
        generator.mint().unwrap();
        clock.set(T0 - 5_000);
        let id = generator.mint().unwrap();
        assert_eq!(TT.decode(id).unwrap().timeline(), Some(1));
    });
    let last_tick = T0 - TT.epoch_ms();
    let clock_tick = last_tick - 5_000;
    let regressions = recorder.with("message=clock behind the last minted tick ");
    assert_eq!(regressions.len(), 1, "{:?}", recorder.events());
    assert_eq!(regressions[0].level, Level::WARN);
    assert_eq!(regressions[0].target, "snowmint");
    assert!(
        regressions[0].fields.contains(&format!(
            "layout=twitter-tt last_tick={last_tick} clock_tick={clock_tick}"
        )),
        "{regressions:?}"
    );
    let toggles = recorder.with("the other timeline");
    assert_eq!(toggles.len(), 1, "{:?}", recorder.events());
    assert_eq!(toggles[0].level, Level::WARN);
    assert!(
        toggles[0]
            .fields
            .contains(&format!("tick={clock_tick} timeline=1")),
        "{toggles:?}"
    );
}

#[test]
fn an_overflow_and_a_borrow_are_debug_events_one_per_tick() {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        let (generator, clock) =
            on_manual_clock(Generator::builder(Layout::TWITTER).node("machine", 1), T0);
        // Fill tick T0, then wait in `mint` until the clock moves on.
        generator.mint_many(4096).unwrap();
        let advance = {
            let clock = clock.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                clock.advance(1);
            })
        };
        generator.mint().unwrap();
        advance.join().unwrap();

        let borrowing = Generator::builder(Layout::TWITTER)
            .node("machine", 2)
            .clock(clock.clone())
            .borrow_ahead(1)
            .build()
            .unwrap();
        // Two ticks' worth at one clock reading: the second is borrowed, once.
        borrowing.mint_many(8192).unwrap();
    });
    let tick = T0 - Layout::TWITTER.epoch_ms();
    let overflows = recorder.with("waiting for the next one");
    assert_eq!(overflows.len(), 1, "{:?}", recorder.events());
    assert_eq!(overflows[0].level, Level::DEBUG);
    assert!(
        overflows[0]
            .fields
            .contains(&format!("layout=twitter tick={tick} ")),
        "{overflows:?}"
    );
    let borrows = recorder.with("borrowing the next one");
    assert_eq!(borrows.len(), 1, "{:?}", recorder.events());
    assert_eq!(borrows[0].level, Level::DEBUG);
    assert!(
        borrows[0]
            .fields
            .contains(&format!("tick={} ahead_ticks=1 ", tick + 2)),
        "{borrows:?}"
    );
}

#[test]
fn minting_within_a_tick_emits_nothing() {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        let clock = ManualClock::new(T0);
        let generator = Generator::builder(Layout::TWITTER)
            .node("machine", 1)
            .clock(clock)
            .build()
            .unwrap();
        generator.mint_many(4096).unwrap();
    });
    assert_eq!(recorder.events(), []);
}
