//! The corpus as files: deterministic, committed, schema-valid, and complete.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use agentconf_contract::manifest::Manifest;
use agentconf_contract::vector::{Expectation, Suite, Vector};
use agentconf_corpus::{corpus, writer};
use agentconf_rules::Rule;
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors"))
}

fn schema(name: &str) -> jsonschema::Validator {
    let path = vectors_dir().join("schema").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"))
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(writer::files(&corpus()), writer::files(&corpus()));
}

#[test]
fn committed_vectors_match_the_generators() {
    let problems = writer::check(&vectors_dir(), &corpus()).unwrap();
    assert!(
        problems.is_empty(),
        "vectors/ differs from the generators; run `cargo xtask vectors`:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn every_file_is_valid_against_its_schema() {
    let vector_schema = schema("vector.schema.json");
    let manifest_schema = schema("manifest.schema.json");
    for (path, text) in writer::files(&corpus()) {
        if !path.ends_with(".json") {
            continue;
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        let validator = if path == writer::MANIFEST {
            &manifest_schema
        } else {
            &vector_schema
        };
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{path}: {errors:#?}");
    }
}

#[test]
fn the_schemas_reject_broken_files() {
    let vector_schema = schema("vector.schema.json");
    let first = writer::vector_file(&corpus()[0]);
    let mut v: Value = serde_json::from_str(&first).unwrap();
    assert!(vector_schema.is_valid(&v));
    v.as_object_mut().unwrap().remove("id");
    assert!(
        !vector_schema.is_valid(&v),
        "a vector without an id passed the schema"
    );
    let mut v: Value = serde_json::from_str(&first).unwrap();
    v["expectation"] = Value::from("maybe");
    assert!(!vector_schema.is_valid(&v));
    let mut v: Value = serde_json::from_str(&first).unwrap();
    v["expectation"] = Value::from("invalid");
    v["expected_rules"] = Value::Array(vec![]);
    assert!(
        !vector_schema.is_valid(&v),
        "an invalid vector citing no rule passed the schema"
    );
}

#[test]
fn ids_are_unique_well_formed_and_never_retired() {
    let vectors = corpus();
    let mut ids = BTreeSet::new();
    let mut paths = BTreeSet::new();
    for v in &vectors {
        assert!(ids.insert(v.id.clone()), "duplicate id {}", v.id);
        assert!(paths.insert(v.path()), "duplicate path {}", v.path());
        let prefix = format!("{}/{}/", v.suite.id_prefix(), v.family);
        assert!(
            v.id.starts_with(&prefix),
            "{} does not start with {prefix}",
            v.id
        );
        assert!(
            agentconf_corpus::retired(&v.id).is_none(),
            "{} is a retired id",
            v.id
        );
    }
}

#[test]
fn derivations_name_existing_vectors() {
    let vectors = corpus();
    let ids: BTreeSet<&str> = vectors.iter().map(|v| v.id.as_str()).collect();
    for v in &vectors {
        if let Some(d) = &v.derivation {
            assert!(
                ids.contains(d.source.as_str()),
                "{} derives from unknown {}",
                v.id,
                d.source
            );
            assert_ne!(d.source, v.id, "{} derives from itself", v.id);
        }
    }
}

/// Broken vectors of the GRP `admission` family without a derivation source, each with the
/// reason (they fall back to the suite-wide pairing of paired credit).
const GRP_ADMISSION_UNDERIVED: &[(&str, &str)] = &[(
    // The session is the fixture's, which every valid vector of the family shares; the line
    // replaces no particular valid vector's event more than another's.
    "grp/admission/admission/empty-line",
    "the delivered line is empty: it holds no event, so it is no change to a valid vector's event",
)];

/// Every `invalid` and `acceptable` vector of the GRP `admission` family (one delivery each) names
/// the valid vector whose event it changes, so paired credit pairs it with that vector, not with
/// any valid GRP vector: a receiver that rejects every P-TYPE-1 event but admits P-TYPE-3 ones
/// earns nothing for rejecting broken P-TYPE-1 events. The source exists, is `valid`, is in the
/// same suite and family, and is valid under every revision the derived vector targets.
#[test]
fn grp_admission_negatives_derive_from_a_valid_vector() {
    let vectors = corpus();
    let by_id: BTreeMap<&str, &Vector> = vectors.iter().map(|v| (v.id.as_str(), v)).collect();
    for (id, why) in GRP_ADMISSION_UNDERIVED {
        let v = by_id
            .get(id)
            .unwrap_or_else(|| panic!("allow-listed {id} is not in the corpus"));
        assert!(
            v.suite == Suite::GrpAdmission && v.family == "admission",
            "allow-listed {id} is not in the GRP admission family"
        );
        assert!(!why.trim().is_empty(), "{id}: no reason");
    }
    let mut derived = 0;
    for v in vectors.iter().filter(|v| {
        v.suite == Suite::GrpAdmission
            && v.family == "admission"
            && v.expectation != Expectation::Valid
    }) {
        let exempt = GRP_ADMISSION_UNDERIVED.iter().any(|(id, _)| *id == v.id);
        let Some(d) = &v.derivation else {
            assert!(exempt, "{}: no derivation source", v.id);
            continue;
        };
        assert!(
            !exempt,
            "{}: allow-listed as underived, but derives from {}",
            v.id, d.source
        );
        let source = by_id
            .get(d.source.as_str())
            .unwrap_or_else(|| panic!("{} derives from unknown {}", v.id, d.source));
        assert_eq!(
            source.expectation,
            Expectation::Valid,
            "{}: source {} is not valid",
            v.id,
            d.source
        );
        assert!(
            source.suite == v.suite && source.family == v.family,
            "{}: source {} is in another suite or family",
            v.id,
            d.source
        );
        for r in v.all_revisions() {
            assert!(
                source.revisions.contains(r),
                "{}: targets revision {r}, under which source {} is not valid",
                v.id,
                d.source
            );
        }
        assert!(!d.mutation.trim().is_empty(), "{}: no mutation", v.id);
        derived += 1;
    }
    assert!(derived > 0, "no derived GRP admission vector");
}

#[test]
fn rules_are_catalogue_rules_and_expectations_are_consistent() {
    for v in corpus() {
        // Every rule is a catalogue rule by type: a vector file naming another id does not read.
        for id in &v.expected_rules {
            assert!(
                v.rules.contains(id),
                "{}: expected rule {id} not among its rules",
                v.id
            );
        }
        match v.expectation {
            Expectation::Valid => assert!(
                v.expected_rules.is_empty() && v.flags.is_empty(),
                "{}",
                v.id
            ),
            Expectation::Invalid => assert!(
                !v.expected_rules.is_empty() && v.flags.is_empty(),
                "{}",
                v.id
            ),
            Expectation::Acceptable => assert!(
                !v.expected_rules.is_empty() && !v.flags.is_empty(),
                "{}",
                v.id
            ),
        }
        for input in &v.inputs {
            let bytes = input.bytes().unwrap();
            assert_eq!(
                agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(&bytes)),
                input.sha256,
                "{}",
                v.id
            );
        }
    }
}

/// Rules no committed vector can exercise, each with the reason and where it is tested instead.
const WITHOUT_VECTORS: &[(&str, &str)] = &[(
    "AER1-JSON-SIZE",
    "a resource limit of the reference (64 MiB per document or entry): a vector over it cannot be \
     committed; crates/aer1/tests/rule_coverage.rs triggers it with a small limit",
)];

/// Every AER-1 rule is exercised by at least one vector (except the listed resource limits), and
/// every rule that can be broken appears in the expected rules of at least one negative vector.
#[test]
fn every_rule_has_a_vector() {
    let vectors = corpus();
    let exercised: BTreeSet<&str> = vectors
        .iter()
        .flat_map(|v| v.rules.iter().map(|r| r.id()))
        .collect();
    let expected: BTreeSet<&str> = vectors
        .iter()
        .flat_map(|v| v.expected_rules.iter().map(|r| r.id()))
        .collect();
    let exempt: BTreeSet<&str> = WITHOUT_VECTORS.iter().map(|(id, _)| *id).collect();
    let aer1 = Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| id.starts_with("AER1-") && !exempt.contains(id));
    let missing: Vec<&str> = aer1.clone().filter(|id| !exercised.contains(id)).collect();
    assert!(missing.is_empty(), "rules without a vector: {missing:?}");
    // A producer's rule (AER1-RC-BYTES-KEPT) is broken only by what a producer writes, never by
    // an input document: its vectors grade output, and no negative vector can expect it.
    let producers_only: BTreeSet<&str> = Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| {
            vectors
                .iter()
                .filter(|v| v.rules.iter().any(|r| r.id() == *id))
                .all(|v| v.suite.graded_on_output())
        })
        .collect();
    // AER1-TL-VERSIONING is a reporting rule: shown by labelling, never cited as a failure.
    let never_broken: Vec<&str> = aer1
        .filter(|id| {
            *id != "AER1-TL-VERSIONING" && !producers_only.contains(id) && !expected.contains(id)
        })
        .collect();
    assert!(
        never_broken.is_empty(),
        "rules no negative vector expects: {never_broken:?}"
    );
    for (id, _) in WITHOUT_VECTORS {
        assert!(
            Rule::from_id(id).is_some(),
            "exempt rule {id} is not in the catalogue"
        );
    }
}

