//! The PostgreSQL server the tests use (`AGENTCONF_TEST_POSTGRES`), a token no other test run
//! uses, and a receiver node's environment: shared by the GRP store tests, the CLI's and the
//! mutants' (included with `#[path]`).
#![allow(dead_code)]

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The server's URL; `None` (after one loud line) when there is none and none is required.
pub fn server(test: &str) -> Option<String> {
    match TestServer::from_env() {
        TestServer::At(url) => Some(url),
        TestServer::Skip(why) => {
            // Straight to the process's standard error, past libtest's capture of `eprintln!`,
            // so that a passing run shows it and `cargo xtask test` counts the skip.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
            None
        }
        TestServer::Missing(why) => panic!("{test}: {why}"),
    }
}

/// A token no other test run uses (a cluster token, a schema name).
pub fn unique(label: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{label}_{}_{nanos}", std::process::id())
}

/// `command` as node `node` of cluster `cluster` on the store `url` (CONTRACT.md §5), reaching
/// it at `addr` when given.
pub fn as_node(command: &mut Command, url: &str, cluster: &str, node: &str, addr: Option<&str>) {
    command
        .env("AGENTCONF_GRP_STORE", url)
        .env("AGENTCONF_CLUSTER", cluster)
        .env("AGENTCONF_NODE", node)
        .env_remove("AGENTCONF_STORE_ADDR");
    if let Some(addr) = addr {
        command.env("AGENTCONF_STORE_ADDR", addr);
    }
}

/// The PostgreSQL server the project's tests use: `AGENTCONF_TEST_POSTGRES` (a `postgres://`
/// URL; CI starts a throwaway server with `.ci/postgres` and sets it). Without it a test that
/// needs the server skips, unless `AGENTCONF_REQUIRE_POSTGRES=1` (CI) makes that a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestServer {
    /// The server's URL.
    At(String),
    /// No server, and none required: the test says so in one line and returns.
    Skip(String),
    /// No server although one is required: the test fails.
    Missing(String),
}

impl TestServer {
    /// As this process's environment says.
    pub fn from_env() -> TestServer {
        let url = std::env::var("AGENTCONF_TEST_POSTGRES").unwrap_or_default();
        if !url.is_empty() {
            return TestServer::At(url);
        }
        if std::env::var("AGENTCONF_REQUIRE_POSTGRES").as_deref() == Ok("1") {
            return TestServer::Missing(
                "AGENTCONF_REQUIRE_POSTGRES=1 but AGENTCONF_TEST_POSTGRES is unset: start a \
                 server with `.ci/postgres start` and export its URL"
                    .into(),
            );
        }
        TestServer::Skip(
            "no PostgreSQL server (set AGENTCONF_TEST_POSTGRES to the URL `.ci/postgres start` \
             prints)"
                .into(),
        )
    }
}
