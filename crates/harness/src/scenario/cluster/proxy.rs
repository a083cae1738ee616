//! The harness's TCP proxy in front of an implementation's shared store: one per receiver node,
//! so one node's link can be cut, healed or slowed while the others' work.
//!
//! Std threads only: a listener thread per proxy, and two forwarding threads per open
//! connection. `cut` closes every open connection and closes each new one at once until `heal`.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a connection to the store may take before the client's connection is closed.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// One proxy: listens on `127.0.0.1`, forwards to the store's address.
pub(crate) struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    listener: Option<JoinHandle<()>>,
}

struct Shared {
    target: String,
    cut: AtomicBool,
    stopping: AtomicBool,
    /// Both ends of every open connection, by number, to close them on `cut`.
    open: Mutex<BTreeMap<u64, (TcpStream, TcpStream)>>,
    next: AtomicU64,
}

impl Shared {
    fn close_all(&self) {
        let open = std::mem::take(&mut *self.open.lock().unwrap_or_else(PoisonError::into_inner));
        for (client, store) in open.values() {
            let _ = client.shutdown(Shutdown::Both);
            let _ = store.shutdown(Shutdown::Both);
        }
    }

    fn close(&self, id: u64) {
        let gone = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if let Some((client, store)) = gone {
            let _ = client.shutdown(Shutdown::Both);
            let _ = store.shutdown(Shutdown::Both);
        }
    }
}

impl Proxy {
    /// Starts a proxy to `target` (`host:port`) on a free port of `127.0.0.1`.
    pub(crate) fn start(target: &str) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            target: target.to_string(),
            cut: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            open: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(0),
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

    /// Closes every open connection, and every new one at once, until [`Proxy::heal`].
    pub(crate) fn cut(&self) {
        self.shared.cut.store(true, Ordering::SeqCst);
        self.shared.close_all();
    }

    pub(crate) fn heal(&self) {
        self.shared.cut.store(false, Ordering::SeqCst);
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
        if shared.cut.load(Ordering::SeqCst) {
            let _ = client.shutdown(Shutdown::Both);
            continue;
        }
        // A store that cannot be reached looks to the node like a cut link: the client's
        // connection is dropped, and the node says so in its own way.
        let _ = connect(client, shared);
    }
}

/// Connects `client` to the store and starts forwarding both ways.
fn connect(client: TcpStream, shared: &Arc<Shared>) -> io::Result<()> {
    let target = shared
        .target
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other("the store's address resolves to nothing"))?;
    let store = TcpStream::connect_timeout(&target, CONNECT_TIMEOUT)?;
    let _ = client.set_nodelay(true);
    let _ = store.set_nodelay(true);
    let id = shared.next.fetch_add(1, Ordering::SeqCst);
    shared
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, (client.try_clone()?, store.try_clone()?));
    // A cut that came while connecting closes this one too.
    if shared.cut.load(Ordering::SeqCst) {
        shared.close(id);
        return Ok(());
    }
    for (from, to) in [(client.try_clone()?, store.try_clone()?), (store, client)] {
        let shared = Arc::clone(shared);
        std::thread::Builder::new()
            .name("store-proxy-pump".into())
            .spawn(move || {
                pump(from, to, &shared);
                shared.close(id);
            })?;
    }
    Ok(())
}

/// Copies `from` to `to` until either end closes.
fn pump(mut from: TcpStream, mut to: TcpStream, shared: &Shared) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if shared.cut.load(Ordering::SeqCst) || to.write_all(&buf[..n]).is_err() {
            return;
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

    /// Writes `bytes` and reads as many back; `None` when the link is closed.
    fn round_trip(s: &mut TcpStream, bytes: &[u8]) -> Option<Vec<u8>> {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(bytes).ok()?;
        let mut got = vec![0u8; bytes.len()];
        s.read_exact(&mut got).ok()?;
        Some(got)
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
    }

    #[test]
    fn an_unreachable_store_closes_the_node_link() {
        // A port just freed: nothing listens there.
        let free = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let proxy = Proxy::start(&free.to_string()).unwrap();
        let mut s = TcpStream::connect(proxy.addr()).unwrap();
        assert_eq!(round_trip(&mut s, b"x"), None);
    }
}
