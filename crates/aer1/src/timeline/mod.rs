//! Streaming verification of a job timeline (Section 7).
//!
//! Entries are read one at a time from any reader ([`crate::json::split`]); the checker keeps only
//! what the next entry needs (the previous digest, the first job id, close state), so memory does
//! not grow with the number of entries. Every failure is reported with its rule, entry and member,
//! not just the first; stored links are never trusted, every digest is recomputed.
//!
//! Two things make this fast without changing any report. Most entries are plain flat objects:
//! the splitter reads those with the flat reader while it finds where they end (one scan, no
//! tree), and the `fast` module runs, on the members found, every check that does not depend on
//! other entries, declining (so that the strict reader reads the entry and reports) whenever
//! anything would be reported or anything is unusual. And the `parallel` module runs that fast
//! path on worker threads, batch by batch, while the checks that depend on order run on the
//! caller's thread in entry order. `strict_only` turns both off; the tests compare the two.

mod error;
mod fast;
mod parallel;
mod seq;

use std::borrow::Cow;
use std::io::{self, Read};

pub use error::TimelineError;
pub use seq::{seq_digits, NotInteger};

use crate::commitment::{Commitment, CommitmentError};
use crate::digest::{
    entry_digest_06, sha256_in_place, write_preimage, Hash32, PreimageFields, Revision,
    GENESIS_PREV_DIGEST,
};
use crate::finding::{Finding, Findings, Verdict};
use crate::formats::{decode_and_hash, provenance_class};
use crate::hex;
use crate::json::flat::FlatShape;
use crate::json::split::{ArraySplitter, Piece, SplitError};
use crate::json::{self, JsonError, Node, Object};
use crate::report::{TimelineReport, TruncationEvidence};
use crate::text::clip;

/// Default cap on kept findings; the rest are counted in `failures_omitted`.
pub const DEFAULT_MAX_FAILURES: usize = 10_000;
/// Default limit on one entry's size in bytes.
pub const DEFAULT_MAX_ENTRY_BYTES: usize = 64 * 1024 * 1024;
/// Default limit on a document read whole (a non-array top-level value, a receipt, ...).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;

/// How to verify a timeline.
#[derive(Clone, Debug)]
pub struct TimelineOptions {
    pub revision: Revision,
    /// A well-formed commitment to check the chain against (revision 09 only).
    pub commitment: Option<Commitment>,
    /// Findings from reading the commitment file, reported with the chain's.
    pub commitment_findings: Vec<Finding>,
    pub max_failures: usize,
    pub max_entry_bytes: usize,
    /// Value-count and string-length limits for each entry.
    pub json_limits: json::Limits,
    /// Threads that verify, the caller's included: 0 (the default) for one per available core,
    /// 1 for the caller's alone, n for the caller's and n - 1 workers that digest entries. The
    /// report is the same whatever the number.
    pub threads: usize,
    /// Testing aid: read every entry with the strict reader, on the caller's thread, as before
    /// the fast path existed. The tests hold the two paths' reports equal.
    #[doc(hidden)]
    pub strict_only: bool,
    /// Testing aid: entries per batch handed to a digesting thread (0 for the default), so that
    /// tests can make batch boundaries fall anywhere.
    #[doc(hidden)]
    pub batch_entries: usize,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        TimelineOptions {
            revision: Revision::R09,
            commitment: None,
            commitment_findings: Vec::new(),
            max_failures: DEFAULT_MAX_FAILURES,
            max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
            json_limits: json::Limits::DEFAULT,
            threads: 0,
            strict_only: false,
            batch_entries: 0,
        }
    }
}

/// What the checker knows about one entry once it has been read, handed to an observer (the
/// `digest` command prints these).
#[derive(Debug)]
pub struct EntryDigest<'a> {
    pub index: u64,
    /// The entry digest under the chosen revision, when the entry could be digested.
    pub digest: Option<Hash32>,
    /// The revision-09 preimage bytes, when computed.
    pub preimage: Option<&'a [u8]>,
}

/// Verifies a timeline read from `reader`. `Err` only for I/O failures of the reader itself;
/// everything about the content is in the report.
///
/// Unless `options.threads` is 1 (or only one core is available), entries are read in batches and
/// their digests computed on worker threads, a few batches at a time, while every check that
/// depends on order runs on the caller's thread in entry order: the report is identical to the
/// one-thread report for every input.
pub fn verify_timeline<R: Read>(
    reader: R,
    options: &TimelineOptions,
) -> io::Result<TimelineReport> {
    check_options(options)?;
    let workers = parallel::worker_count(options);
    if options.strict_only || workers == 0 {
        return verify_timeline_observed(reader, options, &mut |_| {});
    }
    let mut chain = Chain::new(options);
    let splitter = ArraySplitter::new(reader, options.max_entry_bytes);
    std::thread::scope(|scope| {
        let mut sink = parallel::Batches::new(scope, options, workers);
        read_entries(splitter, &mut chain, &mut sink)
    })?;
    Ok(chain.finish())
}

