//! Snapshots of a corpus: from a directory of any agentconf version, or from the vectors in
//! memory.
//!
//! A directory may come from an older agentconf, whose vector schema differs from today's (no
//! `other_revisions` before per-revision expectations, `options.id_tier` before `tier`, ...), so
//! the files are read as plain JSON and only the members a diff needs are taken: a missing
//! optional member is an empty list, never an error. The directory is still untrusted, as in
//! [`crate::reader`]: the manifest's paths are plain names below it (no absolute path, no `..`;
//! a symbolic link inside it is followed, as the user who handed over the directory could read
//! its target anyway), sizes are bounded, duplicate member names are refused,
//! every file is held to the manifest's SHA-256 and the corpus digest is recomputed.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use agentconf_contract::vector::Vector;

use super::{CorpusSnapshot, Grade, VectorSummary};
use crate::reader::{at, parse_strict, read_bytes, MAX_MANIFEST_BYTES, MAX_VECTOR_BYTES};
use crate::writer::{self, MANIFEST};

/// Reads the corpus under `dir` (`dir/manifest.json` and the files it lists). `Err` is one line
/// naming the file at fault.
pub fn load_dir(dir: &Path) -> Result<CorpusSnapshot, String> {
    let manifest_path = dir.join(MANIFEST);
    let manifest = read_json(&manifest_path, MAX_MANIFEST_BYTES)?;
    let in_manifest = |what: &str| at(&manifest_path, what);
    let claimed = str_member(&manifest, "corpus_digest")
        .map_err(|e| in_manifest(&e))?
        .to_string();
    let entries = match manifest.get("vectors") {
        Some(Value::Array(entries)) => entries,
        _ => return Err(in_manifest("no \"vectors\" array")),
    };
    // Every manifest so far has a count; one that disagrees was edited by hand.
    if let Some(count) = manifest.get("vector_count") {
        if count.as_u64() != Some(entries.len() as u64) {
            return Err(in_manifest(&format!(
                "vector_count is {count}, but it lists {} vectors",
                entries.len()
            )));
        }
    }
    let mut vectors = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        let member = |name: &str| {
            str_member(entry, name).map_err(|e| in_manifest(&format!("vectors[{i}]: {e}")))
        };
        let (id, relative, listed_sha) = (member("id")?, member("path")?, member("sha256")?);
        // Only plain names below `dir`: no absolute path, no `..`, no `.`.
        let relative_path = Path::new(relative);
        if relative.is_empty()
            || !relative_path
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(in_manifest(&format!(
                "{relative:?} is not a path inside the corpus directory"
            )));
        }
        let path = dir.join(relative_path);
        let bytes = read_bytes(&path, MAX_VECTOR_BYTES)?;
        let sha256 = sha256_hex(&bytes);
        if sha256 != listed_sha {
            return Err(at(
                &path,
                &format!("its SHA-256 is {sha256}; the manifest says {listed_sha}"),
            ));
        }
        let value = parse(&bytes).map_err(|e| at(&path, &e))?;
        let summary = summarise(&value, sha256).map_err(|e| at(&path, &e))?;
        if summary.id != id {
            return Err(at(
                &path,
                &format!("it holds {:?}; the manifest says {id:?}", summary.id),
            ));
        }
        if vectors.insert(summary.id.clone(), summary).is_some() {
            return Err(in_manifest(&format!("vector {id:?} is listed twice")));
        }
    }
    let digest = digest_of(&vectors);
    if digest != claimed {
        return Err(in_manifest(&format!(
            "its vector files digest to {digest}, but it says {claimed}"
        )));
    }
    Ok(CorpusSnapshot { digest, vectors })
}

/// The snapshot of vectors in memory (the embedded corpus): each vector summarised from the text
/// [`writer::vector_file`] writes, read back as a directory's file is read, so it equals the
/// snapshot of the directory written from them.
pub fn from_vectors(vectors: &[Vector]) -> CorpusSnapshot {
    let vectors: BTreeMap<String, VectorSummary> = vectors
        .iter()
        .map(|v| {
            let file = writer::vector_file(v);
            // Failing here is a defect of the writer, not an input problem.
            let value = parse(file.as_bytes()).expect("the corpus writer writes strict JSON");
            let summary = summarise(&value, sha256_hex(file.as_bytes()))
                .expect("a written vector has every member a summary reads");
            (summary.id.clone(), summary)
        })
        .collect();
    CorpusSnapshot {
        digest: digest_of(&vectors),
        vectors,
    }
}

/// The corpus with no vector, from which the changelog's oldest entry starts.
pub fn empty_snapshot() -> CorpusSnapshot {
    CorpusSnapshot {
        digest: digest_of(&BTreeMap::new()),
        vectors: BTreeMap::new(),
    }
}

/// As [`writer::corpus_digest`]: SHA-256 over the sorted lines `<id> <sha256>\n`.
fn digest_of(vectors: &BTreeMap<String, VectorSummary>) -> String {
    // Sorted as lines, not as ids, exactly as the writer does: the two orders differ when one id
    // is a prefix of another followed by a character below the space.
    let mut lines: Vec<String> = vectors
        .values()
        .map(|v| format!("{} {}\n", v.id, v.sha256))
        .collect();
    lines.sort();
    sha256_hex(lines.concat().as_bytes())
}

