//! The contract's receiver (`agentconf impl grp-admit`) and `agentconf grp admit` on a
//! PostgreSQL store shared by receiver nodes (`AGENTCONF_GRP_STORE=postgres://…`), against a live
//! server (`AGENTCONF_TEST_POSTGRES`; without one these tests skip with one line, unless
//! `AGENTCONF_REQUIRE_POSTGRES=1` makes that a failure):
//!
//! - two receiver processes with their own `STATE_DIR`s share one admitted set: a copy admitted
//!   by one is `duplicate_event_id` at the other, in the cluster's namespace only;
//! - a node whose link to the database is cut (`AGENTCONF_STORE_ADDR` at a closed port) decides
//!   every event that passes its checks `deferred` and admits nothing; re-delivered once the link
//!   is back, each is admitted exactly once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentconf_corpus::grp::common::{session_json, Fixture, P3_ID};
use agentconf_grp::event::PublisherType;
use serde_json::Value;

#[path = "../../grp/tests/support/postgres_server.rs"]
mod postgres_server;

use postgres_server::{as_node, server, unique};

/// A scenario: its directory (removed on drop), session file, signed events and cluster token.
struct Cluster {
    dir: PathBuf,
    fixture: Fixture,
    session: PathBuf,
    token: String,
    url: String,
}

impl Cluster {
    fn new(label: &str, url: String) -> Cluster {
        let token = unique(label);
        let dir = std::env::temp_dir().join(format!("agentconf-grp-postgres-{token}"));
        std::fs::create_dir_all(&dir).unwrap();
        let fixture = Fixture::new("grp-postgres");
        let session = dir.join("session.json");
        std::fs::write(&session, session_json(&fixture.session())).unwrap();
        Cluster {
            dir,
            fixture,
            session,
            token,
            url,
        }
    }

    fn event(&self, event_id: &str) -> String {
        self.fixture.signed(
            &self
                .fixture
                .event(event_id, P3_ID, PublisherType::WellKnown),
        )
    }