/// The strict reader on every entry, on the caller's thread: the reference the fast and parallel
/// paths are tested against (`verify_timeline` with [`TimelineOptions::strict_only`]).
#[doc(hidden)]
pub fn verify_timeline_strict_only<R: Read>(
    reader: R,
    options: &TimelineOptions,
) -> io::Result<TimelineReport> {
    let options = TimelineOptions {
        strict_only: true,
        ..options.clone()
    };
    verify_timeline(reader, &options)
}

/// Whether the fast path handles `entry` as the entry at `index` (a testing aid: the tests show
/// it is taken at all, so that their comparisons with the strict path are not vacuous).
#[doc(hidden)]
pub fn entry_takes_fast_path(entry: &[u8], index: u64, options: &TimelineOptions) -> bool {
    let mut scratch = fast::Scratch::default();
    fast::prepare_bytes(
        entry,
        index,
        options.revision,
        &options.json_limits,
        &mut scratch,
    )
    .is_some()
}

/// A commitment under the historical construction is refused (`InvalidInput`).
fn check_options(options: &TimelineOptions) -> io::Result<()> {
    if options.revision != Revision::R09 && options.commitment.is_some() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an external commitment can only be checked under the current construction",
        ));
    }
    Ok(())
}

/// As [`verify_timeline`], calling `observe` once per entry in order. Runs on the caller's
/// thread only (the observer sees each entry's preimage, which lives in this thread's buffer).
///
/// A commitment under the historical construction is refused (`InvalidInput`): the commitment
/// artifact is a revision-09 construct over current-construction digests, and comparing it with a
/// revision-06 digest would let a historical chain look committed under the current construction.
pub fn verify_timeline_observed<R: Read>(
    reader: R,
    options: &TimelineOptions,
    observe: &mut dyn FnMut(&EntryDigest<'_>),
) -> io::Result<TimelineReport> {
    check_options(options)?;
    let mut chain = Chain::new(options);
    let splitter = ArraySplitter::new(reader, options.max_entry_bytes);
    read_entries(splitter, &mut chain, &mut InOrder { observe })?;
    Ok(chain.finish())
}

/// Where the entries the splitter finds go: checked at once, or batched for worker threads.
trait EntrySink {
    /// One entry, the next in order, with the places of the members the fast path reads when
    /// the flat reader read it.
    fn entry(
        &mut self,
        chain: &mut Chain<'_>,
        bytes: &[u8],
        offset: u64,
        picked: Option<&fast::Picked>,
    );
    /// Every entry handed over so far must be checked before this returns.
    fn flush(&mut self, chain: &mut Chain<'_>);
}

/// Checks each entry as it arrives, on this thread, trying the fast path first (unless
/// `strict_only`), and shows it to the observer.
struct InOrder<'f> {
    observe: &'f mut dyn FnMut(&EntryDigest<'_>),
}

impl EntrySink for InOrder<'_> {
    fn entry(
        &mut self,
        chain: &mut Chain<'_>,
        bytes: &[u8],
        offset: u64,
        picked: Option<&fast::Picked>,
    ) {
        chain.entry_here(bytes, offset, picked, Some(&mut *self.observe));
    }

    fn flush(&mut self, _chain: &mut Chain<'_>) {}
}

