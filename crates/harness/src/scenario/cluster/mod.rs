//! The `cluster` capability profile (CONTRACT.md 7): GRP admission across receiver nodes, each
//! with its own `STATE_DIR`, that share only the implementation's store.
//!
//! The player ([`super::play`]) hands each cluster step to [`steps::play_step`]; every line
//! delivered, every decision read and every fault made goes into one [`history`], and
//! [`Cluster::finish`] checks the whole of it at the end ([`history::check`]). A node's link to
//! the shared store runs through the harness's own [`proxy`], so one node can be cut off while
//! the others work, stalled (held open, nothing forwarded) while its node waits, or made to
//! hold a node's bytes to the store while the node is stopped.

pub(crate) mod history;
pub(crate) mod proxy;
mod steps;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use agentconf_contract::decision::LineIdentity;

use self::history::{Entry, Pair, PairKey, What};
use self::proxy::Proxy;
use super::{Judge, ProcessReceiver, ProcessReceivers};
use crate::grade::Grade;
use crate::status::Status;

pub(crate) use steps::play_step;

/// The most history entries a results line carries: the first ones (the check always reads
/// all of them). Bounded so the line stays well within the results reader's line limit.
pub(crate) const MAX_HISTORY_ENTRIES: usize = 128;

/// A node's link to the shared store, which the harness can cut, stall and heal, and (where it
/// can) make hold the node's bytes to the store.
pub trait StoreLink {
    /// Closes the link: open connections and every new one, until [`StoreLink::heal`].
    fn cut(&self);
    /// Ends a cut or a stall: what a stall held is forwarded then, late.
    fn heal(&self);
    /// Delays the link without cutting it: connections stay open (new ones are taken) and no
    /// byte is forwarded either way until [`StoreLink::heal`]. A link that cannot delay bytes
    /// (the in-process one) cuts instead: the node cannot reach its store either way.
    fn stall(&self) {
        self.cut();
    }
    /// Starts holding the node's bytes to the store (buffered, not forwarded; the store's
    /// bytes to the node still pass) until [`StoreLink::release`]: `false` when the link cannot.
    fn hold(&self) -> bool {
        false
    }
    /// How many of the node's bytes to the store are held now.
    fn held(&self) -> usize {
        0
    }
    /// Forwards what is held now, and goes on holding what comes after.
    fn pass(&self) {}
    /// Forwards what was held to the store, and everything after it.
    fn release(&self) {}
}

impl StoreLink for Proxy {
    fn cut(&self) {
        Proxy::cut(self);
    }
    fn heal(&self) {
        Proxy::heal(self);
    }
    fn stall(&self) {
        Proxy::stall(self);
    }
    fn hold(&self) -> bool {
        Proxy::hold(self);
        true
    }
    fn held(&self) -> usize {
        Proxy::held(self)
    }
    fn pass(&self) {
        Proxy::pass(self);
    }
    fn release(&self) {
        Proxy::release(self);
    }
}

/// What a scenario's cluster steps recorded.
pub(crate) struct Cluster {
    began: Instant,
    history: Vec<Entry>,
    /// The steps not run, each with why.
    not_run: Vec<(usize, String)>,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster {
            began: Instant::now(),
            history: Vec::new(),
            not_run: Vec::new(),
        }
    }
}

impl Cluster {
    fn record(&mut self, node: &str, line: Option<usize>, decision: What, reason: Option<String>) {
        self.history.push(Entry {
            node: node.to_string(),
            t_us: u64::try_from(self.began.elapsed().as_micros()).unwrap_or(u64::MAX),
            line,
            decision,
            reason,
        });
    }

    /// Everything recorded so far.
    pub(crate) fn history(&self) -> &[Entry] {
        &self.history
    }

    /// Hands the judge the history and the steps not run, then checks the whole history:
    /// `events` are the scenario's event lines (their pairs name the anomaly).
    pub(crate) fn finish(self, events: &[&[u8]], judge: &mut dyn Judge) -> Result<(), Grade> {
        for (step, why) in &self.not_run {
            judge.not_run(*step, why);
        }
        if self.history.is_empty() {
            return Ok(());
        }
        judge.history(&self.history);
        history::check(&self.history, &pair_names(events))
            .map_err(|a| Grade::new(a.status(), a.to_string()))
    }
}

