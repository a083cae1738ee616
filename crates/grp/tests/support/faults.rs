//! Links that fail in the ways the PostgreSQL store must tell apart: a proxy that loses one
//! reply (the statement reaches the server, its answer never comes back), and a server that
//! accepts connections and never says anything.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an armed proxy keeps passing the client's bytes on (and holding the server's back)
/// before it closes both sides: long enough for the server to run and commit what it was sent.
const GRACE: Duration = Duration::from_millis(500);

/// A TCP proxy to the server that can be armed: the client's next statement execution (a write
/// holding an Execute message, `E`, as a prepared statement is run: Bind, Execute, Sync) and
/// whatever else it sends within [`GRACE`] reach the server, nothing comes back, and then both
/// sides of that connection are closed. What comes before it (a statement prepared in a
/// round trip of its own, say) passes as usual, so the statement surely reached the server
/// however many round trips the client makes for it. Disarmed, it passes everything both ways;
/// new connections are served as usual after a cut.
pub struct ReplyCut {
    address: SocketAddr,
    armed: Arc<AtomicBool>,
}

impl ReplyCut {
    pub fn to(upstream: SocketAddr) -> ReplyCut {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let cut = ReplyCut {
            address: listener.local_addr().unwrap(),
            armed: Arc::new(AtomicBool::new(false)),
        };
        let armed = cut.armed.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let dropping = Arc::new(AtomicBool::new(false));
                forward(&client, &server, armed.clone(), dropping.clone());
                back(&server, &client, dropping);
            }
        });
        cut
    }

    /// `HOST:PORT`, for `AGENTCONF_STORE_ADDR`.
    pub fn address(&self) -> String {
        self.address.to_string()
    }

    /// The next statement a client runs reaches the server; its reply is lost with the
    /// connection.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }
}

/// Client to server; once armed, at the first write that runs a statement the replies are
/// dropped from before it is passed on, and both sides are closed after [`GRACE`].
fn forward(
    client: &TcpStream,
    server: &TcpStream,
    armed: Arc<AtomicBool>,
    dropping: Arc<AtomicBool>,
) {
    let (mut from, mut to) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        let mut deadline: Option<Instant> = None;
        loop {
            if let Some(at) = deadline {
                let left = at.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                let _ = from.set_read_timeout(Some(left));
            }
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(_) if deadline.is_some() => continue,
                Err(_) => break,
            };
            if deadline.is_none()
                && executes(&buf[..n])
                && armed
                    .compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                dropping.store(true, Ordering::SeqCst);
                deadline = Some(Instant::now() + GRACE);
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = from.shutdown(Shutdown::Both);
        let _ = to.shutdown(Shutdown::Both);
    });
}

/// Whether `bytes` (the client's messages after start-up, from a message's start) hold an
/// Execute message: each message is a type byte and a length that counts itself and the body.
fn executes(mut bytes: &[u8]) -> bool {
    while bytes.len() >= 5 {
        if bytes[0] == b'E' {
            return true;
        }
        let length = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]) as usize;
        let Some(rest) = bytes.get(1 + length..) else {
            return false;
        };
        bytes = rest;
    }
    false
}

/// Server to client, until the connection is cut.
fn back(server: &TcpStream, client: &TcpStream, dropping: Arc<AtomicBool>) {
    let (mut from, mut to) = (server.try_clone().unwrap(), client.try_clone().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || dropping.load(Ordering::SeqCst) || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
}

/// A server that accepts every connection, keeps it open and never answers.
pub struct Silent {
    address: SocketAddr,
}

impl Silent {
    pub fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for client in listener.incoming().flatten() {
                held.push(client);
            }
        });
        Silent { address }
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

/// An address on this machine nothing listens on (connections to it are refused).
pub fn refused_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}
