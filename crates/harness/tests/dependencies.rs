//! The judge does not link what it judges: neither the harness nor the contract depends, even
//! transitively or for its tests, on a reference crate or on the corpus generator (which links
//! the references). The harness reaches the reference only as a backend the CLI hands in. It
//! does link `agentconf-json`, a reader of untrusted bytes that judges nothing, for the
//! workspace's one `clip`, `terminal_safe` and lowercase hex.

use std::collections::BTreeSet;
use std::process::Command;

/// The agentconf crates `package` depends on, through normal, build and dev dependencies.
fn agentconf_dependencies(package: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build,dev",
            "--prefix",
            "none",
            "-p",
        ])
        .arg(package)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with("agentconf-") && *name != package)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_harness_links_the_contract_the_rules_and_the_json_reader_only() {
    let deps = agentconf_dependencies("agentconf-harness");
    let expected: BTreeSet<String> = ["agentconf-contract", "agentconf-json", "agentconf-rules"]
        .map(String::from)
        .into();
    assert_eq!(deps, expected);
}

#[test]
fn the_contract_links_the_rules_only() {
    let deps = agentconf_dependencies("agentconf-contract");
    assert_eq!(deps, BTreeSet::from(["agentconf-rules".to_string()]));
}
