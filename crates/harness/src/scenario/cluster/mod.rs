//! The `cluster` capability profile (CONTRACT.md 7): GRP admission across receiver nodes, each
//! with its own `STATE_DIR`, that share only the implementation's store.
//!
//! The player ([`super::play`]) hands each cluster step to [`steps::play_step`]; every line
//! delivered, every decision read and every fault made goes into one [`history`], and
//! [`Cluster::finish`] checks the whole of it at the end ([`history::check`]). A node's link to
//! the shared store runs through the harness's own [`proxy`], so one node can be cut off while
//! the others work.

pub(crate) mod history;
pub(crate) mod proxy;
mod steps;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use agentconf_contract::decision::LineIdentity;

use self::history::{Entry, What};
use self::proxy::Proxy;
use super::{Judge, ProcessReceiver, ProcessReceivers};
use crate::grade::Failure;
use crate::status::Status;

pub(crate) use steps::play_step;

/// The most history entries a results line carries: the first ones (the check always reads
/// all of them). Bounded so the line stays well within the results reader's line limit.
pub(crate) const MAX_HISTORY_ENTRIES: usize = 128;

/// A node's link to the shared store, which the harness can cut and heal.
pub trait StoreLink {
    fn cut(&self);
    fn heal(&self);
}

impl StoreLink for Proxy {
    fn cut(&self) {
        Proxy::cut(self);
    }
    fn heal(&self) {
        Proxy::heal(self);
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
    pub(crate) fn finish(self, events: &[&[u8]], judge: &mut dyn Judge) -> Result<(), Failure> {
        for (step, why) in &self.not_run {
            judge.not_run(*step, why);
        }
        if self.history.is_empty() {
            return Ok(());
        }
        judge.history(&self.history);
        history::check(&self.history, &pair_names(events)).map_err(|a| (a.status(), a.to_string()))
    }
}

/// The name of the pair each line carries: `event E of publisher P` (lines with the same
/// members share it), or `line N` for one without both.
pub(crate) fn pair_names(events: &[&[u8]]) -> Vec<String> {
    events
        .iter()
        .enumerate()
        .map(|(n, line)| {
            let id = LineIdentity::of(line);
            match (id.event_id, id.publisher_id) {
                (Some(Some(e)), Some(Some(p))) => format!("event {e} of publisher {p}"),
                _ => format!("line {n}"),
            }
        })
        .collect()
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

    /// The environment of every receiver of the scenario, cluster node or not: the scenario's
    /// token, so that an implementation's store shared by runs, vectors and deployments keeps
    /// each scenario's pairs apart (sessions of different vectors share ids).
    pub(crate) fn scenario_env(&self) -> Vec<(String, String)> {
        vec![("AGENTCONF_CLUSTER".to_string(), self.token.clone())]
    }

    /// The environment of node `node`: its name, the scenario's token and, when the store's
    /// address is known, the address of its proxy (started here on first use).
    fn env(&mut self, node: &str) -> Result<Vec<(String, String)>, Failure> {
        let mut env = self.scenario_env();
        env.push(("AGENTCONF_NODE".to_string(), node.to_string()));
        if let Some(target) = &self.store_addr {
            if !self.proxies.contains_key(node) {
                let proxy = Proxy::start(target)
                    .map_err(|e| (Status::Crash, format!("cannot start the store proxy: {e}")))?;
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
) -> Result<ProcessReceiver, Failure> {
    let state = receivers.state.join(node);
    std::fs::create_dir_all(&state).map_err(|e| {
        (
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
pub(super) fn pause(r: &mut ProcessReceiver) -> Result<(), Failure> {
    r.wait_taken()?;
    r.child.signal_group(libc::SIGSTOP);
    Ok(())
}

/// SIGCONT to a receiver process's group.
pub(super) fn resume(r: &mut ProcessReceiver) {
    r.child.signal_group(libc::SIGCONT);
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
        assert_eq!(names[0], "event e7 of publisher p");
        assert_eq!(names[1], "line 1");
        assert_eq!(names[0], names[2]);
    }
}