#[test]
fn the_corpus_is_large_enough_and_every_suite_is_present() {
    let vectors = corpus();
    let aer1 = vectors.iter().filter(|v| v.id.starts_with("aer1/")).count();
    assert!(aer1 >= 150, "only {aer1} AER-1 vectors");
    for suite in Suite::ALL {
        assert!(
            vectors.iter().any(|v| v.suite == suite),
            "no {} vector",
            suite.as_str()
        );
    }
    let mut families: BTreeMap<(Suite, &str), usize> = BTreeMap::new();
    for v in &vectors {
        *families.entry((v.suite, v.family.as_str())).or_default() += 1;
    }
    for family in [
        "valid",
        "truncated",
        "reclosed",
        "substituted",
        "revision06",
        "tamper",
        "structure",
        "hostile",
    ] {
        assert!(
            families.contains_key(&(Suite::Aer1Timeline, family)),
            "no timeline family {family}"
        );
    }
}

#[test]
fn the_manifest_digest_can_be_recomputed_from_the_manifest_alone() {
    let files = writer::files(&corpus());
    let manifest: Manifest = serde_json::from_str(&files[writer::MANIFEST]).unwrap();
    let mut lines: Vec<String> = manifest
        .vectors
        .iter()
        .map(|e| format!("{} {}\n", e.id, e.sha256))
        .collect();
    lines.sort();
    let digest =
        agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(lines.concat().as_bytes()));
    assert_eq!(digest, manifest.corpus_digest);
    assert_eq!(manifest.vector_count, manifest.vectors.len());
    for e in &manifest.vectors {
        let text = &files[&e.path];
        assert_eq!(
            agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(text.as_bytes())),
            e.sha256,
            "{}",
            e.id
        );
    }
}

