//! The fast path for one entry: everything about an entry that does not depend on the entries
//! before it, done without building a general JSON tree, and only for entries that pass it all.
//!
//! [`prepare`] reads the entry with [`crate::json::flat::scan_flat_object`] (one flat object of
//! plain members, strictness checked in the same pass) and then runs, on the extracted values, the
//! very functions the strict check runs (`decode_and_hash`, `provenance_class`, `seq_digits`,
//! `hex::eq_lower`, `write_preimage`, `sha256`). It answers `Some` only when none of them would
//! report anything: then the only findings the strict check could still make on this entry are the
//! order-dependent ones (job consistency, genesis, link), which [`super::Chain`] makes from the
//! [`Prepared`] result with the same functions and in the same order. On any doubt it answers
//! `None` and the strict path reads the entry and produces every finding, so findings always come
//! from one place and the fast path can only ever skip work, never change a report.
//!
//! `Prepared` owns no borrowed data (the two strings the chain still needs are byte ranges in the
//! entry), so worker threads can compute it and send it back with the entry's bytes.

use std::ops::Range;

use crate::digest::{sha256, write_preimage, Hash32, PreimageFields, Revision};
use crate::formats::{decode_and_hash, provenance_class};
use crate::hex;
use crate::json::flat::{scan_flat_object, FlatObject, FlatValue};
use crate::json::{Limits, Node, Num};

use super::seq::seq_digits;

/// Buffers reused from one entry to the next (one set per thread).
#[derive(Default)]
pub(super) struct Scratch {
    /// Decoded `canonical_bytes`.
    pub bytes: Vec<u8>,
    /// The revision-09 preimage of the last entry digested.
    pub preimage: Vec<u8>,
}

/// What the chain needs of an entry that passed every check that does not depend on other
/// entries.
#[derive(Clone, Debug)]
pub(super) struct Prepared {
    /// The entry's index this was computed for (seq was checked against it).
    pub index: u64,
    /// Digest under the revision checked.
    pub digest: Hash32,
    /// Revision-06 digest (the output hash).
    pub digest_06: Hash32,
    /// The `close` member (absent is false).
    pub close: bool,
    /// Where `prev_digest`'s text lies in the entry's bytes.
    pub prev_digest: Range<usize>,
    /// Where `job_id`'s text lies (revision 09 only: 06 does not judge it).
    pub job_id: Option<Range<usize>>,
}

/// Entries sit inside the timeline array: one level of the nesting budget is used, as for the
/// strict read.
const ENCLOSING: usize = 1;

/// The fast path for entry `index` under `revision`; `None` means "use the strict path".
pub(super) fn prepare(
    bytes: &[u8],
    index: u64,
    revision: Revision,
    limits: &Limits,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let entry = Members::pick(&scan_flat_object(bytes, ENCLOSING, limits)?);
    match revision {
        Revision::R09 => prepare_09(&entry, bytes, index, scratch),
        Revision::R06 => prepare_06(&entry, bytes, index, scratch),
    }
}

/// The members the checks read. Member names in a flat object are unique, so each slot holds
/// what `Object::get` would find; one pass with literal names beats a lookup per member.
#[derive(Default)]
struct Members<'a> {
    canonical_bytes: Option<FlatValue<'a>>,
    prev_digest: Option<FlatValue<'a>>,
    job_id: Option<FlatValue<'a>>,
    id: Option<FlatValue<'a>>,
    tool: Option<FlatValue<'a>>,
    provenance_class: Option<FlatValue<'a>>,
    output_hash: Option<FlatValue<'a>>,
    seq: Option<FlatValue<'a>>,
    close: Option<FlatValue<'a>>,
}

impl<'a> Members<'a> {
    fn pick(entry: &FlatObject<'a>) -> Self {
        let mut m = Members::default();
        for &(name, value) in entry.members() {
            let slot = match name {
                "canonical_bytes" => &mut m.canonical_bytes,
                "prev_digest" => &mut m.prev_digest,
                "job_id" => &mut m.job_id,
                "id" => &mut m.id,
                "tool" => &mut m.tool,
                "provenance_class" => &mut m.provenance_class,
                "output_hash" => &mut m.output_hash,
                "seq" => &mut m.seq,
                "close" => &mut m.close,
                _ => continue,
            };
            *slot = Some(value);
        }
        m
    }
}

