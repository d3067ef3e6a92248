//! Threads for the tests: scoped workers, a call that must wait, and bounded waits.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// The longest any bounded wait here waits.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Runs `work(t)` on each of `threads` scoped threads (`t` from 0) and returns what each
/// returned, in thread order.
pub fn on_threads<T: Send>(threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let work = &work;
    thread::scope(|s| {
        let workers: Vec<_> = (0..threads).map(|t| s.spawn(move || work(t))).collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    })
}

/// Runs `call` on another thread, asserts that it has not returned after `patience`, runs
/// `unblock` (which moves the clock it waits for), and returns what it then returned (within
/// [`PATIENCE`]).
pub fn blocked_until<T: Send>(
    patience: Duration,
    call: impl FnOnce() -> T + Send,
    unblock: impl FnOnce(),
) -> T {
    let (tx, rx) = mpsc::channel();
    thread::scope(|s| {
        s.spawn(move || tx.send(call()).unwrap());
        assert!(
            rx.recv_timeout(patience).is_err(),
            "returned within {patience:?}: did not wait"
        );
        unblock();
        rx.recv_timeout(PATIENCE)
            .expect("still waiting after unblock")
    })
}

/// Whether `done` becomes true within [`PATIENCE`], checked every millisecond.
pub fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > PATIENCE {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
}