/// A vector only exercises rules that exist in at least one of its revisions. The exception is
/// AER1-TL-VERSIONING (added by 07): it is the duty of a 07-09 verifier checking a chain under the
/// 06 construction, so 06-only vectors exercise it.
#[test]
fn exercised_rules_apply_to_the_vectors_revisions() {
    for v in corpus() {
        let revisions: Vec<&String> = v.all_revisions().collect();
        for id in v.rules.iter().filter(|r| **r != Rule::Aer1TlVersioning) {
            let record = id.record();
            assert!(
                revisions.iter().any(|r| record.revisions.contains(r)),
                "{}: rule {id} applies to revisions {:?}, the vector to {revisions:?}",
                v.id,
                record.revisions,
            );
        }
    }
}

/// A rejection may only be expected on a rule that every revision of the expectation has: a
/// vector must not expect a revision-06 verifier to report a rule revision 06 does not have.
#[test]
fn expected_rules_apply_to_every_revision_they_are_expected_under() {
    for v in corpus() {
        for case in v.cases() {
            for id in case.expected_rules.iter().chain(case.also_reported) {
                let record = id.record();
                for r in case.revisions {
                    assert!(
                        record.revisions.contains(r),
                        "{}: expects {id} under revision {r}, but the rule applies to {:?}",
                        case.id,
                        record.revisions
                    );
                }
            }
        }
    }
}

