//! The AER-1 entry preimage, written by the judge itself (AER-1 revision 09, section 7; the
//! project's fact sheet, section 2.1), and the known ways of writing it wrongly.
//!
//! The harness does not link the reference, so it holds its own construction: a second,
//! independent writing of the one byte string every verifier and emitter must agree on. Its tests
//! are the draft kit's published digests. Its use is diagnosis: when an emitter's entry digest
//! (visible as the next entry's `prev_digest`) differs from the expected one, [`explain`] looks
//! for the construction that gives the emitter's digest from the same members, and says where its
//! preimage first departs from the draft's — the most useful message an emitter's author can get.

use sha2::{Digest, Sha256};

/// The members of one entry's preimage, as the entry gives them (`output_hash` already computed
/// from the decoded bytes, as lowercase hex; `seq` as the integer's decimal text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fields<'a> {
    pub close: bool,
    pub id: &'a str,
    pub job_id: &'a str,
    pub output_hash: &'a str,
    pub prev_digest: &'a str,
    pub provenance_class: &'a str,
    pub seq: &'a str,
    pub tool: &'a str,
}

/// A way of writing the preimage: the draft's, or one of the mistakes emitters are known to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Construction {
    /// The draft's: sorted keys, no whitespace, `\"` `\\` `\b` `\t` `\n` `\f` `\r`, every other
    /// code point outside U+0020..U+007E as `\u` and four lowercase hex digits (surrogate pairs
    /// above the BMP), U+007F included (the kit's reading; the draft's text is silent on it).
    Draft,
    /// Non-ASCII characters written raw in UTF-8, as RFC 8785 (JCS) and most JSON writers do.
    RawUtf8,
    /// The draft's, but U+007F written raw (the text's reading, not the kit's).
    RawDel,
    /// The draft's, with upper-case hex digits in `\u` escapes.
    UppercaseHex,
    /// The draft's, with `", "` and `": "` between members (Python's default separators).
    Spaced,
    /// The draft's, with `output_hash` written `sha256:<hex>` as in a receipt.
    PrefixedOutputHash,
}

impl Construction {
    /// Every known wrong construction, in the order [`explain`] tries them.
    /// The narrower first: where only U+007F differs, raw DEL is the better name for it.
    pub(crate) const MISTAKES: [Construction; 5] = [
        Construction::RawDel,
        Construction::RawUtf8,
        Construction::UppercaseHex,
        Construction::Spaced,
        Construction::PrefixedOutputHash,
    ];

    /// What the construction does, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Construction::Draft => "the draft's construction",
            Construction::RawUtf8 => {
                "non-ASCII characters written raw in UTF-8 (RFC 8785 style) instead of \\u escapes"
            }
            Construction::RawDel => "U+007F written raw instead of \\u007f",
            Construction::UppercaseHex => "upper-case hex digits in \\u escapes",
            Construction::Spaced => "a space after each comma and colon",
            Construction::PrefixedOutputHash => "output_hash written with a sha256: prefix",
        }
    }
}

/// The preimage of `f` written under `c`.
pub(crate) fn preimage(f: &Fields<'_>, c: Construction) -> Vec<u8> {
    let (comma, colon) = if c == Construction::Spaced {
        (", ", ": ")
    } else {
        (",", ":")
    };
    let prefixed;
    let output_hash = if c == Construction::PrefixedOutputHash {
        prefixed = format!("sha256:{}", f.output_hash);
        prefixed.as_str()
    } else {
        f.output_hash
    };
    let mut out = Vec::with_capacity(256);
    out.push(b'{');
    let strings: [(&str, &str); 7] = [
        ("id", f.id),
        ("job_id", f.job_id),
        ("output_hash", output_hash),
        ("prev_digest", f.prev_digest),
        ("provenance_class", f.provenance_class),
        ("seq", f.seq),
        ("tool", f.tool),
    ];
    member(&mut out, "close", colon);
    out.extend_from_slice(if f.close { b"true" } else { b"false" });
    for (key, value) in strings {
        out.extend_from_slice(comma.as_bytes());
        member(&mut out, key, colon);
        if key == "seq" {
            out.extend_from_slice(value.as_bytes());
        } else {
            string(&mut out, value, c);
        }
    }
    out.push(b'}');
    out
}

