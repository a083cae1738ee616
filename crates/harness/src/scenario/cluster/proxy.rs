//! The harness's TCP proxy in front of an implementation's shared store: one per receiver node,
//! so one node's link can be cut, stalled, held or healed while the others' work.
//!
//! Std threads only: a listener thread per proxy, and two forwarding threads per open
//! connection (one per direction). The proxy is in one [`Mode`] at a time:
//!
//! - forward: every byte goes through;
//! - cut: every open connection is closed, and each new one at once, until healed;
//! - stall: connections stay open and new ones are taken (and connected to the store), but no
//!   byte is forwarded either way: what arrives is held, and forwarded, late, when healed. A
//!   connection whose end closes meanwhile is closed after its held bytes went through;
//! - hold: as stall, for the node's bytes to the store only (the store's answers still pass),
//!   until released.
//!
//! Each direction keeps what it holds under its own lock, and whoever forwards (its thread, or
//! the heal that flushes it) writes under that lock, so the bytes keep their order.
//!
//! The proxy counts the connections to the store it could not make, with the last error, so a
//! node whose store cannot be reached is said so.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a connection to the store may take before the client's connection is closed.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one write to either end may block (a peer that stopped reading): the connection is
/// closed then, rather than the harness's thread that heals held up.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the proxy does with the bytes of its connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Mode {
    Forward = 0,
    Cut = 1,
    Stall = 2,
    Hold = 3,
}

impl Mode {
    fn of(v: u8) -> Mode {
        match v {
            1 => Mode::Cut,
            2 => Mode::Stall,
            3 => Mode::Hold,
            _ => Mode::Forward,
        }
    }

    /// Whether bytes going `up` (node to store) or down are held in this mode.
    fn holds(self, up: bool) -> bool {
        match self {
            Mode::Stall => true,
            Mode::Hold => up,
            Mode::Forward | Mode::Cut => false,
        }
    }
}

/// The connections to the store the proxy could not make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConnectFailures {
    pub(crate) count: u64,
    /// The last error, without its `(os error N)`.
    pub(crate) last: String,
}

/// One proxy: listens on `127.0.0.1`, forwards to the store's address.
pub(crate) struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    listener: Option<JoinHandle<()>>,
}

/// What one direction of a connection holds.
#[derive(Default)]
struct Held {
    bytes: Vec<u8>,
    /// Its source closed while it was held: the connection closes once they went through.
    ended: bool,
}

/// One direction of a connection, to flush: what it holds, where it goes, whether it goes up
/// (node to store).
type Direction = (Arc<Mutex<Held>>, io::Result<TcpStream>, bool);

/// One open connection: both ends, and what each direction holds.
struct Conn {
    client: TcpStream,
    store: TcpStream,
    up: Arc<Mutex<Held>>,
    down: Arc<Mutex<Held>>,
}

struct Shared {
    target: String,
    mode: AtomicU8,
    stopping: AtomicBool,
    /// Every open connection, by number, to close or flush them.
    open: Mutex<BTreeMap<u64, Conn>>,
    next: AtomicU64,
    failures: Mutex<Option<ConnectFailures>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn mode(&self) -> Mode {
        Mode::of(self.mode.load(Ordering::SeqCst))
    }

    fn set(&self, mode: Mode) {
        self.mode.store(mode as u8, Ordering::SeqCst);
    }

    fn close_all(&self) {
        let open = std::mem::take(&mut *lock(&self.open));
        for conn in open.values() {
            let _ = conn.client.shutdown(Shutdown::Both);
            let _ = conn.store.shutdown(Shutdown::Both);
        }
    }

    fn close(&self, id: u64) {
        let gone = lock(&self.open).remove(&id);
        if let Some(conn) = gone {
            let _ = conn.client.shutdown(Shutdown::Both);
            let _ = conn.store.shutdown(Shutdown::Both);
        }
    }

