//! A TCP proxy on loopback in front of a real server speaking HTTP/2 (etcd's gRPC), that a
//! test steers frame by frame: it can hold the request frames of chosen streams (and release
//! them later, after newer requests went through), pause all traffic, or sever the client from
//! the server.
//!
//! The proxy splits each direction into HTTP/2 frames (a 9-byte header: length, type, flags,
//! stream) without decoding them. Frames of different streams may be reordered: that is
//! HTTP/2's multiplexing. Only DATA frames and the frames that follow them on a held stream are
//! held; header blocks (whose compression state depends on their order) always pass in order.

use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::relay::relay;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const DATA: u8 = 0;
const HEADERS: u8 = 1;
const RST_STREAM: u8 = 3;
const END_STREAM: u8 = 1;

/// The proxy; stops (closing every connection) when dropped.
pub struct Proxy {
    /// The proxy's `http://127.0.0.1:port`, to give a client instead of the server's.
    pub endpoint: String,
    shared: Arc<Shared>,
}

/// A stream of one connection: (connection, stream ID).
type StreamKey = (usize, u32);

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Every byte in either direction waits while set.
    paused: bool,
    /// Set the pause when the next client DATA frame containing these bytes arrives (the
    /// frame waits with the rest).
    pause_on: Option<Vec<u8>>,
    /// Bytes in either direction are dropped, but for released frames.
    severed: bool,
    /// Hold the next `hold_count` client DATA frames containing these bytes, each with every
    /// later frame of its stream.
    hold_marker: Vec<u8>,
    hold_count: usize,
    /// The held streams (connection, stream) and their frames, in arrival order.
    held: Vec<(StreamKey, Vec<Vec<u8>>)>,
    /// Held streams released to the server, and those it answered (an END_STREAM frame).
    released: HashSet<StreamKey>,
    answered: HashSet<StreamKey>,
    /// The server-bound half of each connection, for releasing held frames.
    upstreams: Vec<Arc<Mutex<TcpStream>>>,
    /// Every socket, shut down when the proxy stops.
    sockets: Vec<TcpStream>,
    stopped: bool,
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Proxy {
    /// A proxy to `upstream` (`http://host:port` or `host:port`).
    pub fn start(upstream: &str) -> Proxy {
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
        Proxy { endpoint, shared }
    }

    /// Holds the next `count` client DATA frames that contain `marker`, each with every later
    /// frame of its stream, until [`release_held`](Self::release_held).
    pub fn hold_next(&self, marker: &[u8], count: usize) {
        let mut state = lock(&self.shared);
        state.hold_marker = marker.to_vec();
        state.hold_count = count;
    }

    /// Waits until `count` streams are held; false after `limit`.
    pub fn wait_held(&self, count: usize, limit: Duration) -> bool {
        self.wait(limit, |state| state.held.len() >= count)
    }

    /// Whether the first frame of held stream `index` contains `bytes`.
    pub fn held_contains(&self, index: usize, bytes: &[u8]) -> bool {
        lock(&self.shared)
            .held
            .get(index)
            .is_some_and(|(_, frames)| frames[0].windows(bytes.len()).any(|window| window == bytes))
    }

    /// Sends every held frame to the server, in order, but for the client's stream resets
    /// (the cancel of a request that timed out on the client never reaches the server).
    pub fn release_held(&self) {
        let mut state = lock(&self.shared);
        let held = std::mem::take(&mut state.held);
        for ((connection, stream), frames) in held {
            let upstream = Arc::clone(&state.upstreams[connection]);
            let mut upstream = upstream.lock().unwrap_or_else(PoisonError::into_inner);
            for frame in frames.iter().filter(|frame| frame[3] != RST_STREAM) {
                let _ = upstream.write_all(frame);
            }
            state.released.insert((connection, stream));
        }
    }

    /// Waits until the server answered every released stream; false after `limit`.
    pub fn wait_answered(&self, limit: Duration) -> bool {
        self.wait(limit, |state| state.released.is_subset(&state.answered))
    }

    /// Pauses all traffic when the next client DATA frame containing `marker` arrives.
    pub fn pause_on_next(&self, marker: &[u8]) {
        lock(&self.shared).pause_on = Some(marker.to_vec());
    }

    /// Waits until the pause is set; false after `limit`.
    pub fn wait_paused(&self, limit: Duration) -> bool {
        self.wait(limit, |state| state.paused)
    }

    /// Pauses all traffic now: bytes in either direction wait until [`resume`](Self::resume).
    pub fn pause(&self) {
        lock(&self.shared).paused = true;
        self.shared.changed.notify_all();
    }

    /// Lets the paused bytes through, in order.
    pub fn resume(&self) {
        lock(&self.shared).paused = false;
        self.shared.changed.notify_all();
    }

    /// Cuts the client off: from now on every byte in either direction is dropped, but for
    /// held frames released to the server.
    pub fn sever(&self) {
        lock(&self.shared).severed = true;
        self.shared.changed.notify_all();
    }

    fn wait(&self, limit: Duration, done: impl Fn(&State) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        let mut state = lock(&self.shared);
        while !done(&state) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.stopped = true;
        state.paused = false;
        for socket in &state.sockets {
            let _ = socket.shutdown(Shutdown::Both);
        }
        drop(state);
        self.shared.changed.notify_all();
        // Wake the accepting thread, which then stops.
        let _ = TcpStream::connect(self.endpoint.trim_start_matches("http://"));
    }
}

