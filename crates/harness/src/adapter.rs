//! Adapters: running a command-line tool that was not written for the contract.
//!
//! An adapter file (TOML) gives, per operation, an argv template; an exit-code map onto the
//! contract's meanings; an error map from the tool's messages to rule ids (global, or for some
//! vectors only); the capability profiles the tool claims; skips (each with a required reason);
//! and strict expected failures: an expected failure that passes, or an entry naming an unknown
//! vector id, is an error. Ids are exact, never globs.
//!
//! ```toml
//! name = "someverifier"
//! command = ["someverifier"]
//! profiles = ["durable"]
//!
//! [operations.aer1-timeline]
//! argv = ["check-timeline", "--rev", "{revision}", "{timeline}"]
//! argv_with_commitment = ["check-timeline", "--rev", "{revision}", "--commit", "{commitment}", "{timeline}"]
//!
//! [exit_codes]
//! 0 = "accept"
//! 3 = "reject"
//!
//! [[error_map]]
//! pattern = "bad base64"
//! rule = "AER1-TL-B64"
//!
//! [[skip]]
//! id = "aer1/timeline/hostile/bom-before-array"
//! reason = "the tool strips byte order marks by design"
//!
//! [[xfail]]
//! id = "aer1/timeline/structure/seq-starts-at-0"
//! reason = "known bug #12"
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use agentconf_contract::exit::ExitMeaning;

/// An adapter file is configuration, a few kilobytes; `agentconf run` refuses a larger one.
pub const MAX_ADAPTER_BYTES: u64 = 1024 * 1024;

/// One operation's argv template; placeholders are replaced by the contract's arguments:
/// `{receipt}`, `{tier}` (also spelled `{id_tier}`, its name before 0.2.0), `{revision}`,
/// `{timeline}`, `{commitment}`, `{workflow}`, `{session}`, `{state_dir}`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OperationTemplate {
    pub argv: Vec<String>,
    /// Used instead of `argv` when the vector has a commitment input.
    #[serde(default)]
    pub argv_with_commitment: Option<Vec<String>>,
}

/// A message pattern and the rule it means.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ErrorMapping {
    /// A substring of the tool's standard output or error (case-sensitive).
    pub pattern: String,
    pub rule: String,
    /// Only for these vector ids (empty: every vector).
    #[serde(default)]
    pub vectors: Vec<String>,
}

/// A vector not to run, and why.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Listed {
    pub id: String,
    pub reason: String,
}

/// An adapter file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Adapter {
    pub name: Option<String>,
    /// The tool's command (argv prefix); the operation templates are appended.
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub profiles: Vec<String>,
    /// Operation name → template. An operation without a template is run in the contract's own
    /// argument order.
    #[serde(default)]
    pub operations: BTreeMap<String, OperationTemplate>,
    /// Exit code → `accept`, `reject` or `unsupported`; unmapped codes keep the contract's
    /// meaning when no map is given, and are crashes when one is.
    #[serde(default)]
    pub exit_codes: BTreeMap<String, String>,
    #[serde(default)]
    pub error_map: Vec<ErrorMapping>,
    #[serde(default)]
    pub skip: Vec<Listed>,
    #[serde(default)]
    pub xfail: Vec<Listed>,
}