/// Reads the array's entries into `sink` and records how the reading ended. `Err` only for I/O
/// failures of the reader.
///
/// Unless `strict_only`, the splitter reads each entry that is a flat object with the flat reader
/// as it finds the entry's end (one scan), and hands on where its members lie.
fn read_entries<R: Read>(
    mut splitter: ArraySplitter<R>,
    chain: &mut Chain<'_>,
    sink: &mut dyn EntrySink,
) -> io::Result<()> {
    let (flat, limits) = (!chain.options.strict_only, chain.options.json_limits);
    let mut shape = FlatShape::default();
    let mut picker = fast::Picker::default();
    loop {
        let piece = if flat {
            splitter.next_piece_flat(&limits, &mut shape)
        } else {
            splitter.next_piece().map(|piece| (piece, false))
        };
        if !matches!(piece, Ok((Piece::Element { .. }, _))) {
            // Whatever ends the reading is reported after every entry before it.
            sink.flush(chain);
        }
        match piece {
            Ok((Piece::Element { bytes, offset }, read)) => {
                let picked = read.then(|| picker.pick(&shape, bytes));
                sink.entry(chain, bytes, offset, picked.as_ref());
            }
            Ok((Piece::End, _)) => break,
            Err(SplitError::Io(e)) => return Err(e),
            Err(SplitError::Empty) => {
                chain.fatal(TimelineError::Json(JsonError::Empty), None);
                break;
            }
            Err(SplitError::NotArray { .. }) => {
                let error = read_non_array(splitter)?;
                chain.fatal(error, None);
                break;
            }
            Err(SplitError::Syntax {
                offset,
                detail,
                in_element,
            }) => {
                let entry = in_element.then_some(chain.count);
                let detail = format!("{detail} (byte offset {offset})");
                chain.fatal(TimelineError::Json(JsonError::Syntax { detail }), entry);
                break;
            }
            Err(SplitError::ElementTooLarge { limit, .. }) => {
                let entry = Some(chain.count);
                chain.fatal(
                    TimelineError::Json(JsonError::TooLarge {
                        limit: limit as u64,
                    }),
                    entry,
                );
                break;
            }
        }
    }
    Ok(())
}

/// The document is not an array: read it whole (up to a limit) to say whether it is malformed
/// JSON or well-formed JSON of the wrong type.
fn read_non_array<R: Read>(splitter: ArraySplitter<R>) -> io::Result<TimelineError> {
    let skipped = splitter.offset();
    let (head, rest) = splitter.into_rest();
    let bytes = match json::read_limited(head.as_slice().chain(rest), DEFAULT_MAX_DOCUMENT_BYTES)? {
        Ok(bytes) => bytes,
        Err(_too_large) => {
            return Ok(TimelineError::NotArray {
                found: "a value that is not an array (too large to read whole)",
            })
        }
    };
    let text = match json::as_text(&bytes) {
        Ok(t) => t,
        // Offsets count from the start of the input, including the whitespace already skipped.
        Err(JsonError::NotUtf8 { offset }) => {
            return Ok(TimelineError::Json(JsonError::NotUtf8 {
                offset: offset + skipped,
            }))
        }
        Err(e) => return Ok(TimelineError::Json(e)),
    };
    Ok(match json::parse(text, &[]) {
        Ok(parsed) => TimelineError::NotArray {
            found: parsed.root.kind(),
        },
        Err(e) => TimelineError::Json(e),
    })
}

/// The note on a current-construction check of a chain that fails 09 but passes every revision-06 check.
pub const NOTE_VERIFIES_UNDER_06: &str = "this chain does not verify under the current \
    construction (revision 07 and later), but it \
    passes every revision-06 check (links over the bytes alone): it looks like a historical \
    revision-06 chain. Check it with --revision 06 for a result labelled historical; a revision-06 \
    result does not bind tool, provenance, id, job, seq or close.";

/// The note on every revision-06 result: what 06 does not protect.
pub const NOTE_HISTORICAL_06: &str = "historical revision-06 result: the revision-06 digest binds \
    only canonical_bytes, so a verified 06 chain says nothing about its entries' tool, provenance, \
    id, job, seq or where close sits; those may have been changed without breaking a link. New \
    timelines use the current construction (revision 07 and later).";

/// Whether one entry passes the revision-06 checks, judged from what the 09 check already read:
/// prev_digest a string and linking over the bytes alone (genesis on the first entry), the bytes
/// strict base64, close a boolean or absent.
fn holds_under_06(
    index: u64,
    prev_digest: Option<&str>,
    bytes_decoded: bool,
    close: Option<bool>,
    previous: Option<&Previous>,
) -> bool {
    let link_ok = match (index, prev_digest) {
        (_, None) => false,
        (0, Some(p)) => p == GENESIS_PREV_DIGEST,
        (_, Some(p)) => previous
            .and_then(|prev| prev.digest_06)
            .is_some_and(|d| hex::eq_lower(p, &d)),
    };
    link_ok && bytes_decoded && close.is_some()
}

/// What the next entry needs to know about the one before it.
#[derive(Clone, Copy, Debug)]
struct Previous {
    /// Digest under the chosen revision.
    digest: Option<Hash32>,
    /// Revision-06 digest (the output hash), to notice a historical chain checked as current.
    digest_06: Option<Hash32>,
    /// Whether the entry carried `close: true`; `None` when the entry could not be read.
    close: Option<bool>,
}