/// Pumps a new connection's two directions, each on a thread of its own.
fn connect(shared: &Arc<Shared>, client: TcpStream, server: TcpStream) {
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let clones = (client.try_clone(), server.try_clone());
    let (Ok(client_writer), Ok(server_writer)) = clones else {
        return;
    };
    let upstream = Arc::new(Mutex::new(server_writer));
    let connection = {
        let mut state = lock(shared);
        state.upstreams.push(Arc::clone(&upstream));
        for socket in [&client, &server] {
            if let Ok(socket) = socket.try_clone() {
                state.sockets.push(socket);
            }
        }
        state.upstreams.len() - 1
    };
    let up = Arc::clone(shared);
    thread::spawn(move || {
        let _ = pump_up(&up, connection, client, &upstream);
    });
    let down = Arc::clone(shared);
    thread::spawn(move || {
        let _ = pump_down(&down, connection, server, client_writer);
    });
}

/// Reads one frame (header and payload) from `from`.
fn frame(from: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut frame = vec![0; 9];
    from.read_exact(&mut frame)?;
    let length = u32::from_be_bytes([0, frame[0], frame[1], frame[2]]) as usize;
    frame.resize(9 + length, 0);
    from.read_exact(&mut frame[9..])?;
    Ok(frame)
}

fn stream_of(frame: &[u8]) -> u32 {
    u32::from_be_bytes([frame[5], frame[6], frame[7], frame[8]]) & 0x7fff_ffff
}

fn contains(frame: &[u8], marker: &[u8]) -> bool {
    !marker.is_empty()
        && frame[9..]
            .windows(marker.len())
            .any(|window| window == marker)
}

/// Waits out a pause; returns the state, and whether the bytes are to be dropped.
fn gate(shared: &Shared) -> (MutexGuard<'_, State>, bool) {
    let mut state = lock(shared);
    while state.paused && !state.severed && !state.stopped {
        state = shared
            .changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
    let drop = state.severed;
    (state, drop)
}

/// Client to server: the preface, then frame by frame, holding what the test asked for.
fn pump_up(
    shared: &Shared,
    connection: usize,
    mut client: TcpStream,
    upstream: &Mutex<TcpStream>,
) -> io::Result<()> {
    let mut preface = vec![0; PREFACE.len()];
    client.read_exact(&mut preface)?;
    upstream
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .write_all(&preface)?;
    loop {
        let frame = frame(&mut client)?;
        let key = (connection, stream_of(&frame));
        {
            let mut state = lock(shared);
            if frame[3] == DATA
                && state
                    .pause_on
                    .as_deref()
                    .is_some_and(|m| contains(&frame, m))
            {
                state.pause_on = None;
                state.paused = true;
                shared.changed.notify_all();
            }
            if let Some((_, frames)) = state.held.iter_mut().find(|(held, _)| *held == key) {
                frames.push(frame);
                continue;
            }
            if frame[3] == DATA && state.hold_count > 0 && contains(&frame, &state.hold_marker) {
                state.hold_count -= 1;
                state.held.push((key, vec![frame]));
                shared.changed.notify_all();
                continue;
            }
        }
        let (state, drop) = gate(shared);
        if drop {
            continue;
        }
        // Written under the state's lock: a release cannot interleave its frames with this one.
        upstream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(&frame)?;
        std::mem::drop(state);
    }
}

/// Server to client: frame by frame, noting the answers to released streams.
fn pump_down(
    shared: &Shared,
    connection: usize,
    mut server: TcpStream,
    mut client: TcpStream,
) -> io::Result<()> {
    loop {
        let frame = frame(&mut server)?;
        let key = (connection, stream_of(&frame));
        let ends = matches!(frame[3], DATA | HEADERS) && frame[4] & END_STREAM != 0;
        {
            let mut state = lock(shared);
            if ends && state.released.contains(&key) {
                state.answered.insert(key);
                shared.changed.notify_all();
            }
        }
        let (state, drop) = gate(shared);
        std::mem::drop(state);
        if !drop {
            client.write_all(&frame)?;
        }
    }
}
