//! Entry digests: the revision 07-09 construction over an eight-member preimage, and the
//! historical revision-06 construction over the bytes alone.

use sha2::{Digest as _, Sha256};

use crate::escape::push_json_string;
use crate::hex;

/// A SHA-256 value.
pub type Hash32 = [u8; 32];

/// The 64 `0` characters every chain starts from.
pub const GENESIS_PREV_DIGEST: &str =
    "0000000000000000000000000000000000000000000000000000000000000000";

pub fn sha256(bytes: &[u8]) -> Hash32 {
    Sha256::digest(bytes).into()
}

/// The digest construction a chain is checked under. Named after the revision each construction
/// was last current in when this code was written; which draft revisions use which construction is
/// the revisions table's business (`spec-notes/revisions.toml`), read by [`Revision::parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Revision {
    /// The `preimage` construction of revision 07, kept by 08 and 09: the current one.
    R09,
    /// The `bytes` construction of revision 06. Historical; results are always labelled so.
    R06,
}

impl Revision {
    /// The construction's name in the revisions table.
    pub fn construction(self) -> &'static str {
        match self {
            Revision::R09 => "preimage",
            Revision::R06 => "bytes",
        }
    }

    /// The newest draft revision the revisions table checks under this construction: the revision
    /// a report names when its caller did not name one (the CLI names the one it was asked for).
    pub fn as_str(self) -> &'static str {
        let table = agentconf_rules::Revisions::embedded();
        table
            .of(agentconf_rules::draft_revisions::AER1)
            .into_iter()
            .rev()
            .find(|r| r.construction == self.construction())
            // The table lists both constructions (the test at the end of this file holds it to
            // that); failing here is a build defect, not an input problem.
            .map(|r| r.revision.as_str())
            .expect("the revisions table lists a revision of each construction")
    }

    pub fn is_historical(self) -> bool {
        matches!(self, Revision::R06)
    }

    /// The construction a draft revision is checked under, as the revisions table
    /// (`spec-notes/revisions.toml`) names it: `None` for a revision the table does not know, or
    /// one whose construction this code does not implement (a new construction is a code change).
    pub fn parse(revision: &str) -> Option<Revision> {
        let table = agentconf_rules::Revisions::embedded();
        Revision::for_construction(
            table.construction(agentconf_rules::draft_revisions::AER1, revision)?,
        )
    }

    /// The code for a construction named in the revisions table.
    pub fn for_construction(construction: &str) -> Option<Revision> {
        [Revision::R09, Revision::R06]
            .into_iter()
            .find(|r| r.construction() == construction)
    }
}

/// The members of an entry that the revision-09 preimage binds, already validated.
#[derive(Clone, Copy, Debug)]
pub struct PreimageFields<'a> {
    pub close: bool,
    pub id: &'a str,
    pub job_id: &'a str,
    /// SHA-256 of the decoded `canonical_bytes`, always recomputed, never copied from the entry.
    pub output_hash: &'a Hash32,
    pub prev_digest: &'a str,
    pub provenance_class: &'a str,
    /// `seq` as the decimal digits of an integer (1.0 is written as 1).
    pub seq: &'a str,
    pub tool: &'a str,
}

/// Writes the revision-09 preimage into `out` (cleared first): the eight members in code-point
/// order, no whitespace, strings escaped as the kit escapes them, `output_hash` as bare hex.
pub fn write_preimage(out: &mut Vec<u8>, f: &PreimageFields<'_>) {
    out.clear();
    out.extend_from_slice(b"{\"close\":");
    out.extend_from_slice(if f.close { b"true" } else { b"false" });
    out.extend_from_slice(b",\"id\":");
    push_json_string(out, f.id);
    out.extend_from_slice(b",\"job_id\":");
    push_json_string(out, f.job_id);
    out.extend_from_slice(b",\"output_hash\":\"");
    hex::push_lower(out, f.output_hash);
    out.extend_from_slice(b"\",\"prev_digest\":");
    push_json_string(out, f.prev_digest);
    out.extend_from_slice(b",\"provenance_class\":");
    push_json_string(out, f.provenance_class);
    out.extend_from_slice(b",\"seq\":");
    out.extend_from_slice(f.seq.as_bytes());
    out.extend_from_slice(b",\"tool\":");
    push_json_string(out, f.tool);
    out.push(b'}');
}

/// Revision-09 entry digest; `scratch` is reused between entries to avoid allocation.
pub fn entry_digest_09(f: &PreimageFields<'_>, scratch: &mut Vec<u8>) -> Hash32 {
    write_preimage(scratch, f);
    sha256(scratch)
}

/// Revision-06 entry digest: SHA-256 of the decoded bytes, which is the output hash itself.
pub fn entry_digest_06(output_hash: &Hash32) -> Hash32 {
    *output_hash
}

/// Merkle root over workflow step receipt ids (Section 8): leaf = SHA-256(UTF-8 id),
/// node = SHA-256(left || right), an odd level repeats its last digest, empty = SHA-256("").
pub fn merkle_root<'a, I: IntoIterator<Item = &'a str>>(ids: I) -> Hash32 {
    let mut level: Vec<Hash32> = ids.into_iter().map(|id| sha256(id.as_bytes())).collect();
    if level.is_empty() {
        return sha256(b"");
    }
    while level.len() > 1 {
        if level.len() % 2 == 1 {
            level.push(level[level.len() - 1]);
        }
        level = level
            .chunks_exact(2)
            .map(|pair| {
                let mut h = Sha256::new();
                h.update(pair[0]);
                h.update(pair[1]);
                h.finalize().into()
            })
            .collect();
    }
    level[0]
}

#[cfg(test)]
mod tests {
    use super::Revision;

    /// Each construction this code implements has a revision in the revisions table, and that
    /// revision parses back to it.
    #[test]
    fn every_construction_names_a_revision_of_the_table() {
        for r in [Revision::R09, Revision::R06] {
            assert_eq!(Revision::parse(r.as_str()), Some(r));
            assert_eq!(Revision::for_construction(r.construction()), Some(r));
        }
    }
}