/// The pair each line carries, keyed by (session nonce, publisher, event) as the line gives
/// them (the same event id and publisher in two sessions are two pairs), and named `event E of
/// publisher P`, with ` in session NONCE` when the lines carry more than one nonce; `line N` for
/// a line without both `event_id` and `publisher_id` (its own pair).
pub(crate) fn pair_names(events: &[&[u8]]) -> Vec<Pair> {
    let keys: Vec<PairKey> = events
        .iter()
        .enumerate()
        .map(|(n, line)| {
            let id = LineIdentity::of(line);
            match (id.event_id, id.publisher_id) {
                (Some(Some(event)), Some(Some(publisher))) => PairKey::Members {
                    nonce: session_nonce(line),
                    publisher,
                    event,
                },
                _ => PairKey::Line(n),
            }
        })
        .collect();
    let sessions = history::nonces(&keys) > 1;
    keys.into_iter()
        .map(|key| {
            let name = match &key {
                PairKey::Members {
                    nonce,
                    publisher,
                    event,
                } => {
                    let mut name = format!("event {event} of publisher {publisher}");
                    if sessions {
                        match nonce {
                            Some(nonce) => name.push_str(&format!(" in session {nonce}")),
                            None => name.push_str(" without a session nonce"),
                        }
                    }
                    name
                }
                PairKey::Line(n) => format!("line {n}"),
            };
            Pair { key, name }
        })
        .collect()
}

