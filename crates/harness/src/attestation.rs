//! An in-toto attestation of a results file, for supply-chain tooling (cosign, witness, GitHub
//! attestations): an in-toto Statement v1 whose subjects are the results file and what ran (the
//! implementation's executable and the files its command names, each with its SHA-256), whose
//! predicate ([`ResultsPredicate`], type [`PREDICATE_TYPE`]) is what the file concludes, inside
//! a DSSE envelope signed with the results' SSH key (Ed25519 over DSSE's pre-authentication
//! encoding; the key id is the key's `SHA256:` fingerprint), or with no signature when no key is
//! given.
//!
//! The predicate's JSON Schema is generated from its type ([`predicate_schema`]; `cargo xtask
//! schemas` writes `crates/harness/schema/attestation-results-v1.schema.json`).
//!
//! An attestation says what the results file says, signed by whoever signed it. Like the
//! signature, it proves who vouched for the bytes, not that the run was honest.

use std::collections::BTreeMap;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::Level;
use crate::results::ResultsFile;
use crate::signing::SigningKey;

/// The in-toto Statement type.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";

/// The predicate type of an agentconf results attestation. Under `agentconf.invalid` like every
/// identifier the project publishes until it has a public home (the schemas' `$id`s): a `.invalid`
/// name (RFC 2606) can never be anyone else's. A new version of the predicate gets a new URI.
pub const PREDICATE_TYPE: &str = "https://agentconf.invalid/attestation/results/v1";

/// The DSSE payload type of an in-toto Statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// The `$id` of the predicate's JSON Schema.
pub const PREDICATE_SCHEMA_ID: &str =
    "https://agentconf.invalid/schema/attestation-results-v1.schema.json";

/// An in-toto Statement v1 about a results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    /// [`STATEMENT_TYPE`].
    #[serde(rename = "_type")]
    pub statement_type: String,
    /// The results file, then the executable that ran, then each file its command names.
    pub subject: Vec<Subject>,
    /// [`PREDICATE_TYPE`].
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    pub predicate: ResultsPredicate,
}

/// An artifact the statement is about: its name and digests (`sha256`, lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    pub name: String,
    pub digest: BTreeMap<String, String>,
}

/// What an agentconf results file concludes: predicate type [`PREDICATE_TYPE`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultsPredicate {
    /// The verdict every report of the results file shows.
    pub verdict: PredicateVerdict,
    /// The digest of the test-vector corpus the cases come from (`agentconf vectors list` prints
    /// it; vectors/CHANGELOG.md lists every one).
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub corpus_digest: String,
    /// The agentconf version that graded the run.
    pub suite_version: String,
    /// The results file's format (`agentconf-results/1`).
    pub results_format: String,
    /// Cases counted from the result lines.
    pub counts: Counts,
    /// `strict`: a rejection had to cite the expected rules; `loose`: any rejection of an
    /// invalid vector passed.
    pub grading: PredicateGrading,
    /// The capability profiles the implementation claimed.
    pub profiles: Vec<String>,
    /// How the implementation's processes were contained (`pid-namespace`,
    /// `user-and-pid-namespace`, `process-group`); null when none ran (the reference in process).
    pub containment: Option<String>,
    /// What ran, as the results header records it.
    pub implementation: PredicateImplementation,
    /// The cases the run was restricted to, when the header records it.
    pub selection: Option<PredicateSelection>,
    /// SHA-256 of the adapter file, when one was used.
    pub adapter_sha256: Option<String>,
    /// The run was interrupted: the file can support no conformance claim.
    pub interrupted: bool,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When it finished (RFC 3339, UTC); null for a file without its footer.
    pub finished_at: Option<String>,
}

/// The verdict's level and its words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredicateVerdict {
    pub level: PredicateLevel,
    /// The verdict as every report heads it (`CONFORMS`, `PARTIAL`, …).
    pub headline: String,
    /// Why the verdict is not about the whole corpus under strict grading (empty otherwise).
    pub scope: Vec<String>,
}