    /// Forwards what every connection holds in the directions the current mode no longer holds;
    /// a connection whose held source had closed is closed after.
    fn flush(&self) {
        let mode = self.mode();
        self.forward_held(|up| !mode.holds(up));
    }

    /// Forwards what every connection holds in the directions `forward` names (`true`: node to
    /// store); a connection whose held source had closed is closed after.
    fn forward_held(&self, forward: impl Fn(bool) -> bool) {
        let conns: Vec<(u64, [Direction; 2])> = lock(&self.open)
            .iter()
            .map(|(id, c)| {
                (
                    *id,
                    [
                        (Arc::clone(&c.up), c.store.try_clone(), true),
                        (Arc::clone(&c.down), c.client.try_clone(), false),
                    ],
                )
            })
            .collect();
        for (id, directions) in conns {
            let mut close = false;
            for (held, to, up) in directions {
                if !forward(up) {
                    continue;
                }
                let mut held = lock(&held);
                let bytes = std::mem::take(&mut held.bytes);
                let written = match to {
                    Ok(mut to) => bytes.is_empty() || to.write_all(&bytes).is_ok(),
                    Err(_) => false,
                };
                close |= held.ended || !written;
            }
            if close {
                self.close(id);
            }
        }
    }

    fn failed(&self, e: &io::Error) {
        let text = e.to_string();
        // `Connection refused (os error 111)`: the words are enough.
        let last = match text.rfind(" (os error ") {
            Some(at) if text.ends_with(')') => text[..at].to_string(),
            _ => text,
        };
        let mut failures = lock(&self.failures);
        let count = failures.as_ref().map_or(0, |f| f.count) + 1;
        *failures = Some(ConnectFailures { count, last });
    }
}

impl Proxy {
    /// Starts a proxy to `target` (`host:port`) on a free port of `127.0.0.1`.
    pub(crate) fn start(target: &str) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            target: target.to_string(),
            mode: AtomicU8::new(Mode::Forward as u8),
            stopping: AtomicBool::new(false),
            open: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(0),
            failures: Mutex::new(None),
        });
        let for_thread = Arc::clone(&shared);
        let listener = std::thread::Builder::new()
            .name("store-proxy".into())
            .spawn(move || listen(&listener, &for_thread))?;
        Ok(Proxy {
            addr,
            shared,
            listener: Some(listener),
        })
    }

    /// The address a node is handed (`AGENTCONF_STORE_ADDR`).
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Closes every open connection, and every new one at once, until [`Proxy::heal`]. What
    /// was held is dropped with them.
    pub(crate) fn cut(&self) {
        self.shared.set(Mode::Cut);
        self.shared.close_all();
    }

    /// Holds every byte either way, on open connections and new ones, until [`Proxy::heal`].
    pub(crate) fn stall(&self) {
        self.shared.set(Mode::Stall);
    }

    /// Holds the node's bytes to the store until [`Proxy::release`].
    pub(crate) fn hold(&self) {
        self.shared.set(Mode::Hold);
    }

    /// How many of the node's bytes to the store are held now.
    pub(crate) fn held(&self) -> usize {
        let ups: Vec<Arc<Mutex<Held>>> = lock(&self.shared.open)
            .values()
            .map(|c| Arc::clone(&c.up))
            .collect();
        ups.iter().map(|h| lock(h).bytes.len()).sum()
    }

    /// Forwards what a hold kept so far, and goes on holding what comes after.
    pub(crate) fn pass(&self) {
        self.shared.forward_held(|up| up);
    }

    /// Forwards what a hold kept, and everything after it.
    pub(crate) fn release(&self) {
        self.heal();
    }

    /// Ends a cut, a stall or a hold: what was held is forwarded now, late.
    pub(crate) fn heal(&self) {
        self.shared.set(Mode::Forward);
        self.shared.flush();
    }

    /// The connections to the store it could not make, if any.
    pub(crate) fn connect_failures(&self) -> Option<ConnectFailures> {
        lock(&self.shared.failures).clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wakes the listener's `accept`.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.listener.take() {
            let _ = t.join();
        }
        self.shared.close_all();
    }
}

