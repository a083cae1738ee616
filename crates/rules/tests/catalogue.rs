//! The enum and the catalogue file describe the same set of rules, and every rule is explained.

use std::collections::BTreeSet;

use agentconf_rules::{Catalogue, Rule};

#[test]
fn every_rule_variant_has_exactly_one_record() {
    let catalogue = Catalogue::embedded();
    for rule in Rule::ALL {
        let n = catalogue
            .records()
            .iter()
            .filter(|r| r.id == rule.id())
            .count();
        assert_eq!(n, 1, "{rule} has {n} catalogue records");
    }
}

#[test]
fn every_record_is_a_rule_variant() {
    for record in Catalogue::embedded().records() {
        let rule = Rule::from_id(&record.id)
            .unwrap_or_else(|| panic!("catalogue record {} has no Rule variant", record.id));
        assert_eq!(rule.id(), record.id);
    }
    assert_eq!(Catalogue::embedded().records().len(), Rule::ALL.len());
}

#[test]
fn ids_are_unique_and_well_formed() {
    let mut seen = BTreeSet::new();
    for rule in Rule::ALL {
        assert!(seen.insert(rule.id()), "duplicate id {rule}");
        assert!(
            rule.id()
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-'),
            "{rule} is not UPPER-KEBAB"
        );
    }
}

#[test]
fn records_are_complete() {
    for r in Catalogue::embedded().records() {
        assert!(!r.title.trim().is_empty(), "{} has no title", r.id);
        assert!(!r.section.trim().is_empty(), "{} has no section", r.id);
        assert!(!r.revisions.is_empty(), "{} names no revision", r.id);
        assert!(
            r.draft == "draft-zambo-aer1" || r.draft == "draft-sato-soos-grp",
            "{} names an unknown draft {}",
            r.id,
            r.draft
        );
    }
}

/// Every rule is explained in `spec-notes/<family>.md`, which must mention its id.
#[test]
fn every_rule_is_documented_in_its_family_notes() {
    let notes_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec-notes");
    for r in Catalogue::embedded().records() {
        let path = format!("{notes_dir}/{}.md", r.family);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: family notes {path} unreadable: {e}", r.id));
        assert!(
            text.contains(&format!("`{}`", r.id)),
            "{} is not explained in {path}",
            r.id
        );
    }
}

#[test]
fn rule_ids_round_trip_through_serde() {
    for rule in Rule::ALL {
        let json = format!("\"{}\"", rule.id());
        let back: Rule = toml::from_str::<toml::Value>(&format!("x = {json}"))
            .ok()
            .and_then(|v| v.get("x").cloned())
            .and_then(|v| v.try_into().ok())
            .expect("deserializes");
        assert_eq!(back, *rule);
    }
}

/// `spec-notes/RULES.md` is generated from the catalogue; regenerate with `cargo xtask rules`.
#[test]
fn generated_rules_table_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec-notes/RULES.md");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    let fresh = Catalogue::embedded().to_markdown();
    assert!(
        on_disk == fresh,
        "spec-notes/RULES.md is stale: run `cargo xtask rules`"
    );
}

/// The crate embeds copies of `spec-notes/rules.toml`, `facts.toml` and `revisions.toml` (a published crate cannot
/// include files from outside its directory); `cargo xtask rules` writes them. An edit to
/// `spec-notes/` without that step would leave the tool judging by the old catalogue.
#[test]
fn the_embedded_catalogue_is_the_one_in_spec_notes() {
    for (name, embedded) in [
        ("rules.toml", agentconf_rules::CATALOGUE_TOML),
        ("facts.toml", agentconf_rules::FACTS_TOML),
        ("revisions.toml", agentconf_rules::REVISIONS_TOML),
    ] {
        let path = format!("{}/../../spec-notes/{name}", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).expect("spec-notes file is readable");
        assert!(
            embedded == source,
            "crates/rules/catalogue/{name} differs from spec-notes/{name}: run `cargo xtask rules`"
        );
    }
}