/// The five verdict levels (crates/contract/CONTRACT.md section 13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PredicateLevel {
    Conforms,
    ConformsWithKnownFailures,
    Partial,
    Fail,
    NothingTested,
}

/// Grading, as the header records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PredicateGrading {
    Strict,
    Loose,
}

/// Cases by outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Result lines (cases) in the file.
    pub cases: usize,
    pub passed: usize,
    /// Cases whose status fails the run.
    pub unexpected: usize,
    pub unsupported: usize,
    /// Cases that failed as the adapter's expected-failure list says.
    pub known_failures: usize,
    /// Cases per status (`pass`, `false-accept`, …), zeros included.
    pub by_status: BTreeMap<String, usize>,
}

/// What ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredicateImplementation {
    /// The name recorded in the results file: named by the claimant (their own words, checked
    /// by nothing); what ran is the executable's digest.
    pub name: String,
    /// Always `claimant`: the name is the claimant's words.
    #[schemars(extend("const" = "claimant"))]
    pub named_by: String,
    /// The command (argv); empty for the reference run in process.
    pub argv: Vec<String>,
    /// SHA-256 of the executable, where it could be read.
    pub executable_sha256: Option<String>,
    /// Every file the command names, with its SHA-256.
    pub files: Vec<PredicateFile>,
}

/// A file the command names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredicateFile {
    pub path: String,
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// The cases a run was restricted to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredicateSelection {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub corpus_case_count: usize,
}

/// A DSSE envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// [`PAYLOAD_TYPE`].
    #[serde(rename = "payloadType")]
    pub payload_type: String,
    /// The statement's JSON, base64 (standard alphabet, padded).
    pub payload: String,
    /// None when no key was given.
    pub signatures: Vec<EnvelopeSignature>,
}

/// One signature of a DSSE envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeSignature {
    /// The signing key's `SHA256:` fingerprint, as `ssh-keygen -l` prints it.
    pub keyid: String,
    /// Ed25519 over [`pae`] of the payload type and payload, base64.
    pub sig: String,
}

/// The statement about `file`, whose exact bytes are `bytes`, named `name` (the results file's
/// name as a subject).
pub fn statement(name: &str, bytes: &[u8], file: &ResultsFile) -> Statement {
    let h = &file.header;
    let i = &h.implementation;
    let sha256 = |hex: &str| BTreeMap::from([("sha256".to_string(), hex.to_string())]);
    let mut subject = vec![Subject {
        name: name.to_string(),
        digest: sha256(&agentconf_json::hex::lower(&sha2_of(bytes))),
    }];
    if let Some(digest) = &i.executable_sha256 {
        subject.push(Subject {
            name: i.program().to_string(),
            digest: sha256(digest),
        });
    }
    subject.extend(i.files.iter().map(|f| Subject {
        name: f.path.clone(),
        digest: sha256(&f.sha256),
    }));
    let verdict = crate::report::verdict(file);
    let totals = crate::report::totals(file);
    Statement {
        statement_type: STATEMENT_TYPE.into(),
        subject,
        predicate_type: PREDICATE_TYPE.into(),
        predicate: ResultsPredicate {
            verdict: PredicateVerdict {
                level: match verdict.level {
                    Level::Conforms => PredicateLevel::Conforms,
                    Level::ConformsWithKnownFailures => PredicateLevel::ConformsWithKnownFailures,
                    Level::Partial => PredicateLevel::Partial,
                    Level::Fail => PredicateLevel::Fail,
                    Level::NothingTested => PredicateLevel::NothingTested,
                },
                headline: verdict.headline(),
                scope: verdict.partial.clone(),
            },
            corpus_digest: h.corpus_digest.clone(),
            suite_version: h.suite_version.clone(),
            results_format: h.format.clone(),
            counts: Counts {
                cases: file.results.len(),
                passed: totals.passed,
                unexpected: totals.unexpected,
                unsupported: totals.unsupported,
                known_failures: verdict.known_failures,
                by_status: totals.by_status.iter().cloned().collect(),
            },
            grading: match h.grading {
                crate::Grading::Strict => PredicateGrading::Strict,
                crate::Grading::Loose => PredicateGrading::Loose,
            },
            profiles: h.profiles.clone(),
            containment: h.containment.map(|c| {
                serde_json::to_value(c)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            }),
            implementation: PredicateImplementation {
                name: i.name.clone(),
                named_by: "claimant".into(),
                argv: i.argv.clone(),
                executable_sha256: i.executable_sha256.clone(),
                files: i
                    .files
                    .iter()
                    .map(|f| PredicateFile {
                        path: f.path.clone(),
                        sha256: f.sha256.clone(),
                    })
                    .collect(),
            },
            selection: h.selection.as_ref().map(|s| PredicateSelection {
                include: s.include.clone(),
                exclude: s.exclude.clone(),
                corpus_case_count: s.corpus_case_count,
            }),
            adapter_sha256: h.adapter_digest.clone(),
            interrupted: file.footer.as_ref().is_some_and(|f| f.interrupted),
            started_at: h.started_at.clone(),
            finished_at: file.footer.as_ref().map(|f| f.finished_at.clone()),
        },
    }
}

