//! Entry digests: the revision 07-09 construction over an eight-member preimage, and the
//! historical revision-06 construction over the bytes alone.

use sha2::digest::generic_array::GenericArray;
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

/// SHA-256's initial hash value (FIPS 180-4, 5.3.3).
const SHA256_IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The padding's first 64 bytes at most (one to 64 are used): 0x80 and zeros.
const PADDING: [u8; 64] = {
    let mut pad = [0u8; 64];
    pad[0] = 0x80;
    pad
};

/// The SHA-256 of `buf`'s bytes, as [`sha256`], hashed where they lie: the padding is appended
/// to `buf` and the blocks are compressed straight from it, then `buf` is cut back to its bytes
/// (its contents are unchanged; its capacity may grow by a block once). The per-entry hashes of
/// a timeline (each entry's preimage and decoded bytes, a few blocks each) are built in reused
/// buffers anyway: this spares the general hasher's copy of every message into its own block
/// buffer, its zeroing and its bookkeeping, which cost a tenth of the hashing itself.
pub fn sha256_in_place(buf: &mut Vec<u8>) -> Hash32 {
    let len = buf.len();
    // The message length in bits, modulo 2^64 as the standard says.
    let bits = (len as u64).wrapping_mul(8);
    // 0x80, zeros up to 8 bytes short of a whole number of blocks, then the length.
    let pad = 64 - (len + 8) % 64;
    buf.extend_from_slice(PADDING.get(..pad).unwrap_or(&PADDING));
    buf.extend_from_slice(&bits.to_be_bytes());
    let mut state = SHA256_IV;
    for block in buf.chunks_exact(64) {
        sha2::compress256(
            &mut state,
            std::slice::from_ref(GenericArray::from_slice(block)),
        );
    }
    buf.truncate(len);
    let mut out = [0u8; 32];
    for (four, word) in out.chunks_exact_mut(4).zip(state) {
        four.copy_from_slice(&word.to_be_bytes());
    }
    out
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
    sha256_in_place(scratch)
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
    use super::{sha256, sha256_in_place, Revision};

    /// Hashing in place gives the general hasher's digest at every length around block and
    /// padding boundaries (55, 56, 63, 64, ... bytes), and leaves the buffer as it was.
    #[test]
    fn hashing_in_place_matches_the_general_hasher_at_every_length() {
        let bytes: Vec<u8> = (0..600u32).map(|i| (i * 131 + 7) as u8).collect();
        let mut buf = Vec::new();
        for len in 0..bytes.len() {
            buf.clear();
            buf.extend_from_slice(&bytes[..len]);
            assert_eq!(sha256_in_place(&mut buf), sha256(&bytes[..len]), "{len}");
            assert_eq!(buf, &bytes[..len], "{len}");
        }
        // FIPS 180-2's "abc".
        let mut abc = b"abc".to_vec();
        assert_eq!(
            crate::hex::lower(&sha256_in_place(&mut abc)),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

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
