//! Minting allocates nothing: a counting global allocator watches the minting thread.
//!
//! The allocator counts the allocations made by the thread that set its flag, so tests running
//! in parallel on other threads do not disturb the count. Everything a test needs (the
//! generator, its clock, buffers) is made before counting starts.

mod common;

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

use snowmint::{
    Generator, Id, Layout,
    clock::{CachedClock, MonotonicClock},
    encoding::Encoding,
    id128::{Ulid, UlidGenerator, Uuid7Generator},
    shard::Shards,
    sno::{SnoGenerator, SnoId},
};

use common::clocks::{T0, local_on_manual_clock, on_manual_clock};

/// The system allocator, counting the allocations of threads that asked it to.
struct Counting;

thread_local! {
    /// Whether this thread's allocations are counted, and how many there were.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note_allocation() {
    // `try_with`: a thread being torn down has no TLS left, and is never one we count.
    let counting = COUNTING.try_with(Cell::get).unwrap_or(false);
    if counting {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counting touches only const-initialized thread-locals, which never allocate.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many allocations `work` made on this thread.
fn allocations_in(work: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    work();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

/// IDs minted per check: enough to cross many ticks on the layouts below.
const MINTS: usize = 100_000;

/// A layout whose ticks fill fast (4 IDs per ms), so the full-tick path runs too.
const TINY: Layout = Layout::builder("tiny", 64)
    .unused(1)
    .time(41)
    .node("worker", 20)
    .sequence(2)
    .epoch_ms(1_600_000_000_000)
    .build_const();

#[test]
fn the_counter_sees_an_allocation() {
    // The property the other tests rest on: an allocation on this thread is counted.
    let counted = allocations_in(|| {
        std::hint::black_box(vec![1u8; 16]);
    });
    assert_eq!(counted, 1);
}

#[test]
fn mint_on_the_default_clock_allocates_nothing() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    generator.mint().unwrap();
    let counted = allocations_in(|| {
        for _ in 0..MINTS {
            std::hint::black_box(generator.mint().unwrap());
        }
    });
    assert_eq!(counted, 0, "Generator::mint allocated");
}

#[test]
fn mint_through_full_ticks_allocates_nothing() {
    let (generator, clock) = on_manual_clock(Generator::builder(TINY).node("worker", 3), T0);
    let counted = allocations_in(|| {
        for i in 0..MINTS {
            // A full tick every 4 IDs: `try_mint` fails (the error carries no allocation),
            // then the clock moves on.
            if generator.try_mint().is_err() {
                clock.advance(1);
            }
            if i % 3 == 0 {
                std::hint::black_box(generator.try_mint().ok());
            }
        }
    });
    assert_eq!(counted, 0, "minting through full ticks allocated");
    assert!(generator.stats().overflows > 0, "no tick was ever full");
}

#[test]
fn batches_shards_and_a_private_cached_clock_allocate_nothing() {
    let clock = CachedClock::new(MonotonicClock::new());
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .clock(clock.clone())
        .build()
        .unwrap();
    let sharded = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .clock(clock.clone())
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    let mut batch = [Id::default(); 256];
    sharded.mint().unwrap();
    let counted = allocations_in(|| {
        for _ in 0..MINTS / 256 {
            std::hint::black_box(generator.mint_batch(&mut batch).unwrap());
        }
        for _ in 0..MINTS {
            std::hint::black_box(generator.mint().unwrap());
            std::hint::black_box(sharded.mint().unwrap());
        }
    });
    assert_eq!(counted, 0, "batches, shards or the cached clock allocated");
}

#[test]
fn the_128_bit_generators_allocate_nothing() {
    let shared = Uuid7Generator::builder().build().unwrap();
    let sharded = UlidGenerator::builder()
        .build_sharded(Shards::SplitSequence(2))
        .unwrap();
    let local = UlidGenerator::builder().build_local().unwrap();
    let mut batch = [Ulid::default(); 256];
    shared.mint().unwrap();
    sharded.mint().unwrap();
    local.mint().unwrap();
    let counted = allocations_in(|| {
        for _ in 0..MINTS / 256 {
            std::hint::black_box(sharded.mint_batch(&mut batch).unwrap());
        }
        for _ in 0..MINTS {
            std::hint::black_box(shared.mint().unwrap());
            std::hint::black_box(sharded.mint().unwrap());
            std::hint::black_box(local.mint().unwrap());
        }
    });
    assert_eq!(counted, 0, "a 128-bit generator allocated");
}

#[test]
fn a_generator_on_the_default_clock_allocates_nothing() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 2)
        .build()
        .unwrap();
    let mut batch = [Id::default(); 256];
    generator.mint().unwrap();
    let counted = allocations_in(|| {
        for _ in 0..MINTS / 256 {
            std::hint::black_box(generator.mint_batch(&mut batch).unwrap());
        }
        for _ in 0..MINTS {
            std::hint::black_box(generator.mint().unwrap());
            std::hint::black_box(generator.try_mint().ok());
        }
    });
    assert_eq!(counted, 0, "a Generator on the default clock allocated");
}