fn listen(listener: &TcpListener, shared: &Arc<Shared>) {
    for client in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = client else { continue };
        if shared.mode() == Mode::Cut {
            let _ = client.shutdown(Shutdown::Both);
            continue;
        }
        // A store that cannot be reached looks to the node like a cut link: the client's
        // connection is dropped, and the node says so in its own way. The proxy counts it.
        match connect_store(shared) {
            Ok(store) => {
                let _ = start(client, store, shared);
            }
            Err(e) => {
                shared.failed(&e);
                let _ = client.shutdown(Shutdown::Both);
            }
        }
    }
}

/// A connection to the store.
fn connect_store(shared: &Shared) -> io::Result<TcpStream> {
    let target = shared
        .target
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other("the store's address resolves to nothing"))?;
    TcpStream::connect_timeout(&target, CONNECT_TIMEOUT)
}

/// Starts forwarding between `client` and `store`, both ways.
fn start(client: TcpStream, store: TcpStream, shared: &Arc<Shared>) -> io::Result<()> {
    for s in [&client, &store] {
        let _ = s.set_nodelay(true);
        let _ = s.set_write_timeout(Some(WRITE_TIMEOUT));
    }
    let id = shared.next.fetch_add(1, Ordering::SeqCst);
    let up = Arc::new(Mutex::new(Held::default()));
    let down = Arc::new(Mutex::new(Held::default()));
    lock(&shared.open).insert(
        id,
        Conn {
            client: client.try_clone()?,
            store: store.try_clone()?,
            up: Arc::clone(&up),
            down: Arc::clone(&down),
        },
    );
    // A cut that came while connecting closes this one too.
    if shared.mode() == Mode::Cut {
        shared.close(id);
        return Ok(());
    }
    for (from, to, held, is_up) in [
        (client.try_clone()?, store.try_clone()?, up, true),
        (store, client, down, false),
    ] {
        let shared = Arc::clone(shared);
        std::thread::Builder::new()
            .name("store-proxy-pump".into())
            .spawn(move || {
                if pump(from, to, &held, is_up, &shared) {
                    shared.close(id);
                }
            })?;
    }
    Ok(())
}