/// The line's `session_nonce`, when it is an object with a string one.
fn session_nonce(line: &[u8]) -> Option<String> {
    match serde_json::from_slice::<serde_json::Value>(line) {
        Ok(serde_json::Value::Object(m)) => m
            .get("session_nonce")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// What receiver processes of a cluster step are started with, beyond the contract's call.
#[derive(Default)]
pub(crate) struct NodeSetup {
    /// `AGENTCONF_CLUSTER`: unique to the scenario run.
    token: String,
    /// The address of the implementation's shared store (CONTRACT.md 12.5), if it names one.
    store_addr: Option<String>,
    /// A proxy per node, started with the node's first process.
    proxies: BTreeMap<String, Proxy>,
}

impl NodeSetup {
    /// For one run of the case `case_id`; `store_addr` is the store's address, if known.
    pub(crate) fn new(case_id: &str, store_addr: Option<String>) -> NodeSetup {
        NodeSetup {
            token: cluster_token(case_id),
            store_addr,
            proxies: BTreeMap::new(),
        }
    }

    /// Node `node`'s link, once its proxy was started.
    pub(crate) fn link(&self, node: &str) -> Option<&dyn StoreLink> {
        self.proxies.get(node).map(|p| p as &dyn StoreLink)
    }

    /// What went wrong between the proxies and the store, if anything did: a node that cannot
    /// reach the store is said so (a scenario failing for it would otherwise show only the
    /// node's deferrals).
    pub(crate) fn trouble(&self) -> Option<String> {
        let failed: Vec<(&str, proxy::ConnectFailures)> = self
            .proxies
            .iter()
            .filter_map(|(node, p)| p.connect_failures().map(|f| (node.as_str(), f)))
            .collect();
        let target = self.store_addr.as_deref()?;
        let times = |f: &proxy::ConnectFailures| match f.count {
            1 => format!("once: {}", f.last),
            n => format!("{n} times: {}", f.last),
        };
        let who = match failed.as_slice() {
            [] => return None,
            [(node, f)] => format!(
                "the harness's proxy for node {node} could not connect to the store at \
                 {target} ({})",
                times(f)
            ),
            more => {
                let each: Vec<String> = more
                    .iter()
                    .map(|(node, f)| format!("{node} ({})", times(f)))
                    .collect();
                format!(
                    "the harness's proxies for nodes {} could not connect to the store at \
                     {target}",
                    each.join(", ")
                )
            }
        };
        Some(format!(
            "{who}: check the store's address (AGENTCONF_GRP_STORE, or the adapter's [grp] \
             store_addr)"
        ))
    }

    /// The environment of every receiver of the scenario, cluster node or not: the scenario's
    /// token, so that an implementation's store shared by runs, vectors and deployments keeps
    /// each scenario's pairs apart (sessions of different vectors share ids).
    pub(crate) fn scenario_env(&self) -> Vec<(String, String)> {
        vec![("AGENTCONF_CLUSTER".to_string(), self.token.clone())]
    }

    /// The environment of node `node`: its name, the scenario's token and, when the store's
    /// address is known, the address of its proxy (started here on first use).
    fn env(&mut self, node: &str) -> Result<Vec<(String, String)>, Grade> {
        let mut env = self.scenario_env();
        env.push(("AGENTCONF_NODE".to_string(), node.to_string()));
        if let Some(target) = &self.store_addr {
            if !self.proxies.contains_key(node) {
                let proxy = Proxy::start(target).map_err(|e| {
                    Grade::new(Status::Crash, format!("cannot start the store proxy: {e}"))
                })?;
                self.proxies.insert(node.to_string(), proxy);
            }
            if let Some(p) = self.proxies.get(node) {
                env.push(("AGENTCONF_STORE_ADDR".to_string(), p.addr().to_string()));
            }
        }
        Ok(env)
    }
}

/// `<hash of the case id>-<random>-<counter>`: distinct for every scenario run, so receivers
/// sharing a store namespace their state per run (sessions of different vectors share ids).
/// The random part is drawn once per harness process from the operating system (through std's
/// hash keys): a process id alone repeats across runs (in containers, often), and a later run
/// that reused an earlier one's token would see its pairs as duplicates.
fn cluster_token(case_id: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::OnceLock;
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static RUN: OnceLock<u64> = OnceLock::new();
    let run = *RUN.get_or_init(|| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        if let Ok(since) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.write_u128(since.as_nanos());
        }
        h.finish()
    });
    // FNV-1a: short, stable, no dependency.
    let hash = case_id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!(
        "{hash:016x}-{run:016x}-{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Starts receiver process `node` on its own state directory (`STATE_DIR/<node>`, kept across
/// the scenario's steps, as a node keeps its disk) with the node's environment.
pub(super) fn start_process_node(
    receivers: &mut ProcessReceivers<'_>,
    session: &str,
    node: &str,
) -> Result<ProcessReceiver, Grade> {
    let state = receivers.state.join(node);
    std::fs::create_dir_all(&state).map_err(|e| {
        Grade::new(
            Status::Crash,
            format!("cannot create {}: {e}", state.display()),
        )
    })?;
    let env = receivers.nodes.env(node)?;
    let mut r = receivers.spawn(session, &state, &env)?;
    // Nodes race (a node-race round hands every node its line before any answer is read).
    r.child.without_spin();
    Ok(r)
}

/// SIGSTOP to a receiver process's group, once it has taken the line last handed to it.
pub(super) fn pause(r: &mut ProcessReceiver) -> Result<(), Grade> {
    r.wait_taken()?;
    r.child.signal_group(rustix::process::Signal::STOP);
    Ok(())
}

/// Whether a receiver process has taken everything written to its input (Linux tells how much
/// of a pipe is unread; elsewhere it is taken as read), without waiting.
pub(super) fn taken(r: &mut ProcessReceiver) -> Result<bool, Grade> {
    match r.child.unread_input() {
        Some(0) | None => Ok(true),
        Some(_) if r.child.exited().is_some() => {
            Err(r.ended("ended before it read its event line"))
        }
        Some(_) => Ok(false),
    }
}

/// SIGCONT to a receiver process's group.
pub(super) fn resume(r: &mut ProcessReceiver) {
    r.child.signal_group(rustix::process::Signal::CONT);
}

/// The address of the store an implementation's nodes share: the adapter's `[grp] store_addr`,
/// else the host and port of `AGENTCONF_GRP_STORE` (the reference's
/// `postgres://USER@HOST:PORT/DB`), else none (partition steps are then not run).
pub(crate) fn store_address(from_adapter: Option<&str>) -> Option<String> {
    from_adapter.map(str::to_string).or_else(|| {
        std::env::var("AGENTCONF_GRP_STORE")
            .ok()
            .and_then(|url| postgres_host_port(&url))
    })
}

/// `HOST:PORT` of a `postgres://` or `postgresql://` URL (port 5432 when it names none).
pub(crate) fn postgres_host_port(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !matches!(scheme, "postgres" | "postgresql") {
        return None;
    }
    let authority = rest.split(['/', '?']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() {
        return None;
    }
    // `[::1]:5432`, `db:5432`; a bare IPv6 literal is bracketed, so a colon after a `]` or in a
    // name without brackets starts the port.
    let port = host_port
        .rsplit_once(':')
        .filter(|(host, port)| {
            !host.is_empty()
                && port.parse::<u16>().is_ok()
                && (host.ends_with(']') || !host.contains(':'))
        })
        .is_some();
    Some(if port {
        host_port.to_string()
    } else {
        format!("{host_port}:5432")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest history a results line carries takes at most half of the longest line a
    /// results file may have, leaving the rest for the case's metadata, detail and stderr.
    #[test]
    fn a_full_history_fits_a_results_line() {
        let widest = Entry {
            node: "n99".into(),
            t_us: 10_000_000_000,
            line: Some(99_999),
            decision: What::Delivered,
            reason: Some("publisher_registration_not_yet_valid".into()),
        };
        let full = vec![widest; MAX_HISTORY_ENTRIES];
        let bytes = serde_json::to_string(&full).unwrap().len();
        assert!(bytes <= crate::results::MAX_LINE_BYTES / 2, "{bytes} bytes");
    }

    #[test]
    fn the_store_address_of_a_postgres_url() {
        let of = |u: &str| postgres_host_port(u);
        assert_eq!(
            of("postgres://agent@127.0.0.1:5433/grp").as_deref(),
            Some("127.0.0.1:5433")
        );
        assert_eq!(
            of("postgresql://u:pw@db/grp?sslmode=disable").as_deref(),
            Some("db:5432")
        );
        assert_eq!(of("postgres://[::1]:6000/x").as_deref(), Some("[::1]:6000"));
        assert_eq!(of("postgres://[::1]/x").as_deref(), Some("[::1]:5432"));
        assert_eq!(of("sqlite:/tmp/x"), None);
        assert_eq!(of("postgres:///grp"), None);
    }

    #[test]
    fn tokens_differ_per_run_and_pairs_are_named_by_their_members() {
        assert_ne!(cluster_token("grp/x"), cluster_token("grp/x"));
        let lines: [&[u8]; 3] = [
            br#"{"event_id":"e7","publisher_id":"p"}"#,
            b"not json",
            br#"{"publisher_id":"p","event_id":"e7","other":1}"#,
        ];
        let names = pair_names(&lines);
        assert_eq!(names[0].name, "event e7 of publisher p");
        assert_eq!(names[1].name, "line 1");
        assert_eq!(names[0], names[2]);
    }

    /// The same event id and publisher under two nonces are two pairs, and the names say which
    /// session only when the lines carry more than one.
    #[test]
    fn pairs_are_keyed_by_session_publisher_and_event() {
        let lines: [&[u8]; 4] = [
            br#"{"event_id":"e","publisher_id":"p","session_nonce":"a"}"#,
            br#"{"event_id":"e","publisher_id":"p","session_nonce":"b"}"#,
            br#"{"event_id":"e","publisher_id":"q","session_nonce":"a"}"#,
            br#"{"session_nonce":"a","publisher_id":"p","event_id":"e"}"#,
        ];
        let pairs = pair_names(&lines);
        assert_ne!(pairs[0].key, pairs[1].key);
        assert_ne!(pairs[0].key, pairs[2].key);
        assert_eq!(pairs[0].key, pairs[3].key);
        assert_eq!(pairs[0].name, "event e of publisher p in session a");
        assert_eq!(pairs[1].name, "event e of publisher p in session b");
        assert_eq!(pairs[2].name, "event e of publisher q in session a");
        let one: [&[u8]; 2] = [lines[0], lines[2]];
        let pairs = pair_names(&one);
        assert_eq!(pairs[0].name, "event e of publisher p");
        assert_eq!(pairs[1].name, "event e of publisher q");
    }

    /// A proxy that cannot reach the store is named with its node, the store's address, how
    /// often and why.
    #[test]
    fn a_node_that_cannot_reach_the_store_is_said_so() {
        let free = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .to_string();
        let mut setup = NodeSetup::new("grp/x", Some(free.clone()));
        assert_eq!(setup.trouble(), None);
        setup.env("n1").unwrap();
        assert_eq!(setup.trouble(), None, "no connection tried yet");
        let addr = setup.proxies["n1"].addr();
        for _ in 0..3 {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            // Closed by the proxy once its connection to the store failed.
            let _ = std::io::Read::read(&mut s, &mut [0u8; 1]);
        }
        assert_eq!(
            setup.trouble().as_deref(),
            Some(
                format!(
                    "the harness's proxy for node n1 could not connect to the store at {free} \
                     (3 times: Connection refused): check the store's address \
                     (AGENTCONF_GRP_STORE, or the adapter's [grp] store_addr)"
                )
                .as_str()
            )
        );
    }
}
