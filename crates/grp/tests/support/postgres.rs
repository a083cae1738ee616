//! The PostgreSQL server the store tests use (`AGENTCONF_TEST_POSTGRES`), statements run on it
//! directly, and a TCP proxy in front of it whose link a test can cut, stall and heal.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use agentconf_grp::store::{
    ClusterEnv, Create, Durability, Opening, PostgresOpenError, PostgresStore, PostgresTarget,
};

/// `url` with its tables in the schema `schema` (created here), apart from every other test's.
pub fn in_schema(url: &str, schema: &str) -> String {
    run_sql(url, &format!("CREATE SCHEMA {schema}"));
    let joint = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joint}options=-c%20search_path%3D{schema}")
}

/// Runs `statements` on the database `url` names.
pub fn run_sql(url: &str, statements: &str) {
    if let Err(e) = try_sql(url, statements) {
        panic!("{statements}: {e}");
    }
}

/// Runs `statements` on the database `url` names, saying what failed.
pub fn try_sql(url: &str, statements: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let config: tokio_postgres::Config = url.parse().map_err(|e| format!("{e}"))?;
        let (client, connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        client
            .batch_execute(statements)
            .await
            .map_err(|e| format!("{e:?}"))
    })
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

/// The first column of the first row `query` returns on the database `url` names, as text
/// (`None` for no row or a null).
pub fn query_text(url: &str, query: &str) -> Option<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config: tokio_postgres::Config = url.parse().unwrap();
        let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let rows = client.simple_query(query).await.unwrap();
        rows.iter().find_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
    })
}

/// A database of its own on the server (`CREATE DATABASE`), dropped with its connections when
/// this is dropped: for what a schema of its own cannot isolate (an empty database, database
/// settings).
pub struct ScratchDatabase {
    /// The server's URL (where the database is created and dropped from).
    server: String,
    pub name: String,
    /// The database's URL.
    pub url: String,
}

impl ScratchDatabase {
    /// A new empty database named `name` (a fresh token: see `postgres_server::unique`).
    pub fn create(server: &str, name: &str) -> ScratchDatabase {
        run_sql(server, &format!("CREATE DATABASE {name}"));
        ScratchDatabase {
            server: server.to_string(),
            name: name.to_string(),
            url: with_database(server, name),
        }
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        // Not `run_sql`: a failure to clean up must not turn into a second panic.
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = try_sql(&self.server, &drop) {
            eprintln!("{drop}: {e}");
        }
    }
}

/// A schema of its own on the server ([`in_schema`]), dropped with its tables when this is
/// dropped.
pub struct ScratchSchema {
    server: String,
    name: String,
    /// The server's URL with this schema as the search path.
    pub url: String,
}

impl ScratchSchema {
    /// A new empty schema named `name` (a fresh token: see `postgres_server::unique`).
    pub fn create(server: &str, name: &str) -> ScratchSchema {
        ScratchSchema {
            server: server.to_string(),
            name: name.to_string(),
            url: in_schema(server, name),
        }
    }
}

impl Drop for ScratchSchema {
    fn drop(&mut self) {
        let drop = format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name);
        if let Err(e) = try_sql(&self.server, &drop) {
            eprintln!("{drop}: {e}");
        }
    }
}

/// `url` naming the database `name` instead of its own (its query kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let query = tail.find('?').map_or("", |at| &tail[at..]);
    format!("{scheme}://{authority}/{name}{query}")
}

/// A node `node` of cluster `cluster` on `url`, reached at `addr` when given.
pub fn node_at(
    url: &str,
    cluster: &str,
    node: &str,
    addr: Option<String>,
    create: Create,
) -> Result<PostgresStore, PostgresOpenError> {
    let env = ClusterEnv {
        store: None,
        store_addr: addr,
        cluster: Some(cluster.to_string()),
        node: Some(node.to_string()),
    };
    let target = PostgresTarget::new(url)
        .and_then(|t| t.in_cluster(&env))
        .map_err(PostgresOpenError::Target)?;
    PostgresStore::open(
        &target,
        Opening {
            create,
            durability: Durability::ProcessCrash,
        },
    )
}