    /// Runs `agentconf ARGS` as node `node` of this cluster (`addr`: its `AGENTCONF_STORE_ADDR`)
    /// with `lines` on standard input; its decisions.
    fn node(&self, node: &str, addr: Option<&str>, args: &[&str], lines: &[String]) -> Vec<Value> {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentconf"));
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        as_node(&mut command, &self.url, &self.token, node, addr);
        let mut child = command.spawn().expect("run agentconf");
        let mut input = child.stdin.take().unwrap();
        input
            .write_all((lines.join("\n") + "\n").as_bytes())
            .unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "node {node}: {stderr}");
        let decisions: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            decisions.len(),
            lines.len(),
            "one decision per line: {stderr}"
        );
        decisions
    }

    /// Node `node` as the contract's receiver, with its own `STATE_DIR`.
    fn receiver(&self, node: &str, addr: Option<&str>, lines: &[String]) -> Vec<Value> {
        let state_dir = self.dir.join(node);
        let args = [
            "impl",
            "grp-admit",
            "01",
            path(&self.session),
            path(&state_dir),
        ];
        self.node(node, addr, &args, lines)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// Each decision's outcome, and its rejection reason where there is one.
fn outcomes(decisions: &[Value]) -> Vec<String> {
    decisions
        .iter()
        .map(|d| match d["rejection_reason"].as_str() {
            Some(reason) => format!("{}:{reason}", d["outcome"].as_str().unwrap()),
            None => d["outcome"].as_str().unwrap().to_string(),
        })
        .collect()
}

#[test]
fn receiver_nodes_share_one_admitted_set() {
    let Some(url) = server("receiver_nodes_share_one_admitted_set") else {
        return;
    };
    let cluster = Cluster::new("shared", url.clone());
    let a = cluster.receiver("a", None, &[cluster.event("e1")]);
    assert_eq!(outcomes(&a), ["admitted"]);
    let b = cluster.receiver("b", None, &[cluster.event("e1"), cluster.event("e2")]);
    assert_eq!(outcomes(&b), ["rejected:duplicate_event_id", "admitted"]);
    // `grp admit --store postgres://…` is a node of the same cluster.
    let session = path(&cluster.session);
    let args = ["grp", "admit", session, "--store", &url, "--revision", "01"];
    let c = cluster.node(
        "c",
        None,
        &args,
        &[cluster.event("e2"), cluster.event("e3")],
    );
    assert_eq!(outcomes(&c), ["rejected:duplicate_event_id", "admitted"]);
    // Another scenario's token: none of those pairs are its.
    let other = Cluster::new("other", url);
    let d = other.receiver("a", None, &[other.event("e1")]);
    assert_eq!(outcomes(&d), ["admitted"]);
}

#[test]
fn a_cut_link_defers_and_healing_admits_once() {
    let Some(url) = server("a_cut_link_defers_and_healing_admits_once") else {
        return;
    };
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let cluster = Cluster::new("cut", url);
    let lines = [
        cluster.event("e1"),
        cluster.event("e2"),
        cluster.event("e1"),
    ];
    let mut cut = lines.to_vec();
    cut.push("{not an event".into());
    let deferred = cluster.receiver("a", Some(&closed), &cut);
    assert_eq!(
        outcomes(&deferred),
        [
            "deferred",
            "deferred",
            "deferred",
            "rejected:malformed_event"
        ]
    );
    for d in &deferred[..3] {
        assert_eq!((&d["ale"], &d["rule"]), (&Value::Null, &Value::Null), "{d}");
        assert!(d["message"]
            .as_str()
            .unwrap()
            .contains("nothing was admitted"));
    }
    let healed = cluster.receiver("a", None, &lines);
    assert_eq!(
        outcomes(&healed),
        ["admitted", "admitted", "rejected:duplicate_event_id"]
    );
    let other_node = cluster.receiver("b", None, &lines);
    assert_eq!(outcomes(&other_node), ["rejected:duplicate_event_id"; 3]);
}

/// The reference's processes on one PostgreSQL database pass every GRP case, run after run:
/// every receiver of every scenario (cluster or not) keeps its pairs under the scenario's token,
/// so vectors and runs sharing the database never see each other's pairs. Both the command as
/// first reported failing (`--include grp`) and README's "GRP on PostgreSQL" command.
#[test]
fn the_reference_passes_every_grp_case_on_one_database_run_after_run() {
    let Some(url) = server("the_reference_passes_every_grp_case_on_one_database_run_after_run")
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("agentconf-grp-suite-{}", unique("runs")));
    std::fs::create_dir_all(&dir).unwrap();
    let all_profiles: &[&str] = &[
        "--include",
        "grp",
        "--profile",
        "durable",
        "--profile",
        "atomic",
        "--profile",
        "cluster",
    ];
    // README's command, read from its "GRP on PostgreSQL" section as written (after
    // `agentconf run --implementation reference-process`), so the two cannot drift apart.
    let readme_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme_text
        .split("### GRP on PostgreSQL")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|b| b.split("\n```").next())
        .expect("README has a GRP on PostgreSQL section with an sh block");
    let joined = section.replace("\\\n", " ");
    let command = joined
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("agentconf run --implementation reference-process")
        })
        .expect("the section runs the reference's processes");
    let readme_words: Vec<&str> = command.split_whitespace().collect();
    let readme: &[&str] = &readme_words;
    for (run, extra) in [all_profiles, readme, all_profiles].iter().enumerate() {
        let out_file = dir.join(format!("run-{run}.jsonl"));
        let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(["run", "--implementation", "reference-process", "--out"])
            .arg(&out_file)
            .args(*extra)
            .env("AGENTCONF_GRP_STORE", &url)
            .env_remove("AGENTCONF_CLUSTER")
            .env_remove("AGENTCONF_STORE_ADDR")
            .output()
            .expect("run agentconf");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "run {run} ({extra:?}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let results = std::fs::read_to_string(&out_file).unwrap();
        let cases: Vec<Value> = results
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["type"] == "result")
            .collect();
        let not_passed: Vec<String> = cases
            .iter()
            .filter(|c| c["status"] != "pass")
            .map(|c| format!("{} {}: {}", c["id"], c["status"], c["detail"]))
            .collect();
        assert!(
            not_passed.is_empty(),
            "run {run}: {} of {} cases did not pass:\n{}",
            not_passed.len(),
            cases.len(),
            not_passed.join("\n")
        );
        // The whole GRP suite, the cluster cases among them (run, not left unsupported: the
        // store's address is known, so the steps that need it run too).
        let cluster = cases.iter().filter(|c| c["family"] == "cluster").count();
        assert!(cases.len() >= 172, "run {run}: {} cases", cases.len());
        assert!(cluster >= 5, "run {run}: {cluster} cluster cases");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
