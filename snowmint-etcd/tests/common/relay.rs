//! What the tests' proxies share: a loopback listener that connects each client to the
//! upstream server and hands the pair on.

use std::net::{TcpListener, TcpStream};
use std::thread;

/// Listens on a free loopback port; for each client, connects to `upstream` (`http://host:port`
/// or `host:port`) and hands both sockets to `pair`, until `stopped` says so (checked at each
/// client: the proxy's drop wakes the listener with a connection of its own). A client that
/// arrives while the server is down is closed at once. Returns the `http://127.0.0.1:port` to
/// give a client instead of the server's.
pub fn relay(
    upstream: &str,
    stopped: impl Fn() -> bool + Send + 'static,
    mut pair: impl FnMut(TcpStream, TcpStream) + Send + 'static,
) -> String {
    let upstream = upstream
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        for client in listener.incoming() {
            if stopped() {
                return;
            }
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(&upstream) else {
                continue;
            };
            pair(client, server);
        }
    });
    endpoint
}