fn member(out: &mut Vec<u8>, key: &str, colon: &str) {
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.push(b'"');
    out.extend_from_slice(colon.as_bytes());
}

/// A JSON string under `c`'s escaping.
fn string(out: &mut Vec<u8>, s: &str, c: Construction) {
    out.push(b'"');
    for ch in s.chars() {
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\r' => out.extend_from_slice(b"\\r"),
            ' '..='~' => out.push(ch as u8),
            '\u{7f}' if matches!(c, Construction::RawDel | Construction::RawUtf8) => out.push(0x7f),
            _ if c == Construction::RawUtf8 && ch > '\u{7f}' => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    let text = if c == Construction::UppercaseHex {
                        format!("\\u{unit:04X}")
                    } else {
                        format!("\\u{unit:04x}")
                    };
                    out.extend_from_slice(text.as_bytes());
                }
            }
        }
    }
    out.push(b'"');
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn digest_hex(bytes: &[u8]) -> String {
    agentconf_json::hex::lower(&Sha256::digest(bytes))
}

/// The first entry's `prev_digest`: 64 `0` characters.
pub(crate) const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Why an emitter's digest of an entry differs from the draft's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Explanation {
    /// The construction that gives the emitter's digest from the same members.
    pub construction: Construction,
    /// The first byte offset at which its preimage departs from the draft's.
    pub offset: usize,
    /// A few bytes of the draft's preimage from a little before that offset (as text, escaped).
    pub expected: String,
    /// The same stretch of the emitter's preimage.
    pub got: String,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the digest is that of the preimage with {}; it first departs from the draft's at \
             byte {}: expected …{}…, got …{}…",
            self.construction.describe(),
            self.offset,
            self.expected,
            self.got
        )
    }
}

/// The known wrong construction whose preimage of `f` digests to `digest` (lowercase hex), if
/// any, and where that preimage departs from the draft's. `None` when the digest is the draft's
/// or no known mistake explains it.
pub(crate) fn explain(f: &Fields<'_>, digest: &str) -> Option<Explanation> {
    let draft = preimage(f, Construction::Draft);
    if digest_hex(&draft) == digest {
        return None;
    }
    Construction::MISTAKES.into_iter().find_map(|c| {
        let theirs = preimage(f, c);
        if digest_hex(&theirs) != digest {
            return None;
        }
        let offset = draft
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(draft.len().min(theirs.len()));
        Some(Explanation {
            construction: c,
            offset,
            expected: excerpt(&draft, offset),
            got: excerpt(&theirs, offset),
        })
    })
}

/// Up to 8 bytes before `offset` and 16 from it, as escaped text.
fn excerpt(bytes: &[u8], offset: usize) -> String {
    let start = offset.saturating_sub(8);
    let end = (offset + 16).min(bytes.len());
    bytes
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .flat_map(|b| std::ascii::escape_default(*b))
        .map(char::from)
        .collect()
}

// The harness's preimage against every link of the committed corpus's valid timelines.
#[cfg(test)]
mod corpus_agrees;

#[cfg(test)]
mod tests {
    use super::*;

    /// The draft kit's published chain `v07-valid-5` (job `job-7a1f`): entry i's bytes are
    /// `{"job":"job-7a1f","entry":i,"tag":"r"}`; its digests d0..d4.
    const PUBLISHED: [&str; 5] = [
        "380d45c6575bdb648e5723adee5a049ff212574d4c6d5dd8ad4cabcc54b6aa56",
        "c225aa2256e7984575f5a664b690f2b06c86abddc528def6164fb1bbb0aa4cba",
        "4c56c96378cea5939ad61d082fff24d075649ca888b0c61308307d14034a204a",
        "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778",
        "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0",
    ];