impl Adapter {
    /// Parses and checks an adapter: every rule id exists, every skip and xfail names a known
    /// vector (`known_ids`) and has a reason, no id is listed twice, exit codes are numbers.
    pub fn parse(text: &str, known_ids: &BTreeSet<String>) -> Result<Adapter, String> {
        let a: Adapter = toml::from_str(text).map_err(|e| format!("adapter: {e}"))?;
        for (code, meaning) in &a.exit_codes {
            code.parse::<i32>()
                .map_err(|_| format!("adapter: exit code {code:?} is not a number"))?;
            if !matches!(meaning.as_str(), "accept" | "reject" | "unsupported") {
                return Err(format!(
                    "adapter: exit code {code} maps to {meaning:?}; use accept, reject or unsupported"
                ));
            }
        }
        for m in &a.error_map {
            if agentconf_rules::Rule::from_id(&m.rule).is_none() {
                return Err(format!(
                    "adapter: error_map rule {:?} is not a catalogue id",
                    m.rule
                ));
            }
            if m.pattern.is_empty() {
                return Err("adapter: an error_map pattern is empty".into());
            }
            for id in &m.vectors {
                if let Some(now) = agentconf_contract::vector::retired(id) {
                    return Err(format!(
                        "adapter: error_map names {id:?}, a retired vector id; it is now {now}"
                    ));
                }
                if !known_ids.contains(id) {
                    return Err(format!("adapter: error_map names unknown vector {id:?}"));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (kind, entry) in a
            .skip
            .iter()
            .map(|e| ("skip", e))
            .chain(a.xfail.iter().map(|e| ("xfail", e)))
        {
            if let Some(now) = agentconf_contract::vector::retired(&entry.id) {
                return Err(format!(
                    "adapter: {kind} names {:?}, a retired vector id; it is now {now}",
                    entry.id
                ));
            }
            if !known_ids.contains(&entry.id) {
                return Err(format!(
                    "adapter: {kind} names unknown vector {:?} (ids are exact, not globs)",
                    entry.id
                ));
            }
            if entry.reason.trim().is_empty() {
                return Err(format!("adapter: {kind} {:?} has no reason", entry.id));
            }
            if !seen.insert(entry.id.clone()) {
                return Err(format!("adapter: {:?} is listed twice", entry.id));
            }
        }
        for p in &a.profiles {
            if !matches!(p.as_str(), "durable" | "atomic") {
                return Err(format!("adapter: unknown profile {p:?}"));
            }
        }
        Ok(a)
    }

    /// The contract meaning of an exit code under this adapter.
    pub fn exit_meaning(&self, code: Option<i32>) -> ExitMeaning {
        if self.exit_codes.is_empty() {
            return ExitMeaning::of(code);
        }
        let Some(code) = code else {
            return ExitMeaning::Crash;
        };
        match self.exit_codes.get(&code.to_string()).map(String::as_str) {
            Some("accept") => ExitMeaning::Accept,
            Some("reject") => ExitMeaning::Reject,
            Some("unsupported") => ExitMeaning::Unsupported,
            _ => ExitMeaning::Crash,
        }
    }

    /// The argv for an operation: the template with placeholders filled, or the contract's
    /// order when the adapter has no template for it.
    pub fn argv(
        &self,
        operation: &str,
        contract_args: &[String],
        values: &BTreeMap<&str, String>,
    ) -> Vec<String> {
        let mut argv = self.command.clone();
        match self.operations.get(operation) {
            None => {
                argv.push(operation.to_string());
                argv.extend(contract_args.iter().cloned());
            }
            Some(t) => {
                let template = match (&t.argv_with_commitment, values.contains_key("commitment")) {
                    (Some(with), true) => with,
                    _ => &t.argv,
                };
                argv.extend(template.iter().map(|part| fill(part, values)));
            }
        }
        argv
    }

    /// The rules the tool's messages map to, for vector `id`.
    pub fn mapped_rules(&self, id: &str, output: &str) -> Vec<agentconf_rules::Rule> {
        let mut rules = Vec::new();
        for m in &self.error_map {
            let applies = m.vectors.is_empty() || m.vectors.iter().any(|v| v == id);
            // Every mapping's rule was checked to be a catalogue id when the file was read.
            let rule = agentconf_rules::Rule::from_id(&m.rule);
            if let Some(rule) =
                rule.filter(|r| applies && output.contains(&m.pattern) && !rules.contains(r))
            {
                rules.push(rule);
            }
        }
        rules
    }

    pub fn skip_reason(&self, id: &str) -> Option<&str> {
        self.skip
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.reason.as_str())
    }

    pub fn xfail_reason(&self, id: &str) -> Option<&str> {
        self.xfail
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.reason.as_str())
    }
}

fn fill(part: &str, values: &BTreeMap<&str, String>) -> String {
    let mut out = part.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// An expected-failures file for the vectors that did not pass, as a starting point.
pub fn xfail_toml(failures: &[(String, String)]) -> String {
    let mut out = String::from(
        "# Expected failures written by `agentconf run --emit-xfail`. Every entry needs a real reason;\n\
         # an expected failure that passes, or an unknown id, fails the run.\n",
    );
    for (id, status) in failures {
        out.push_str(&format!(
            "\n[[xfail]]\nid = {}\nreason = {}\n",
            toml_string(id),
            toml_string(&format!("failed as {status} when this file was written"))
        ));
    }
    out
}

fn toml_string(s: &str) -> String {
    // A basic TOML string: escape backslash and quote; ids and statuses have no control chars.
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<String> {
        ["a/b/c/d".to_string(), "a/b/c/e".to_string()]
            .into_iter()
            .collect()
    }

    #[test]
    fn parses_and_applies() {
        let text = r#"
            command = ["tool"]
            profiles = ["durable"]
            [operations.aer1-timeline]
            argv = ["check", "--rev", "{revision}", "{timeline}"]
            argv_with_commitment = ["check", "--rev", "{revision}", "--c", "{commitment}", "{timeline}"]
            [exit_codes]
            0 = "accept"
            3 = "reject"
            [[error_map]]
            pattern = "bad base64"
            rule = "AER1-TL-B64"
            [[error_map]]
            pattern = "gap"
            rule = "AER1-TL-SEQ"
            vectors = ["a/b/c/e"]
            [[skip]]
            id = "a/b/c/d"
            reason = "by design"
        "#;
        let a = Adapter::parse(text, &known()).unwrap();
        let mut values = BTreeMap::new();
        values.insert("revision", "09".to_string());
        values.insert("timeline", "t.json".to_string());
        assert_eq!(
            a.argv("aer1-timeline", &[], &values),
            ["tool", "check", "--rev", "09", "t.json"]
        );
        values.insert("commitment", "c.json".to_string());
        assert_eq!(
            a.argv("aer1-timeline", &[], &values),
            ["tool", "check", "--rev", "09", "--c", "c.json", "t.json"]
        );
        assert_eq!(
            a.argv("aer1-workflow", &["w.json".into()], &values),
            ["tool", "aer1-workflow", "w.json"]
        );
        assert_eq!(a.exit_meaning(Some(3)), ExitMeaning::Reject);
        assert_eq!(a.exit_meaning(Some(1)), ExitMeaning::Crash);
        assert_eq!(
            a.mapped_rules("a/b/c/d", "ERROR: bad base64 and gap"),
            [agentconf_rules::Rule::Aer1TlB64]
        );
        assert_eq!(
            a.mapped_rules("a/b/c/e", "ERROR: bad base64 and gap"),
            [
                agentconf_rules::Rule::Aer1TlB64,
                agentconf_rules::Rule::Aer1TlSeq
            ]
        );
        assert_eq!(a.skip_reason("a/b/c/d"), Some("by design"));
    }

    #[test]
    fn rejects_bad_adapters() {
        let bad = [
            "[[skip]]\nid = \"a/b/*\"\nreason = \"glob\"",
            "[[xfail]]\nid = \"a/b/c/d\"\nreason = \"\"",
            "[[xfail]]\nid = \"a/b/c/d\"\nreason = \"x\"\n[[skip]]\nid = \"a/b/c/d\"\nreason = \"y\"",
            "[[error_map]]\npattern = \"x\"\nrule = \"NOPE\"",
            "[exit_codes]\nzero = \"accept\"",
            "[exit_codes]\n0 = \"fine\"",
            "profiles = [\"fast\"]",
            "unknown_key = 1",
        ];
        for text in bad {
            assert!(Adapter::parse(text, &known()).is_err(), "{text}");
        }
    }

    /// A retired id is named as retired, with what replaced it, even when a caller's list of
    /// known ids would contain it.
    #[test]
    fn retired_ids_name_their_replacement() {
        let old = "aer1/timeline/revision06/example-06-5-under-current";
        let mut known = known();
        known.insert(old.to_string());
        let e = Adapter::parse(&format!("[[skip]]\nid = \"{old}\"\nreason = \"x\""), &known)
            .unwrap_err();
        assert!(
            e.contains("retired") && e.contains("example-06-5@09"),
            "{e}"
        );
    }

    #[test]
    fn xfail_file_round_trips() {
        let text = xfail_toml(&[("a/b/c/d".into(), "false-accept".into())]);
        let a = Adapter::parse(&text, &known()).unwrap();
        assert_eq!(a.xfail.len(), 1);
    }
}
