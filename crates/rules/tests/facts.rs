//! No rule claims a basis its revisions' facts do not give, and every draft fact is graded or
//! says why not.

use agentconf_rules::{basis_problems, uncited_facts};
use agentconf_rules::{Catalogue, Facts, Revisions, Rule};

#[test]
fn every_rule_basis_is_backed_by_the_facts_of_each_revision_it_lists() {
    let facts = Facts::embedded();
    let problems: Vec<String> = Catalogue::embedded()
        .records()
        .iter()
        .flat_map(|r| basis_problems(r, facts))
        .collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_fact_is_graded_or_says_why_not() {
    let uncited = uncited_facts(Catalogue::embedded(), Facts::embedded());
    let ids: Vec<&str> = uncited.iter().map(|f| f.id.as_str()).collect();
    assert!(ids.is_empty(), "facts no rule cites: {ids:?}");
}

#[test]
fn fact_ids_are_unique_and_facts_complete() {
    let mut seen = std::collections::BTreeSet::new();
    for f in Facts::embedded().all() {
        assert!(seen.insert(&f.id), "duplicate fact id {}", f.id);
        assert!(
            f.id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{} is not lower-kebab",
            f.id
        );
        assert!(!f.revisions.is_empty(), "{} names no revision", f.id);
        assert!(!f.states.trim().is_empty(), "{} states nothing", f.id);
        assert!(
            !f.section.trim().is_empty() && !f.sheet.trim().is_empty(),
            "{}",
            f.id
        );
    }
}

/// The check itself can fail: the records below are the catalogue's own errors of the past (a
/// revision-07 rule claimed for revision 06 with basis text; a kit rule with no kit fact; a fact
/// of the other draft), and each is caught.
#[test]
fn the_basis_check_catches_claims_the_facts_do_not_give() {
    let facts = Facts::embedded();
    let mut members = Rule::Aer1TlMembers.record().clone();
    members.revisions = vec!["06".into(), "07".into(), "08".into(), "09".into()];
    let p = basis_problems(&members, facts);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("revision 06"), "{p:?}");

    let mut seq_type = Rule::Aer1TlSeqType.record().clone();
    seq_type.facts = vec!["aer1-timeline-sequence".into()];
    assert_eq!(basis_problems(&seq_type, facts).len(), 3);

    let mut nonce = Rule::GrpNonce.record().clone();
    nonce.facts.push("aer1-06-genesis".into());
    assert!(basis_problems(&nonce, facts)
        .iter()
        .any(|p| p.contains("another draft")));

    // text-09 needs a fact that revision 09 added, not one that 09 merely keeps.
    let mut cm = Rule::Aer1CmCount.record().clone();
    cm.facts = vec!["aer1-timeline-links".into()];
    assert!(!basis_problems(&cm, facts).is_empty());
}

/// `spec-notes/REVISIONS.md` is generated; regenerate with `cargo xtask rules`.
#[test]
fn generated_revisions_table_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec-notes/REVISIONS.md");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    let fresh =
        Catalogue::embedded().to_revisions_markdown(Facts::embedded(), Revisions::embedded());
    assert!(
        on_disk == fresh,
        "spec-notes/REVISIONS.md is stale: run `cargo xtask rules`"
    );
}

#[test]
fn retired_ids_are_never_reused() {
    let catalogue = Catalogue::embedded();
    for r in catalogue.retired() {
        assert!(
            Rule::from_id(&r.id).is_none(),
            "retired id {} is a rule again",
            r.id
        );
        assert!(!r.reason.trim().is_empty() && !r.retired_in.trim().is_empty());
    }
}