/// State carried across entries.
struct Chain<'o> {
    options: &'o TimelineOptions,
    findings: Findings,
    count: u64,
    previous: Option<Previous>,
    first_job: Option<String>,
    /// The array could not be read to its end: end-of-chain rules are not judged.
    incomplete: bool,
    /// Checking under 09: every entry so far also passes the revision-06 checks (the bytes'
    /// base64, genesis, links over the bytes alone, close a boolean), so a chain that fails 09 can
    /// be told to be a historical chain that verifies under 06.
    verifies_under_06: bool,
    /// Entries whose job differs from the commitment's: first index, its job, and how many.
    commitment_job_mismatch: Option<(u64, String, u64)>,
    last_digest: Option<Hash32>,
    /// Buffers for entries checked on this thread (fast or strict path).
    scratch: fast::Scratch,
}

/// The members of one entry that are well-formed, pulled out for checking.
struct Members<'e> {
    canonical_bytes: Option<&'e str>,
    prev_digest: Option<&'e str>,
    job_id: Option<&'e str>,
    id: Option<&'e str>,
    tool: Option<&'e str>,
    provenance_class: Option<&'e str>,
}

impl<'o> Chain<'o> {
    fn new(options: &'o TimelineOptions) -> Self {
        let mut findings = Findings::new(options.max_failures);
        for f in &options.commitment_findings {
            findings.push(f.clone());
        }
        Chain {
            options,
            findings,
            count: 0,
            previous: None,
            first_job: None,
            incomplete: false,
            verifies_under_06: true,
            commitment_job_mismatch: None,
            last_digest: None,
            scratch: fast::Scratch::default(),
        }
    }

    /// Checks the next entry entirely on this thread: the fast path first when the flat reader
    /// read it (`picked`; never with `strict_only`), then [`Self::entry`].
    fn entry_here(
        &mut self,
        bytes: &[u8],
        offset: u64,
        picked: Option<&fast::Picked>,
        observe: Option<&mut dyn FnMut(&EntryDigest<'_>)>,
    ) {
        let prepared = match picked {
            Some(picked) if !self.options.strict_only => {
                let revision = self.options.revision;
                fast::prepare(bytes, picked, self.count, revision, &mut self.scratch)
            }
            _ => None,
        };
        self.entry(bytes, offset, prepared.as_ref(), observe);
    }

    fn report(&mut self, error: TimelineError, entry: u64) {
        self.findings.report(&error, Some(entry));
    }

    fn fatal(&mut self, error: TimelineError, entry: Option<u64>) {
        self.findings.report(&error, entry);
        self.incomplete = true;
    }

    /// Checks the next entry. `prepared` is its fast-path result, when it had one; the preimage
    /// shown to `observe` is this thread's, so entries prepared elsewhere must not be observed.
    fn entry(
        &mut self,
        bytes: &[u8],
        offset: u64,
        prepared: Option<&fast::Prepared>,
        observe: Option<&mut dyn FnMut(&EntryDigest<'_>)>,
    ) {
        let index = self.count;
        self.count += 1;
        // An entry following one that carried close: true proves that one was not the last.
        // Revision 06 has no close-position rule: a middle close: true is no 06 failure.
        if let Some(Previous {
            close: Some(true), ..
        }) = self.previous
        {
            if self.options.revision == Revision::R09 {
                self.report(TimelineError::CloseBeforeLast, index - 1);
            }
        }
        let previous = self.previous.take();
        let current = match prepared.and_then(|p| self.apply(p, bytes, index, previous.as_ref())) {
            Some(current) => current,
            None => self.check_entry(bytes, offset, index, previous.as_ref()),
        };
        self.last_digest = current.digest;
        if let Some(observe) = observe {
            observe(&EntryDigest {
                index,
                digest: current.digest,
                preimage: match (self.options.revision, current.digest) {
                    (Revision::R09, Some(_)) => Some(&self.scratch.preimage),
                    _ => None,
                },
            });
        }
        self.previous = Some(current);
    }

    /// The checks that depend on the entries before, for an entry the fast path passed: what
    /// `check_object_09`/`check_object_06` would still report on it, in the same order (job, then
    /// the link). `None`, having reported nothing, when `prepared` is not for this entry.
    fn apply(
        &mut self,
        prepared: &fast::Prepared,
        bytes: &[u8],
        index: u64,
        previous: Option<&Previous>,
    ) -> Option<Previous> {
        if prepared.index != index {
            return None;
        }
        let close = prepared.close;
        let current = Previous {
            digest: Some(prepared.digest),
            digest_06: Some(prepared.digest_06),
            close: Some(close),
        };
        if self.nothing_to_report(prepared, index, previous) {
            return Some(current);
        }
        // Something may be reported: the same checks as the strict path, on the members' text.
        let prev_digest = fast::text_at(bytes, prepared.prev_digest)?;
        let job_id = match prepared.job_id {
            Some(span) => Some(fast::text_at(bytes, span)?),
            None => None,
        };
        match self.options.revision {
            Revision::R09 => {
                self.check_job(job_id, index);
                self.check_link(prev_digest, index, previous);
                if !holds_under_06(index, Some(prev_digest), true, Some(close), previous) {
                    self.verifies_under_06 = false;
                }
            }
            Revision::R06 => self.check_link(prev_digest, index, previous),
        }
        Some(current)
    }

    /// Whether `apply`'s checks would neither report nor change anything, decided on what the
    /// fast path computed (the common case, so that it costs a few comparisons and no read of
    /// the entry's bytes): the job is the first job and the commitment's, the link holds (or is
    /// unjudged), and under 09 the chain is already known not to pass as a revision-06 chain.
    fn nothing_to_report(
        &self,
        prepared: &fast::Prepared,
        index: u64,
        previous: Option<&Previous>,
    ) -> bool {
        // `check_link`: genesis is 64 zeros; a later link is unjudged when the previous digest is
        // unknown.
        let link_holds = match index {
            0 => prepared.prev_digest_value == Some([0; 32]),
            _ => previous
                .and_then(|p| p.digest)
                .is_none_or(|d| prepared.prev_digest_value == Some(d)),
        };
        match (self.options.revision, prepared.job_id_copy.get()) {
            (Revision::R06, _) => link_holds,
            (Revision::R09, Some(job)) => {
                let first = self.first_job.as_deref().map(str::as_bytes);
                let committed = self
                    .options
                    .commitment
                    .as_ref()
                    .map(|c| c.job_id.as_bytes());
                link_holds
                    && !self.verifies_under_06
                    && first == Some(job)
                    && committed.is_none_or(|c| c == job)
            }
            (Revision::R09, None) => false,
        }
    }

    fn check_entry(
        &mut self,
        bytes: &[u8],
        offset: u64,
        index: u64,
        previous: Option<&Previous>,
    ) -> Previous {
        let unknown = Previous {
            digest: None,
            digest_06: None,
            close: None,
        };
        let text = match json::as_text(bytes) {
            Ok(text) => text,
            Err(JsonError::NotUtf8 { offset: at }) => {
                let e = JsonError::NotUtf8 {
                    offset: offset + at,
                };
                self.report(TimelineError::Json(e), index);
                self.verifies_under_06 = false;
                return unknown;
            }
            Err(e) => {
                self.report(TimelineError::Json(e), index);
                self.verifies_under_06 = false;
                return unknown;
            }
        };
        // Entries sit inside the timeline array: one level of the nesting budget is used.
        let parsed = match json::parse_limited(text, &["seq"], 1, &self.options.json_limits) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.report(TimelineError::Json(e), index);
                self.verifies_under_06 = false;
                return unknown;
            }
        };
        // AER1-JSON-DUPLICATE applies to revision 06 as well.
        if !parsed.duplicates.is_empty() {
            self.verifies_under_06 = false;
        }
        for duplicate in parsed.duplicates {
            self.report(TimelineError::Json(duplicate), index);
        }
        let Node::Object(entry) = &parsed.root else {
            self.report(
                TimelineError::EntryNotObject {
                    found: parsed.root.kind(),
                },
                index,
            );
            self.verifies_under_06 = false;
            return unknown;
        };
        self.check_object(entry, index, previous)
    }