fn sha2_of(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// DSSE's pre-authentication encoding: `DSSEv1 LEN(type) type LEN(body) body`, lengths in ASCII
/// decimal, one space between each.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// The statement in a DSSE envelope, signed with `key` when one is given.
pub fn envelope(statement: &Statement, key: Option<&SigningKey>) -> Envelope {
    // Strings, numbers, maps and sequences: serialisation cannot fail.
    let payload = serde_json::to_vec(statement).unwrap_or_default();
    let b64 = base64::engine::general_purpose::STANDARD;
    Envelope {
        payload_type: PAYLOAD_TYPE.into(),
        payload: b64.encode(&payload),
        signatures: key
            .map(|k| EnvelopeSignature {
                keyid: k.fingerprint(),
                sig: b64.encode(k.sign_ed25519(&pae(PAYLOAD_TYPE, &payload))),
            })
            .into_iter()
            .collect(),
    }
}

/// The envelope as the file `--attestation` writes: one JSON object and a newline.
pub fn envelope_file(envelope: &Envelope) -> String {
    serde_json::to_string(envelope).unwrap_or_default() + "\n"
}

/// The predicate's JSON Schema (2020-12), generated from [`ResultsPredicate`]: pretty JSON with a
/// trailing newline, the same bytes on every run.
pub fn predicate_schema() -> String {
    agentconf_contract::schema::render::<ResultsPredicate>(
        PREDICATE_SCHEMA_ID,
        "agentconf results attestation predicate",
        "The predicate of an in-toto Statement v1 of predicate type \
         https://agentconf.invalid/attestation/results/v1: what an agentconf results file \
         concludes. The statement's subjects are the results file and what ran, each with its \
         SHA-256.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_is_dsse_v1() {
        // The example of the DSSE specification (protocol.md).
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
        );
    }

    #[test]
    fn an_unsigned_envelope_has_no_signature_and_a_signed_one_is_deterministic() {
        let mut file = crate::report::snapshot_tests::file(true);
        file.seal(1);
        let st = statement("r.jsonl", b"bytes", &file);
        assert_eq!(st.subject[0].name, "r.jsonl");
        assert_eq!(st.subject[1].name, "python3");
        assert_eq!(st.subject[2].name, "impl.py");
        assert_eq!(st.predicate.implementation.named_by, "claimant");
        assert!(envelope(&st, None).signatures.is_empty());
        let key = SigningKey::from_seed(&[7; 32], "k");
        let a = envelope(&st, Some(&key));
        assert_eq!(a, envelope(&st, Some(&key)));
        assert_eq!(a.signatures[0].keyid, key.fingerprint());
    }
}