    #[test]
    fn the_published_chain_digests_as_published() {
        let mut prev = GENESIS.to_string();
        for (i, want) in PUBLISHED.iter().enumerate() {
            let bytes = format!("{{\"job\":\"job-7a1f\",\"entry\":{i},\"tag\":\"r\"}}");
            let output_hash = digest_hex(bytes.as_bytes());
            let seq = (i + 1).to_string();
            let id = format!("r-job-7a1f-{i}");
            let f = Fields {
                close: i == 4,
                id: &id,
                job_id: "job-7a1f",
                output_hash: &output_hash,
                prev_digest: &prev,
                provenance_class: "LOGGED BY AGENT",
                seq: &seq,
                tool: "price_lookup",
            };
            let p = preimage(&f, Construction::Draft);
            if i == 0 {
                assert_eq!(
                    String::from_utf8(p.clone()).unwrap(),
                    "{\"close\":false,\"id\":\"r-job-7a1f-0\",\"job_id\":\"job-7a1f\",\"output_hash\":\
                     \"0b6bce531a75c95378d96b13e36ee5c2ba0e98c696506d2f3c9a75b565d7f705\",\
                     \"prev_digest\":\"0000000000000000000000000000000000000000000000000000000000000000\",\
                     \"provenance_class\":\"LOGGED BY AGENT\",\"seq\":1,\"tool\":\"price_lookup\"}"
                );
            }
            assert_eq!(digest_hex(&p), *want, "entry {i}");
            assert_eq!(explain(&f, want), None);
            prev = want.to_string();
        }
    }

    fn unicode_fields<'a>(tool: &'a str, hash: &'a str) -> Fields<'a> {
        Fields {
            close: true,
            id: "r-1",
            job_id: "job-é",
            output_hash: hash,
            prev_digest: GENESIS,
            provenance_class: "LOGGED BY AGENT",
            seq: "1",
            tool,
        }
    }

    #[test]
    fn escaping_follows_the_kit() {
        let hash = digest_hex(b"");
        let f = unicode_fields("t\u{7f}\u{1f600}\"\\\n\u{1}/", &hash);
        let text = String::from_utf8(preimage(&f, Construction::Draft)).unwrap();
        assert!(text.contains(r#""job_id":"job-\u00e9""#), "{text}");
        assert!(
            text.contains(r#""tool":"t\u007f\ud83d\ude00\"\\\n\u0001/""#),
            "{text}"
        );
    }

    /// Each known mistake is recognised from its digest alone, and the message points at the
    /// first byte where it departs.
    #[test]
    fn each_known_mistake_is_explained() {
        let hash = digest_hex(b"x");
        let f = unicode_fields("tool-\u{7f}", &hash);
        for c in Construction::MISTAKES {
            let theirs = digest_hex(&preimage(&f, c));
            let e = explain(&f, &theirs).unwrap_or_else(|| panic!("{c:?} not explained"));
            assert_eq!(e.construction, c);
            let draft = preimage(&f, Construction::Draft);
            assert_eq!(draft[..e.offset], preimage(&f, c)[..e.offset]);
            assert_ne!(draft.get(e.offset), preimage(&f, c).get(e.offset));
        }
        // A digest no known construction gives is not explained.
        assert_eq!(explain(&f, &digest_hex(b"unrelated")), None);
    }

    /// For ASCII-only members the raw-UTF-8 writing is the draft's: no false explanation.
    #[test]
    fn ascii_members_are_the_same_under_raw_utf8() {
        let hash = digest_hex(b"x");
        let f = Fields {
            job_id: "job-1",
            ..unicode_fields("tool", &hash)
        };
        assert_eq!(
            preimage(&f, Construction::Draft),
            preimage(&f, Construction::RawUtf8)
        );
    }
}