    /// The member as a string. `canonical_bytes` and `prev_digest` may be empty (the empty
    /// string is valid base64 of no bytes, and an empty prev_digest is judged by the genesis and
    /// link rules); the draft requires the other members to be non-empty.
    fn string_member<'e>(
        &mut self,
        entry: &'e Object<'_>,
        member: &'static str,
        index: u64,
    ) -> Option<&'e str> {
        let may_be_empty = matches!(member, "canonical_bytes" | "prev_digest");
        match entry.get(member) {
            None => self.report(TimelineError::MissingMember { member }, index),
            Some(Node::String(s)) if s.is_empty() && !may_be_empty => {
                self.report(TimelineError::EmptyMember { member }, index)
            }
            Some(Node::String(s)) => return Some(s),
            Some(other) => self.report(
                TimelineError::MemberNotString {
                    member,
                    found: other.kind(),
                },
                index,
            ),
        }
        None
    }

    fn check_object(
        &mut self,
        entry: &Object<'_>,
        index: u64,
        previous: Option<&Previous>,
    ) -> Previous {
        match self.options.revision {
            Revision::R06 => self.check_object_06(entry, index, previous),
            Revision::R09 => self.check_object_09(entry, index, previous),
        }
    }

    /// Revision 06 as its text stands, and no more: canonical_bytes strict base64, genesis, links
    /// over the bytes alone, close a boolean where present (the last entry's close is judged in
    /// `finish`). No member other than canonical_bytes and prev_digest is required, and seq, job,
    /// tool, provenance and the position of close are not judged: that 06 cannot see changes to
    /// them is the weakness revision 07 fixed, shown by the revision06 vectors, never hidden by
    /// rules 06 did not have.
    ///
    /// Keep in step with `fast::prepare_06` / `fast::prepare_09`: the fast path declines an entry
    /// whenever a check here would report anything, by running the same checks on the values it
    /// read. A rule added here and not there would be skipped for every plain entry; only the
    /// proptests of `tests/fast_path.rs` would notice.
    fn check_object_06(
        &mut self,
        entry: &Object<'_>,
        index: u64,
        previous: Option<&Previous>,
    ) -> Previous {
        let digest = match entry.get("canonical_bytes") {
            Some(Node::String(b64)) => self.check_bytes(b64, index, false),
            other => {
                let found = other.map_or("no canonical_bytes member", Node::kind);
                self.report(TimelineError::BytesNotBase64String { found }, index);
                None
            }
        }
        .as_ref()
        .map(entry_digest_06);
        let close = self.check_close(entry.get("close"), index, Revision::R06);
        match entry.get("prev_digest") {
            Some(Node::String(prev_digest)) => self.check_link(prev_digest, index, previous),
            other => {
                let found = other.map_or("no prev_digest member", Node::kind);
                if index == 0 {
                    self.report(TimelineError::GenesisNotString { found }, index);
                } else if previous.is_some_and(|p| p.digest.is_some()) {
                    // With the previous digest unknown the link is left unjudged, as in 09.
                    self.report(TimelineError::LinkNotString { found }, index);
                }
            }
        }
        Previous {
            digest,
            digest_06: digest,
            close: Some(close == Some(true)),
        }
    }

    /// Revisions 07-09: every member bound by the digest, the chain rules, and the revision-06
    /// checks alongside (for the note on historical chains).
    ///
    /// Keep in step with `fast::prepare_06` / `fast::prepare_09`: the fast path declines an entry
    /// whenever a check here would report anything, by running the same checks on the values it
    /// read. A rule added here and not there would be skipped for every plain entry; only the
    /// proptests of `tests/fast_path.rs` would notice.
    fn check_object_09(
        &mut self,
        entry: &Object<'_>,
        index: u64,
        previous: Option<&Previous>,
    ) -> Previous {
        let m = Members {
            canonical_bytes: self.string_member(entry, "canonical_bytes", index),
            prev_digest: self.string_member(entry, "prev_digest", index),
            job_id: self.string_member(entry, "job_id", index),
            id: self.string_member(entry, "id", index),
            tool: self.string_member(entry, "tool", index),
            provenance_class: self.string_member(entry, "provenance_class", index),
        };

        let output_hash = m
            .canonical_bytes
            .and_then(|b64| self.check_bytes(b64, index, true));
        if let (Some(hash), Some(stored)) = (&output_hash, entry.get("output_hash")) {
            self.check_stored_output_hash(stored, hash, index);
        }
        if let Some(class) = m.provenance_class {
            if provenance_class(class).is_none() {
                self.report(
                    TimelineError::ProvenanceClass {
                        value: clip(class, 80),
                    },
                    index,
                );
            }
        }

        let seq = self.check_seq(entry.get("seq"), index);
        self.check_job(m.job_id, index);
        let close = self.check_close(entry.get("close"), index, Revision::R09);

        // The digest needs every bound member well-formed; otherwise the next link is unjudged.
        let digest = match (
            m.id,
            m.job_id,
            &output_hash,
            m.prev_digest,
            m.provenance_class,
            &seq,
            m.tool,
            close,
        ) {
            (
                Some(id),
                Some(job_id),
                Some(output_hash),
                Some(prev_digest),
                Some(provenance_class),
                Some(seq),
                Some(tool),
                Some(close),
            ) => {
                write_preimage(
                    &mut self.scratch.preimage,
                    &PreimageFields {
                        close,
                        id,
                        job_id,
                        output_hash,
                        prev_digest,
                        provenance_class,
                        seq,
                        tool,
                    },
                );
                Some(sha256_in_place(&mut self.scratch.preimage))
            }
            _ => None,
        };

        if let Some(prev_digest) = m.prev_digest {
            self.check_link(prev_digest, index, previous);
        }
        let digest_06 = output_hash.as_ref().map(entry_digest_06);
        if !holds_under_06(index, m.prev_digest, digest_06.is_some(), close, previous) {
            self.verifies_under_06 = false;
        }
        Previous {
            digest,
            digest_06,
            // A close that is not a boolean is reported on its own rule; it is still not `true`.
            close: Some(close == Some(true)),
        }
    }

    /// `close` as a boolean (absent is false); `None` when it is not a boolean, reported on the
    /// rule of the construction checked (under 06 the type check is the kit's, not 06 text).
    fn check_close(
        &mut self,
        close: Option<&Node<'_>>,
        index: u64,
        revision: Revision,
    ) -> Option<bool> {
        match close {
            None => Some(false),
            Some(Node::Bool(b)) => Some(*b),
            Some(other) => {
                let found = other.kind();
                let error = match revision {
                    Revision::R06 => TimelineError::HistoricalCloseNotBoolean { found },
                    Revision::R09 => TimelineError::CloseNotBoolean { found },
                };
                self.report(error, index);
                None
            }
        }
    }

    /// Decodes `canonical_bytes` and returns the SHA-256 of the bytes. The decoded bytes' UTF-8
    /// (AER1-TL-UTF8, an interpretation for 07-09) is judged only when `check_utf8`.
    fn check_bytes(&mut self, b64: &str, index: u64, check_utf8: bool) -> Option<Hash32> {
        match decode_and_hash(b64, &mut self.scratch.bytes) {
            Err(error) => {
                self.report(TimelineError::Base64 { error }, index);
                None
            }
            Ok(decoded) => {
                if let (true, Some(offset)) = (check_utf8, decoded.not_utf8_at) {
                    self.report(TimelineError::BytesNotUtf8 { offset }, index);
                }
                Some(decoded.sha256)
            }
        }
    }

    fn check_stored_output_hash(&mut self, stored: &Node<'_>, hash: &Hash32, index: u64) {
        let ok = stored
            .as_str()
            .and_then(|s| s.strip_prefix("sha256:"))
            .is_some_and(|h| hex::eq_lower(h, hash));
        if !ok {
            let stored = match stored {
                Node::String(s) => format!("{:?}", clip(s, 80)),
                other => other.kind().to_string(),
            };
            self.report(
                TimelineError::StoredOutputHash {
                    stored,
                    computed: hex::lower(hash),
                },
                index,
            );
        }
    }

    fn check_seq<'e>(&mut self, seq: Option<&Node<'e>>, index: u64) -> Option<Cow<'e, str>> {
        let Some(node) = seq else {
            self.report(TimelineError::SeqMissing, index);
            return None;
        };
        match seq_digits(node) {
            Err(NotInteger { found }) => {
                self.report(TimelineError::SeqNotInteger { found }, index);
                None
            }
            Ok(digits) => {
                let expected = index + 1;
                // Integer literals carry no leading zeros, so equal values have equal digits.
                if digits.parse::<u64>() != Ok(expected) {
                    self.report(
                        TimelineError::SeqContiguity {
                            found: clip(&digits, 40),
                            expected,
                        },
                        index,
                    );
                }
                Some(digits)
            }
        }
    }

    fn check_job(&mut self, job_id: Option<&str>, index: u64) {
        let Some(job) = job_id else { return };
        match &self.first_job {
            // The first usable job_id is the reference, so an unusable one on entry 0 does not hide
            // a mix of jobs after it.
            None => self.first_job = Some(job.to_string()),
            Some(first) if first != job => {
                let e = TimelineError::MixedJob {
                    found: clip(job, 80),
                    first: clip(first, 80),
                };
                self.report(e, index);
            }
            _ => {}
        }
        if let Some(c) = &self.options.commitment {
            if c.job_id != job {
                match &mut self.commitment_job_mismatch {
                    None => self.commitment_job_mismatch = Some((index, clip(job, 80), 1)),
                    Some((_, _, n)) => *n += 1,
                }
            }
        }
    }

    fn check_link(&mut self, prev_digest: &str, index: u64, previous: Option<&Previous>) {
        if index == 0 {
            if prev_digest != GENESIS_PREV_DIGEST {
                self.report(
                    TimelineError::Genesis {
                        found: clip(prev_digest, 80),
                    },
                    index,
                );
            }
            return;
        }
        let Some(expected) = previous.and_then(|p| p.digest) else {
            return;
        };
        if !hex::eq_lower(prev_digest, &expected) {
            self.report(
                TimelineError::Link {
                    found: clip(prev_digest, 80),
                    expected: hex::lower(&expected),
                },
                index,
            );
        }
    }

    fn finish(mut self) -> TimelineReport {
        let revision = self.options.revision;
        let mut notes = Vec::new();
        if !self.incomplete {
            if self.count == 0 {
                self.findings.report(&TimelineError::Empty, None);
            } else if let Some(Previous {
                close: Some(false), ..
            }) = self.previous
            {
                self.report(TimelineError::LastNotClosed, self.count - 1);
            }
        }
        // Failures of the chain itself, before the commitment comparison adds its own.
        let chain_failures = self.findings.total() - self.options.commitment_findings.len() as u64;
        let commitment_ok = self.check_commitment();
        match revision {
            Revision::R09 if chain_failures > 0 && self.verifies_under_06_to_the_end() => {
                notes.push(NOTE_VERIFIES_UNDER_06.to_string())
            }
            Revision::R06 => notes.push(NOTE_HISTORICAL_06.to_string()),
            Revision::R09 => {}
        }
        let (failures, failures_omitted) = self.findings.into_parts();
        let verdict = crate::finding::verdict_of(&failures, failures_omitted);
        let truncation_evidence = if verdict == Verdict::Valid && commitment_ok {
            TruncationEvidence::CommitmentVerified
        } else {
            TruncationEvidence::None
        };
        TimelineReport {
            revision: revision.as_str().to_string(),
            historical: revision.is_historical(),
            verdict,
            entry_count: self.count,
            job_id: self.first_job,
            final_entry_digest: if self.incomplete {
                None
            } else {
                self.last_digest.map(|d| hex::lower(&d))
            },
            truncation_evidence,
            commitment: self.options.commitment.clone(),
            failures,
            failures_omitted,
            notes,
        }
    }

    /// Whether the whole chain, read to its end, passes every revision-06 check.
    fn verifies_under_06_to_the_end(&self) -> bool {
        self.verifies_under_06
            && !self.incomplete
            && self.count > 0
            && matches!(
                self.previous,
                Some(Previous {
                    close: Some(true),
                    ..
                })
            )
    }

    /// Compares the chain with the commitment; true when one was given and everything matched.
    fn check_commitment(&mut self) -> bool {
        let Some(c) = &self.options.commitment else {
            return false;
        };
        if self.incomplete {
            return false;
        }
        let mut errors = Vec::new();
        if c.entry_count != self.count.to_string() {
            errors.push(CommitmentError::CountMismatch {
                committed: clip(&c.entry_count, 40),
                actual: self.count,
            });
        }
        if let Some((first_entry, found, mismatching)) = self.commitment_job_mismatch.take() {
            errors.push(CommitmentError::JobMismatch {
                first_entry,
                mismatching,
                found,
                committed: clip(&c.job_id, 80),
            });
        }
        match &self.last_digest {
            Some(d) if hex::eq_lower(&c.final_entry_digest, d) => {}
            Some(d) => errors.push(CommitmentError::FinalMismatch {
                committed: c.final_entry_digest.clone(),
                computed: hex::lower(d),
            }),
            None => errors.push(CommitmentError::FinalUnavailable {
                last_entry: self.count.checked_sub(1),
            }),
        }
        let ok = errors.is_empty();
        for e in &errors {
            self.findings.report(e, None);
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::producer::{example_chain, timeline_json};

    /// Hands out `step` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Counts the entries handed over, and those the fast path passes.
    #[derive(Default)]
    struct Counting {
        entries: u64,
        passed: u64,
        scratch: fast::Scratch,
    }

    impl EntrySink for Counting {
        fn entry(
            &mut self,
            _chain: &mut Chain<'_>,
            bytes: &[u8],
            _offset: u64,
            picked: Option<&fast::Picked>,
        ) {
            let index = self.entries;
            self.entries += 1;
            let prepared = picked.and_then(|picked| {
                fast::prepare(bytes, picked, index, Revision::R09, &mut self.scratch)
            });
            self.passed += u64::from(prepared.is_some());
        }

        fn flush(&mut self, _chain: &mut Chain<'_>) {}
    }

    /// The comparisons with the strict path would hold vacuously if the splitter never handed
    /// the fast path an entry: every entry of a plain chain goes through it, whatever the read
    /// sizes (the chain is longer than the splitter's buffer, so entries also straddle refills).
    #[test]
    fn every_plain_entry_takes_the_fast_path_whatever_the_read_sizes() {
        let n = 300;
        let text = timeline_json(&example_chain("job-7a1f", n, Revision::R09)).into_bytes();
        assert!(text.len() > 64 * 1024);
        let options = TimelineOptions::default();
        for step in [1, 7, 100, 4096, text.len()] {
            let mut chain = Chain::new(&options);
            let reader = Trickle { data: &text, step };
            let splitter = ArraySplitter::new(reader, options.max_entry_bytes);
            let mut sink = Counting::default();
            read_entries(splitter, &mut chain, &mut sink).expect("reading a slice");
            assert_eq!((sink.entries, sink.passed), (n as u64, n as u64), "{step}");
        }
    }
}
