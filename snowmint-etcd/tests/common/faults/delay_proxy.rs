//! A TCP proxy on loopback that forwards bytes through a delay line: each chunk read from one
//! side is written to the other `delay` after it was read, in order. The delay can change at
//! run time (a far region, a slow member), the proxy can stall all traffic (a partition:
//! nothing is lost, it arrives when the partition heals), and it can close every open
//! connection (a reset). Plain TCP: it knows nothing of HTTP/2.
//!
//! A connection's setup is not delayed: the proxy accepts at once and connects to the server
//! at once (refused while the server is down, which closes the client's connection).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::relay::relay;

/// The proxy; stops (closing every connection) when dropped.
pub struct DelayProxy {
    /// The proxy's `http://127.0.0.1:port`, to give a client instead of the server's.
    pub endpoint: String,
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Notified when the delay, the stall or a connection's state changes.
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// How long each chunk waits after it was read.
    delay: Duration,
    /// While set, nothing is written in either direction.
    stalled: bool,
    /// The open connections, to close on a reset or a stop.
    connections: Vec<Arc<Connection>>,
    stopped: bool,
}

/// One client connection and its connection to the server.
struct Connection {
    closed: AtomicBool,
    client: TcpStream,
    server: TcpStream,
}

impl Connection {
    /// Shuts both sockets down: both readers see the end, both writers stop.
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let _ = self.client.shutdown(Shutdown::Both);
        let _ = self.server.shutdown(Shutdown::Both);
    }
}

/// What a reader hands its writer.
enum Chunk {
    /// Bytes read at an instant.
    Bytes(Instant, Vec<u8>),
    /// The reading side ended (read at an instant): close the connection once it is due.
    End(Instant),
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl DelayProxy {
    /// A proxy to `upstream` (`http://host:port` or `host:port`), with no delay.
    pub fn start(upstream: &str) -> DelayProxy {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let (accepting, pairing) = (Arc::clone(&shared), Arc::clone(&shared));
        let endpoint = relay(
            upstream,
            move || lock(&accepting).stopped,
            move |client, server| connect(&pairing, client, server),
        );
        DelayProxy { endpoint, shared }
    }

    /// Sets the one-way delay of both directions, from now on (chunks already waiting wait
    /// for the new delay, counted from when they were read).
    pub fn set_delay(&self, delay: Duration) {
        lock(&self.shared).delay = delay;
        self.shared.changed.notify_all();
    }

    /// Stalls all traffic in both directions while `on` (a partition: connections stay open,
    /// bytes wait), and lets it through, in order, when set off again.
    pub fn blackhole(&self, on: bool) {
        lock(&self.shared).stalled = on;
        self.shared.changed.notify_all();
    }

    /// Closes every open connection (what is waiting is dropped); new ones are accepted.
    pub fn reset(&self) {
        let connections = std::mem::take(&mut lock(&self.shared).connections);
        for connection in connections {
            connection.close();
        }
        self.shared.changed.notify_all();
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        lock(&self.shared).stopped = true;
        self.reset();
        // Wake the accepting thread, which then stops.
        let _ = TcpStream::connect(self.endpoint.trim_start_matches("http://"));
    }
}

/// Starts a new connection's two directions, each a reader and a writer thread joined by a
/// channel (the delay line).
fn connect(shared: &Arc<Shared>, client: TcpStream, server: TcpStream) {
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (Ok(client_half), Ok(server_half)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let connection = Arc::new(Connection {
        closed: AtomicBool::new(false),
        client,
        server,
    });
    {
        let mut state = lock(shared);
        state
            .connections
            .retain(|c| !c.closed.load(Ordering::SeqCst));
        state.connections.push(Arc::clone(&connection));
    }
    let directions = [
        (client_half.try_clone(), server_half.try_clone()),
        (server_half.try_clone(), client_half.try_clone()),
    ];
    for (from, to) in directions {
        let (Ok(from), Ok(to)) = (from, to) else {
            connection.close();
            return;
        };
        let (line, out) = mpsc::channel();
        thread::spawn(move || read(from, &line));
        let (shared, connection) = (Arc::clone(shared), Arc::clone(&connection));
        thread::spawn(move || write(&shared, &connection, &out, to));
    }
}

/// Reads chunks from `from` into the delay line until the end or an error.
fn read(mut from: TcpStream, line: &Sender<Chunk>) {
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => {
                let _ = line.send(Chunk::End(Instant::now()));
                return;
            }
            Ok(read) => {
                if line
                    .send(Chunk::Bytes(Instant::now(), buffer[..read].to_vec()))
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

/// Writes each chunk of the delay line to `to` once it is due, in order; closes the
/// connection at the line's end or on an error.
fn write(shared: &Shared, connection: &Connection, line: &Receiver<Chunk>, mut to: TcpStream) {
    while let Ok(chunk) = line.recv() {
        let read_at = match &chunk {
            Chunk::Bytes(at, _) | Chunk::End(at) => *at,
        };
        if !wait_due(shared, connection, read_at) {
            break;
        }
        match chunk {
            Chunk::Bytes(_, bytes) if to.write_all(&bytes).is_ok() => {}
            _ => break,
        }
    }
    connection.close();
    shared.changed.notify_all();
}

/// Waits until a chunk read at `read_at` is due (the delay past it, and no stall); false if
/// the connection closed meanwhile.
fn wait_due(shared: &Shared, connection: &Connection, read_at: Instant) -> bool {
    let mut state = lock(shared);
    loop {
        if connection.closed.load(Ordering::SeqCst) || state.stopped {
            return false;
        }
        let left = (read_at + state.delay).saturating_duration_since(Instant::now());
        if !state.stalled && left.is_zero() {
            return true;
        }
        // A stall waits for a change; a delay for its end, or a change.
        let wait = if state.stalled {
            Duration::from_secs(1)
        } else {
            left
        };
        state = shared
            .changed
            .wait_timeout(state, wait)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}