/// Other-revision expectations are as consistent as the main one, and every vector's cases have
/// distinct ids that never collide with another vector's.
#[test]
fn other_revision_expectations_are_consistent() {
    let vectors = corpus();
    let mut ids = BTreeSet::new();
    for v in &vectors {
        for o in &v.other_revisions {
            assert!(!o.reason.trim().is_empty(), "{}", v.id);
            assert!(!o.revisions.is_empty(), "{}", v.id);
            for id in o.expected_rules.iter().chain(&o.also_reported) {
                assert!(v.rules.contains(id), "{}: {id} not among its rules", v.id);
            }
            for id in &o.also_reported {
                assert!(
                    !o.expected_rules.contains(id),
                    "{}: {id} both required and optional",
                    v.id
                );
                assert_eq!(o.expectation, Expectation::Invalid, "{}", v.id);
            }
            match o.expectation {
                Expectation::Valid => assert!(o.expected_rules.is_empty() && o.flags.is_empty()),
                Expectation::Invalid => assert!(!o.expected_rules.is_empty() && o.flags.is_empty()),
                Expectation::Acceptable => {
                    assert!(!o.expected_rules.is_empty() && !o.flags.is_empty())
                }
            }
        }
        let cases = v.cases();
        assert!(!cases.is_empty(), "{}: no case", v.id);
        assert_eq!(cases[0].id, v.id);
        for c in &cases {
            assert!(ids.insert(c.id.clone()), "case id {} twice", c.id);
            assert!(c.revisions.iter().any(|r| r == c.revision), "{}", c.id);
        }
    }
}

/// Every timeline vector runs once under each construction its revisions span (the revisions
/// table names each revision's construction): a vector naming 06 and 07-09 gives two cases.
#[test]
fn timeline_cases_cover_each_construction_of_each_expectation() {
    let table = agentconf_rules::Revisions::embedded();
    let construction = |r: &str| table.construction(Suite::Aer1Timeline.draft(), r);
    for v in corpus().iter().filter(|v| v.suite == Suite::Aer1Timeline) {
        let spanned: BTreeSet<Option<&str>> = v.all_revisions().map(|r| construction(r)).collect();
        let run: Vec<Option<&str>> = v.cases().iter().map(|c| construction(c.revision)).collect();
        let run_set: BTreeSet<Option<&str>> = run.iter().copied().collect();
        assert_eq!(run_set, spanned, "{}", v.id);
        assert!(
            !spanned.contains(&None),
            "{}: a revision the table does not know",
            v.id
        );
    }
}

/// The generated regions of README.md and vectors/README.md; `cargo xtask vectors` rewrites them,
/// so no number describing the corpus is edited by hand.
#[test]
fn vectors_readme_revisions_region_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/README.md");
    let text = std::fs::read_to_string(path).unwrap();
    let fresh = agentconf_corpus::docs::splice_region(
        &text,
        "vectors/README.md",
        "revisions",
        &agentconf_corpus::docs::revisions_region(&corpus()),
    )
    .unwrap();
    assert!(
        text == fresh,
        "vectors/README.md's revisions region is stale: run `cargo xtask vectors`"
    );
}