/// A string member as `string_member` accepts it without a finding: present, a string, and
/// non-empty unless `may_be_empty`.
fn string(member: Option<FlatValue<'_>>, may_be_empty: bool) -> Option<&str> {
    match member? {
        FlatValue::Str(s) if may_be_empty || !s.is_empty() => Some(s),
        _ => None,
    }
}

/// `close` as `check_close` accepts it without a finding: absent (false) or a boolean.
fn close(member: Option<FlatValue<'_>>) -> Option<bool> {
    match member {
        None => Some(false),
        Some(FlatValue::Bool(b)) => Some(b),
        Some(_) => None,
    }
}

/// Mirrors `check_object_09`: declines wherever that would report a finding other than the
/// order-dependent job and link ones.
fn prepare_09(
    entry: &Members<'_>,
    bytes: &[u8],
    index: u64,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let canonical_bytes = string(entry.canonical_bytes, true)?;
    let prev_digest = string(entry.prev_digest, true)?;
    let job_id = string(entry.job_id, false)?;
    let id = string(entry.id, false)?;
    let tool = string(entry.tool, false)?;
    let class = string(entry.provenance_class, false)?;

    let decoded = decode_and_hash(canonical_bytes, &mut scratch.bytes).ok()?;
    if decoded.not_utf8_at.is_some() {
        return None;
    }
    let output_hash = decoded.sha256;
    match entry.output_hash {
        None => {}
        Some(FlatValue::Str(stored))
            if stored
                .strip_prefix("sha256:")
                .is_some_and(|h| hex::eq_lower(h, &output_hash)) => {}
        Some(_) => return None,
    }
    provenance_class(class)?;

    let FlatValue::Int(seq_text) = entry.seq? else {
        return None;
    };
    let seq = seq_digits(&Node::Number(Num::Text(seq_text))).ok()?;
    if seq.parse::<u64>() != Ok(index.checked_add(1)?) {
        return None;
    }
    let close = close(entry.close)?;

    write_preimage(
        &mut scratch.preimage,
        &PreimageFields {
            close,
            id,
            job_id,
            output_hash: &output_hash,
            prev_digest,
            provenance_class: class,
            seq: &seq,
            tool,
        },
    );
    Some(Prepared {
        index,
        digest: sha256(&scratch.preimage),
        digest_06: output_hash,
        close,
        prev_digest: span(bytes, prev_digest)?,
        job_id: Some(span(bytes, job_id)?),
    })
}

/// Mirrors `check_object_06`: the bytes strict base64, close absent or boolean, prev_digest a
/// string (whether a missing one is a finding depends on the entries before: declined).
fn prepare_06(
    entry: &Members<'_>,
    bytes: &[u8],
    index: u64,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let FlatValue::Str(canonical_bytes) = entry.canonical_bytes? else {
        return None;
    };
    let decoded = decode_and_hash(canonical_bytes, &mut scratch.bytes).ok()?;
    let close = close(entry.close)?;
    let FlatValue::Str(prev_digest) = entry.prev_digest? else {
        return None;
    };
    Some(Prepared {
        index,
        digest: decoded.sha256,
        digest_06: decoded.sha256,
        close,
        prev_digest: span(bytes, prev_digest)?,
        job_id: None,
    })
}

/// Where `part`, a string borrowed from `whole`, lies in it. Checked, so a wrong answer is
/// impossible: the range is returned only if it holds exactly `part`'s bytes.
fn span(whole: &[u8], part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let range = start..start.checked_add(part.len())?;
    (whole.get(range.clone())? == part.as_bytes()).then_some(range)
}

/// The text at `range` of an entry's bytes (a range [`prepare`] produced for these bytes).
pub(super) fn text_at<'b>(bytes: &'b [u8], range: &Range<usize>) -> Option<&'b str> {
    std::str::from_utf8(bytes.get(range.clone())?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_finds_borrowed_parts_and_refuses_foreign_ones() {
        let text = String::from(r#"{"a":"xyz"}"#);
        let whole = text.as_bytes();
        assert_eq!(span(whole, &text[6..9]), Some(6..9));
        // Equal text elsewhere in memory is not a part of `whole`.
        let elsewhere = String::from("xyz");
        assert_eq!(span(whole, &elsewhere), None);
        assert_eq!(text_at(whole, &(6..9)), Some("xyz"));
        assert_eq!(text_at(whole, &(6..99)), None);
    }
}
