//! The cluster mutants go wrong as `agentconf-mutant --list` says, where the reference (`none`)
//! run as the same nodes does not: receiver nodes with their own `STATE_DIR`s on one PostgreSQL
//! store (`AGENTCONF_TEST_POSTGRES`; without it these tests skip with one line, unless
//! `AGENTCONF_REQUIRE_POSTGRES=1` makes that a failure).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use agentconf_corpus::grp::common::{session_json, Fixture, P3_ID};
use agentconf_grp::event::PublisherType;
use serde_json::Value;

#[path = "../../grp/tests/support/postgres_server.rs"]
mod postgres_server;

use postgres_server::{as_node, server, unique};

/// One scenario's session, events, directory (removed on drop) and cluster token.
struct Cluster {
    dir: PathBuf,
    fixture: Fixture,
    url: String,
    token: String,
}

impl Cluster {
    fn new(test: &str, label: &str) -> Option<Cluster> {
        let url = server(test)?;
        let token = unique(&format!("mutant-{label}"));
        let dir = std::env::temp_dir().join(format!("agentconf-{token}"));
        std::fs::create_dir_all(&dir).unwrap();
        let fixture = Fixture::new("grp-cluster-mutants");
        std::fs::write(dir.join("session.json"), session_json(&fixture.session())).unwrap();
        Some(Cluster {
            dir,
            fixture,
            url,
            token,
        })
    }

    fn event(&self, event_id: &str) -> String {
        let event = self
            .fixture
            .event(event_id, P3_ID, PublisherType::WellKnown);
        self.fixture.signed(&event) + "\n"
    }

    /// `agentconf-mutant MUTANT grp-admit 01 SESSION STATE_DIR` as node `node`, started.
    fn start(&self, mutant: &str, node: &str, addr: Option<&str>) -> Child {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentconf-mutant"));
        command
            .args([mutant, "grp-admit", "01"])
            .arg(self.dir.join("session.json"))
            .arg(self.dir.join(node))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        as_node(&mut command, &self.url, &self.token, node, addr);
        command.spawn().expect("run agentconf-mutant")
    }

    /// Node `node` of `mutant`, given `lines`: its outcomes.
    fn node(&self, mutant: &str, node: &str, addr: Option<&str>, lines: &[String]) -> Vec<String> {
        let mut child = self.start(mutant, node, addr);
        child
            .stdin
            .take()
            .unwrap()
            .write_all(lines.concat().as_bytes())
            .unwrap();
        outcomes(child)
    }

    /// Two nodes of `mutant` handed the same new event at the same moment: how many admit it.
    fn race(&self, mutant: &str, event_id: &str) -> usize {
        let line = self.event(event_id);
        let mut nodes: Vec<Child> = ["a", "b"]
            .iter()
            .map(|n| self.start(mutant, &format!("{n}-{event_id}"), None))
            .collect();
        for node in &mut nodes {
            node.stdin
                .as_mut()
                .unwrap()
                .write_all(line.as_bytes())
                .unwrap();
        }
        nodes
            .into_iter()
            .map(|mut node| {
                drop(node.stdin.take());
                outcomes(node)
            })
            .filter(|o| o == &["admitted"])
            .count()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A finished node's outcomes.
fn outcomes(child: Child) -> Vec<String> {
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["outcome"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn grp_node_local_admits_what_another_node_admitted() {
    for (mutant, second) in [("none", "rejected"), ("grp-node-local", "admitted")] {
        let Some(cluster) = Cluster::new("grp_node_local", mutant) else {
            return;
        };
        let line = [cluster.event("e1")];
        assert_eq!(cluster.node(mutant, "a", None, &line), ["admitted"]);
        assert_eq!(cluster.node(mutant, "b", None, &line), [second], "{mutant}");
    }
}

#[test]
fn grp_local_fallback_admits_over_a_cut_link() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    for (mutant, cut, healed) in [
        ("none", "deferred", ["admitted"]),
        ("grp-local-fallback", "admitted", ["admitted"]),
    ] {
        let Some(cluster) = Cluster::new("grp_local_fallback", mutant) else {
            return;
        };
        let line = [cluster.event("e1")];
        assert_eq!(
            cluster.node(mutant, "a", Some(&closed), &line),
            [cut],
            "{mutant}"
        );
        // After healing the shared store has never seen the pair: the mutant admits it again.
        assert_eq!(cluster.node(mutant, "a", None, &line), healed, "{mutant}");
    }
}

#[test]
fn racing_nodes_admit_once_unless_the_insert_comes_apart() {
    for (mutant, twice) in [
        ("none", false),
        ("grp-lookup-then-insert", true),
        ("grp-admit-then-write", true),
    ] {
        let Some(cluster) = Cluster::new("racing_nodes", mutant) else {
            return;
        };
        // The mutants' window is wide (a tenth of a second on a node's first admission) but the
        // two nodes' deliveries are not synchronised: a few rounds, each on new nodes.
        let admissions: Vec<usize> = (0..3)
            .map(|i| cluster.race(mutant, &format!("e{i}")))
            .collect();
        assert!(
            admissions.iter().all(|&n| n >= 1),
            "{mutant}: {admissions:?}"
        );
        assert_eq!(admissions.contains(&2), twice, "{mutant}: {admissions:?}");
    }
}