/// Copies `from` to `to` until either end closes, holding what the mode holds. `true` when the
/// connection is to be closed now; `false` when its source ended while held (the flush that
/// forwards the held bytes closes it).
fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    held: &Mutex<Held>,
    up: bool,
    shared: &Shared,
) -> bool {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let read = from.read(&mut buf);
        let mut held = lock(held);
        let mode = shared.mode();
        let n = match read {
            Ok(0) | Err(_) => {
                if mode.holds(up) {
                    held.ended = true;
                    return false;
                }
                // A heal that came meanwhile may not have flushed yet: what was held goes first.
                let earlier = std::mem::take(&mut held.bytes);
                let _ = to.write_all(&earlier);
                return true;
            }
            Ok(n) => n,
        };
        if mode == Mode::Cut {
            return true;
        }
        if mode.holds(up) {
            held.bytes.extend_from_slice(&buf[..n]);
            continue;
        }
        let earlier = std::mem::take(&mut held.bytes);
        if to.write_all(&earlier).is_err() || to.write_all(&buf[..n]).is_err() {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store that echoes every byte back, on its own thread, for as many connections as come.
    fn echo_store() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(mut s) = s else { return };
                std::thread::spawn(move || {
                    let mut buf = [0u8; 256];
                    while let Ok(n) = s.read(&mut buf) {
                        if n == 0 || s.write_all(&buf[..n]).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        addr
    }

    /// Writes `bytes` and reads as many back within `wait`; `None` when the link is closed or
    /// nothing came.
    fn round_trip_within(s: &mut TcpStream, bytes: &[u8], wait: Duration) -> Option<Vec<u8>> {
        s.set_read_timeout(Some(wait)).unwrap();
        s.write_all(bytes).ok()?;
        let mut got = vec![0u8; bytes.len()];
        s.read_exact(&mut got).ok()?;
        Some(got)
    }

    fn round_trip(s: &mut TcpStream, bytes: &[u8]) -> Option<Vec<u8>> {
        round_trip_within(s, bytes, Duration::from_secs(10))
    }

    #[test]
    fn forwards_both_ways_and_cut_closes_open_and_new_links_until_healed() {
        let proxy = Proxy::start(&echo_store().to_string()).unwrap();
        let mut open = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(
            round_trip(&mut open, b"ping").as_deref(),
            Some(&b"ping"[..])
        );

        proxy.cut();
        assert_eq!(
            round_trip(&mut open, b"lost"),
            None,
            "an open link is closed"
        );
        let mut new = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(round_trip(&mut new, b"lost"), None, "a new link is closed");

        proxy.heal();
        let mut again = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(
            round_trip(&mut again, b"back").as_deref(),
            Some(&b"back"[..])
        );
        assert_eq!(proxy.connect_failures(), None);
    }

    /// A stall delays, it does not cut: open and new connections stay open, nothing comes back
    /// while it lasts, and everything held arrives, in order, once healed.
    #[test]
    fn a_stall_holds_every_byte_until_healed_and_then_forwards_it_late() {
        let proxy = Proxy::start(&echo_store().to_string()).unwrap();
        let mut open = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(round_trip(&mut open, b"a").as_deref(), Some(&b"a"[..]));

        proxy.stall();
        let short = Duration::from_millis(200);
        assert_eq!(round_trip_within(&mut open, b"12", short), None);
        let mut new = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(round_trip_within(&mut new, b"xy", short), None);
        // The open one's bytes were held going up (the store never saw them).
        assert_eq!(proxy.held(), 4);

        proxy.heal();
        open.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        new.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut late = [0u8; 2];
        open.read_exact(&mut late).unwrap();
        assert_eq!(&late, b"12");
        new.read_exact(&mut late).unwrap();
        assert_eq!(&late, b"xy");
        assert_eq!(round_trip(&mut open, b"34").as_deref(), Some(&b"34"[..]));
        assert_eq!(proxy.held(), 0);
    }

    /// A hold keeps the node's bytes from the store (and says how many it holds) until
    /// released; the store's bytes to the node still pass meanwhile.
    #[test]
    fn a_hold_keeps_the_node_bytes_until_released() {
        let proxy = Proxy::start(&echo_store().to_string()).unwrap();
        let mut s = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(round_trip(&mut s, b"a").as_deref(), Some(&b"a"[..]));
        proxy.hold();
        s.write_all(b"held").unwrap();
        let mut waited = 0;
        while proxy.held() < 4 && waited < 2000 {
            std::thread::sleep(Duration::from_millis(1));
            waited += 1;
        }
        assert_eq!(proxy.held(), 4);
        // Passed through, and the hold goes on.
        proxy.pass();
        assert_eq!(proxy.held(), 0);
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut got = [0u8; 4];
        s.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"held");
        s.write_all(b"more").unwrap();
        let mut waited = 0;
        while proxy.held() < 4 && waited < 2000 {
            std::thread::sleep(Duration::from_millis(1));
            waited += 1;
        }
        assert_eq!(proxy.held(), 4);
        proxy.release();
        s.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"more");
        assert_eq!(proxy.held(), 0);
    }

    #[test]
    fn an_unreachable_store_closes_the_node_link_and_is_counted() {
        // A port just freed: nothing listens there.
        let free = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let proxy = Proxy::start(&free.to_string()).unwrap();
        for _ in 0..2 {
            let mut s = TcpStream::connect(proxy.addr()).unwrap();
            assert_eq!(round_trip(&mut s, b"x"), None);
        }
        let failures = proxy.connect_failures().expect("counted");
        assert_eq!(failures.count, 2);
        assert_eq!(failures.last, "Connection refused");
    }
}