#[test]
fn local_generators_on_the_default_and_monotonic_clocks_allocate_nothing() {
    let on_default = Generator::builder(Layout::TWITTER)
        .node("machine", 3)
        .build_local()
        .unwrap();
    let on_monotonic = Generator::builder(Layout::TWITTER)
        .node("machine", 4)
        .clock(MonotonicClock::new())
        .build_local()
        .unwrap();
    let mut batch = [Id::default(); 256];
    on_default.mint().unwrap();
    on_monotonic.mint().unwrap();
    let counted = allocations_in(|| {
        for _ in 0..MINTS / 256 {
            std::hint::black_box(on_default.mint_batch(&mut batch).unwrap());
            std::hint::black_box(on_monotonic.mint_batch(&mut batch).unwrap());
        }
        for _ in 0..MINTS {
            std::hint::black_box(on_default.mint().unwrap());
            std::hint::black_box(on_monotonic.mint().unwrap());
        }
    });
    assert_eq!(counted, 0, "a LocalGenerator allocated");
}

#[test]
fn a_local_generator_through_full_ticks_allocates_nothing() {
    let (generator, clock) = local_on_manual_clock(Generator::builder(TINY).node("worker", 3), T0);
    let counted = allocations_in(|| {
        for _ in 0..MINTS {
            // A full tick every 4 IDs: `try_mint` fails, then the clock moves on.
            if generator.try_mint().is_err() {
                clock.advance(1);
            }
        }
    });
    assert_eq!(counted, 0, "a LocalGenerator through full ticks allocated");
    assert!(generator.stats().overflows > 0, "no tick was ever full");
}

#[test]
fn local_shards_allocate_nothing() {
    let split = Generator::builder(Layout::TWITTER)
        .node("machine", 5)
        .build_local_shards(Shards::SplitSequence(4))
        .unwrap();
    let block = Generator::builder(Layout::TWITTER)
        .clock(MonotonicClock::new())
        .build_local_shards(Shards::NodeBlock {
            field: "machine",
            values: 8..=11,
        })
        .unwrap();
    let mut batch = [Id::default(); 64];
    for shard in &split {
        shard.mint().unwrap();
    }
    for shard in &block {
        shard.mint().unwrap();
    }
    let counted = allocations_in(|| {
        for i in 0..MINTS {
            std::hint::black_box(split[i % 4].mint().unwrap());
            std::hint::black_box(block[i % 4].mint().unwrap());
            if i % 64 == 0 {
                std::hint::black_box(split[i % 4].mint_batch(&mut batch).unwrap());
                std::hint::black_box(block[i % 4].mint_batch(&mut batch).unwrap());
            }
        }
    });
    assert_eq!(counted, 0, "shards from build_local_shards allocated");
}

#[test]
fn sno_minting_and_text_forms_allocate_nothing() {
    let generator = SnoGenerator::builder().partition(7).build().unwrap();
    let mut batch = [SnoId::default(); 64];
    let mut text = [0u8; 16];
    let mut encoded = [0u8; Encoding::MAX_LEN];
    let counted = allocations_in(|| {
        for _ in 0..MINTS / 64 {
            std::hint::black_box(generator.mint_batch_with_meta(3, &mut batch).unwrap());
        }
        for _ in 0..MINTS {
            let sno = generator.mint_with_meta(3).unwrap();
            std::hint::black_box(sno.encode(&mut text));
            let id = Id::from_u64(sno.to_u128() as u64);
            for form in Encoding::ALL {
                std::hint::black_box(form.encode(id));
                std::hint::black_box(form.encode_into(id, &mut encoded));
            }
        }
    });
    assert_eq!(counted, 0, "sno minting or encoding allocated");
}