/// README's corpus region (counts, digest, families) is generated; `cargo xtask vectors` rewrites
/// it, so no number describing the corpus is edited by hand.
#[test]
fn readme_corpus_region_is_up_to_date() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let fresh = writer::splice_readme(&readme, &corpus()).unwrap();
    assert!(
        readme == fresh,
        "README.md's corpus region is stale: run `cargo xtask vectors`"
    );
    let manifest = writer::manifest(&corpus());
    assert!(readme.contains(&manifest.corpus_digest));
}

/// The corpus facts compiled into the build (`src/embedded.rs`, what a run of part of the corpus
/// records in its header) are the corpus's: its digest and its case count, and the file is what
/// `cargo xtask vectors` writes.
#[test]
fn the_embedded_corpus_facts_are_the_corpus() {
    let corpus = corpus();
    let manifest = writer::manifest(&corpus);
    assert_eq!(
        agentconf_corpus::embedded::CORPUS_DIGEST,
        manifest.corpus_digest,
        "src/embedded.rs is stale: run `cargo xtask vectors`"
    );
    let cases: usize = corpus.iter().map(|v| v.cases().len()).sum();
    assert_eq!(agentconf_corpus::embedded::CASE_COUNT, cases);
    let file =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/embedded.rs")).unwrap();
    assert_eq!(file, writer::embedded_facts(&corpus));
}

/// `vectors/CHANGELOG.md`'s newest entry is the corpus embedded in the tool, and every entry
/// starts from the one below it: the digest a conformance claim cites can be traced to what
/// changed in it. `cargo xtask vectors` writes it.
#[test]
fn the_changelog_describes_the_current_corpus() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/CHANGELOG.md"
    ))
    .unwrap_or_default();
    let digest = writer::manifest(&corpus()).corpus_digest;
    assert_eq!(
        agentconf_corpus::diff::changelog_latest_digest(&text),
        Some(digest.as_str()),
        "vectors/CHANGELOG.md is stale: run `cargo xtask vectors`"
    );
    assert_eq!(
        agentconf_corpus::diff::changelog_problems(&text),
        Vec::<String>::new(),
        "vectors/CHANGELOG.md does not chain back to the empty corpus"
    );
}

/// An emitter's output is bounded by `EMIT_OUTPUT_LIMIT` (so a runaway emitter costs the harness
/// a bounded amount of memory per worker), which must leave room for every artifact the emitter
/// vectors ask for: each expected artifact, as the judge writes it, is at most a quarter of it.
#[test]
fn the_emitter_output_bound_fits_every_expected_artifact() {
    use agentconf_contract::emit::TimelineSteps;
    use agentconf_contract::vector::Suite;
    let limit = agentconf_harness::EMIT_OUTPUT_LIMIT;
    let mut largest = (0, String::new());
    for v in corpus() {
        let size = match v.suite {
            Suite::Aer1EmitTimeline => {
                let steps = TimelineSteps::parse(&v.input_bytes("steps").unwrap()).unwrap();
                let (entries, _) = agentconf_harness::emitted::expected_timeline(&steps);
                serde_json::to_vec(&entries).unwrap().len()
            }
            // The receipt carries the payload in base64 (4/3 of it) beside META's members; a
            // commitment is four members over a timeline the vector gives.
            Suite::Aer1EmitReceipt => {
                v.input_bytes("payload").unwrap().len() * 4 / 3
                    + v.input_bytes("meta").unwrap().len()
                    + 256
            }
            Suite::Aer1EmitCommitment => 512,
            _ => continue,
        };
        if size > largest.0 {
            largest = (size, v.id.clone());
        }
    }
    assert!(
        largest.0 * 4 <= limit,
        "{} asks for an artifact of {} bytes: more than a quarter of the {limit}-byte bound",
        largest.1,
        largest.0
    );
    assert!(largest.0 > 1 << 20, "the largest artifact is {largest:?}");
}