/// One vector file's summary. Required: `id`, `suite`, `family`, `revisions`, `expectation`
/// (every version of the corpus has them); `rules`, `expected_rules` and `other_revisions` may be
/// missing. A member of the wrong type is an error, not a default: it would misreport a grade.
pub(super) fn summarise(value: &Value, sha256: String) -> Result<VectorSummary, String> {
    let object = value.as_object().ok_or("not a JSON object")?;
    let mut by_revision = BTreeMap::new();
    add_grades(object, "", &mut by_revision)?;
    if let Some(others) = object.get("other_revisions") {
        let others = others
            .as_array()
            .ok_or("\"other_revisions\" is not an array")?;
        for (i, other) in others.iter().enumerate() {
            let other = other
                .as_object()
                .ok_or_else(|| format!("other_revisions[{i}] is not an object"))?;
            add_grades(other, &format!("other_revisions[{i}]."), &mut by_revision)?;
        }
    }
    Ok(VectorSummary {
        id: str_member(value, "id")?.to_string(),
        suite: str_member(value, "suite")?.to_string(),
        family: str_member(value, "family")?.to_string(),
        sha256,
        content_sha256: content_sha256(value),
        rules: sorted(string_list(object, "", "rules")?),
        by_revision,
    })
}

/// The members a diff compares as a [`Grade`], in the vector and in each `other_revisions`
/// entry. Everything else is content, answers included (`flags`, `also_reported`,
/// `expected_decisions`, `expected_final_digest`): no other category lists their changes.
const GRADE_MEMBERS: [&str; 3] = ["revisions", "expectation", "expected_rules"];

/// SHA-256 of `value` without its [`GRADE_MEMBERS`], serialised with members sorted (serde_json's
/// map is ordered by name), so the order a writer used does not count as a change. An
/// `other_revisions` entry left with nothing but empty lists is dropped: a revision group split
/// off or merged back is a grade change, not a content change, while a group's flags still count.
fn content_sha256(value: &Value) -> String {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        for member in GRADE_MEMBERS {
            object.remove(member);
        }
        if let Some(Value::Array(groups)) = object.get_mut("other_revisions") {
            for group in groups.iter_mut() {
                if let Some(group) = group.as_object_mut() {
                    for member in GRADE_MEMBERS {
                        group.remove(member);
                    }
                    group.retain(|_, v| !matches!(v, Value::Array(a) if a.is_empty()));
                }
            }
            groups.retain(|g| !matches!(g, Value::Object(o) if o.is_empty()));
            if groups.is_empty() {
                object.remove("other_revisions");
            }
        }
    }
    sha256_hex(serde_json::to_string(&value).unwrap_or_default().as_bytes())
}

/// The grade of `group` (the vector itself or one `other_revisions` entry) under each of its
/// revisions. A revision graded twice is refused: which grade holds would be a guess.
fn add_grades(
    group: &Map<String, Value>,
    at: &str,
    by_revision: &mut BTreeMap<String, Grade>,
) -> Result<(), String> {
    let expectation = match group.get("expectation") {
        Some(Value::String(e)) => e.clone(),
        _ => return Err(format!("{at}expectation is missing or not a string")),
    };
    let grade = Grade {
        expectation,
        expected_rules: sorted(string_list(group, at, "expected_rules")?),
    };
    if !group.contains_key("revisions") {
        return Err(format!("{at}revisions is missing"));
    }
    for revision in string_list(group, at, "revisions")? {
        if by_revision.contains_key(&revision) {
            return Err(format!("revision {revision:?} is graded twice"));
        }
        by_revision.insert(revision, grade.clone());
    }
    Ok(())
}

/// Member `name` as a list of strings; missing is empty.
fn string_list(group: &Map<String, Value>, at: &str, name: &str) -> Result<Vec<String>, String> {
    let Some(value) = group.get(name) else {
        return Ok(Vec::new());
    };
    let not_list = || format!("{at}{name} is not a list of strings");
    value
        .as_array()
        .ok_or_else(not_list)?
        .iter()
        .map(|s| s.as_str().map(str::to_string).ok_or_else(not_list))
        .collect()
}

fn str_member<'a>(value: &'a Value, name: &str) -> Result<&'a str, String> {
    value
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{name} is missing or not a string"))
}

fn sorted(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut items: Vec<String> = items.into_iter().collect();
    items.sort();
    items.dedup();
    items
}

fn sha256_hex(bytes: &[u8]) -> String {
    agentconf_aer1::hex::lower(&Sha256::digest(bytes))
}

fn read_json(path: &Path, limit: u64) -> Result<Value, String> {
    let bytes = read_bytes(path, limit)?;
    parse(&bytes).map_err(|e| at(path, &e))
}

/// JSON text as a tree, refusing what [`crate::reader`] refuses besides the schema: text that is
/// not UTF-8 and duplicate member names (which parsers resolve differently).
fn parse(bytes: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    parse_strict(text)
}
