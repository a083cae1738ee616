//! The PostgreSQL server the store tests use (`AGENTCONF_TEST_POSTGRES`), statements run on it
//! directly, and a TCP proxy in front of it whose link a test can cut, stall and heal.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// `url` with its tables in the schema `schema` (created here), apart from every other test's.
pub fn in_schema(url: &str, schema: &str) -> String {
    run_sql(url, &format!("CREATE SCHEMA {schema}"));
    let joint = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joint}options=-c%20search_path%3D{schema}")
}

/// Runs `statements` on the database `url` names.
pub fn run_sql(url: &str, statements: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config: tokio_postgres::Config = url.parse().unwrap();
        let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        client.batch_execute(statements).await.unwrap();
    });
}

/// The server's `HOST:PORT`.
pub fn address(url: &str) -> SocketAddr {
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(host) => host.clone(),
        other => panic!("a TCP host, not {other:?}"),
    };
    format!("{host}:{}", config.get_ports()[0]).parse().unwrap()
}

/// What the proxy does with the link.
const OPEN: u8 = 0;
const CUT: u8 = 1;
const STALLED: u8 = 2;

/// A TCP proxy to the server. Cut: its connections are closed and new ones closed at once.
/// Stalled: connections are accepted and kept, but nothing is passed on.
pub struct Proxy {
    address: SocketAddr,
    state: Arc<AtomicU8>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    pub fn to(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = Proxy {
            address: listener.local_addr().unwrap(),
            state: Arc::new(AtomicU8::new(OPEN)),
            streams: Arc::new(Mutex::new(Vec::new())),
        };
        let (state, streams) = (proxy.state.clone(), proxy.streams.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                match state.load(Ordering::SeqCst) {
                    CUT => drop(client),
                    STALLED => streams.lock().unwrap().push(client),
                    _ => {
                        let Ok(server) = TcpStream::connect(upstream) else {
                            continue;
                        };
                        pipe(&client, &server, &state, &streams);
                        pipe(&server, &client, &state, &streams);
                    }
                }
            }
        });
        proxy
    }

    /// `HOST:PORT`, for `AGENTCONF_STORE_ADDR`.
    pub fn address(&self) -> String {
        self.address.to_string()
    }

    pub fn cut(&self) {
        self.state.store(CUT, Ordering::SeqCst);
        for stream in self.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Nothing passes either way, and nothing is closed.
    pub fn stall(&self) {
        self.state.store(STALLED, Ordering::SeqCst);
    }

    pub fn heal(&self) {
        self.cut();
        self.state.store(OPEN, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` while the link is open (a stalled link holds what it read).
fn pipe(from: &TcpStream, to: &TcpStream, state: &Arc<AtomicU8>, streams: &Mutex<Vec<TcpStream>>) {
    let (mut from, mut to) = (from.try_clone().unwrap(), to.try_clone().unwrap());
    streams.lock().unwrap().push(from.try_clone().unwrap());
    let state = state.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || state.load(Ordering::SeqCst) == CUT {
                break;
            }
            while state.load(Ordering::SeqCst) == STALLED {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            if state.load(Ordering::SeqCst) != OPEN || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}
