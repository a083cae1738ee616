//! The fast path (flat single-pass reading of entries) and the parallel digests must never change
//! a report: on arbitrary bytes, arbitrary JSON and, above all, mutations of valid chains, the
//! report of `verify_timeline` (any threads, any batch size) and of `verify_timeline_observed`
//! (with what it observes) equals the strict sequential reader's, byte for byte as JSON.

use agentconf_aer1::commitment::make_commitment;
use agentconf_aer1::digest::Revision;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::hex;
use agentconf_aer1::json::Limits;
use agentconf_aer1::producer::{
    build_timeline, digest_entry, example_chain, timeline_json, CloseStyle, Entry, EntrySpec,
};
use agentconf_aer1::timeline::{
    entry_takes_fast_path, verify_timeline, verify_timeline_observed, verify_timeline_strict_only,
    TimelineOptions,
};
use agentconf_aer1::Verdict;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value};

const JOB: &str = "job-7a1f";

/// Hands out `step` bytes per read: where the splitter's reads end must not matter.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Every way of running the verifier, against the strict sequential one.
fn assert_all_paths_agree(input: &[u8], options: &TimelineOptions, threads: usize, batch: usize) {
    let strict = verify_timeline_strict_only(input, options).expect("reading a slice");
    let strict_json = serde_json::to_string(&strict).expect("serializes");

    // Entries split across reads (a step that varies with the input, to reach every position).
    let step = input.len() % 13 + 1;
    let trickled = verify_timeline(Trickle { data: input, step }, options).expect("reading");
    assert_eq!(
        serde_json::to_string(&trickled).expect("serializes"),
        strict_json,
        "reads of {step} bytes"
    );

    let one = TimelineOptions {
        threads: 1,
        ..options.clone()
    };
    let sequential = verify_timeline(input, &one).expect("reading a slice");
    assert_eq!(
        serde_json::to_string(&sequential).expect("serializes"),
        strict_json,
        "one thread"
    );

    let many = TimelineOptions {
        threads,
        batch_entries: batch,
        ..options.clone()
    };
    let parallel = verify_timeline(input, &many).expect("reading a slice");
    assert_eq!(
        serde_json::to_string(&parallel).expect("serializes"),
        strict_json,
        "{threads} threads, batches of {batch}"
    );

    let observed_strict = observe(
        input,
        &TimelineOptions {
            strict_only: true,
            ..options.clone()
        },
    );
    let observed_fast = observe(input, options);
    assert_eq!(observed_fast, observed_strict, "observations");
    assert_eq!(observed_fast.1, strict_json, "observed report");
}

/// Every observation (index, digest, preimage) and the report, from `verify_timeline_observed`.
type Observations = (Vec<(u64, Option<[u8; 32]>, Option<Vec<u8>>)>, String);

fn observe(input: &[u8], options: &TimelineOptions) -> Observations {
    let mut seen = Vec::new();
    let report = verify_timeline_observed(input, options, &mut |e| {
        seen.push((e.index, e.digest, e.preimage.map(<[u8]>::to_vec)))
    })
    .expect("reading a slice");
    (seen, serde_json::to_string(&report).expect("serializes"))
}

// ------------------------------------------------------------------------------------------------
// Valid chains and their mutations

/// Specs with the members a real chain varies: non-ASCII and escaped text, DEL, tabs.
fn spec(i: usize, flavour: u8) -> EntrySpec {
    let (tool, class) = match flavour % 6 {
        0 => ("price_lookup", "LOGGED BY AGENT"),
        1 => ("outil-é", "EXECUTED BY ZAMBO"),
        2 => ("tab\there", "LOGGED BY AGENT"),
        3 => ("del\u{7f}", "NOT A CLASS"),
        4 => ("quote\"d", "LOGGED BY AGENT"),
        _ => ("😀", "LOGGED BY AGENT"),
    };
    let bytes = match flavour % 4 {
        0 => format!("{{\"job\":\"{JOB}\",\"entry\":{i}}}").into_bytes(),
        1 => "é".repeat(i + 1).into_bytes(),
        2 => vec![0xff, 0xfe, i as u8],
        _ => Vec::new(),
    };
    EntrySpec {
        bytes,
        id: format!("r-{JOB}-{i}"),
        tool: tool.to_string(),
        provenance_class: class.to_string(),
    }
}

/// A chain as JSON values, so members can be added (output_hash, unknown ones).
fn chain(n: usize, flavours: &[u8], revision: Revision, style: CloseStyle) -> Vec<Entry> {
    let specs: Vec<EntrySpec> = (0..n)
        .map(|i| spec(i, flavours.get(i).copied().unwrap_or(0)))
        .collect();
    build_timeline(JOB, &specs, revision, style)
}

fn with_output_hash(entries: &[Entry]) -> String {
    let mut out = String::from("[");
    for (i, e) in entries.iter().enumerate() {
        let mut v = serde_json::to_value(e).expect("an entry serializes");
        let mut decoded = Vec::new();
        let _ = agentconf_aer1::formats::decode_base64_into(&e.canonical_bytes, &mut decoded);
        let hash = hex::lower(&agentconf_aer1::digest::sha256(&decoded));
        if let Some(o) = v.as_object_mut() {
            o.insert("output_hash".into(), Value::from(format!("sha256:{hash}")));
        }
        if i > 0 {
            out.push(',');
        }
        out.push_str(&v.to_string());
    }
    out.push(']');
    out
}

/// Text that breaks readers: escapes, odd numbers, nesting, duplicates, BOM, surrogates.
const SNIPPETS: &[&str] = &[
    r#""tool":"price_lookup","#,
    r#""seq":1,"#,
    r#""close":false,"#,
    r#""close":true,"#,
    r#""close":null,"#,
    r#""x":{"a":1,"a":2},"#,
    r#""x":{},"#,
    r#""x":[],"#,
    r#""output_hash":"sha256:00","#,
    r#""k":"\u0041","#,
    r#""k":"\ud800","#,
    r#""k\ud800":1,"#,
    r#""k":"\ud83d\ude00","#,
    r#""k":1.0,"#,
    r#""k":1e0,"#,
    r#""k":-0,"#,
    r#""k":-0.0,"#,
    r#""k":1e400,"#,
    r#""k":18446744073709551616,"#,
    r#""k":-9223372036854775809,"#,
    r#""k":123456789012345678,"#,
    r#""k":1234567890123456789,"#,
    r#""k":null,"#,
    r#""k":true,"#,
    r#""é":"ü","#,
    r#""":"","#,
    r#""job_id":"other","#,
    "\u{feff}",
    " ",
    "\t\n\r",
    "\\",
    "\"",
    ",",
    ":",
    "}",
    "]",
    "[",
    "{",
    "\u{7f}",
    "\u{1}",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\n",
    "\\/",
    "\\x",
];

/// Replacements for a `seq` value.
const SEQS: &[&str] = &[
    "1.0",
    "1e0",
    "1E0",
    "-0",
    "-0.0",
    "01",
    "2.0",
    "1.5",
    "\"1\"",
    "null",
    "true",
    "18446744073709551617",
    "99999999999999999999999",
    " 1 ",
    "-1",
    "0",
    "1e400",
    "[1]",
];

const BYTES: &[u8] = &[
    0x00, 0x1f, b' ', b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'1', b'9', b'a',
    b'A', b'.', b'e', b'-', b'+', b'/', b'=', 0x7f, 0x80, 0xc3, 0xed, 0xff,
];

#[derive(Clone, Debug)]
enum Edit {
    SetByte(Index, u8),
    Insert(Index, &'static str),
    /// After the chosen `{` (the start of an entry or an object inside one).
    AfterBrace(Index, &'static str),
    /// Before the chosen `}`.
    BeforeBrace(Index, &'static str),
    Delete(Index, usize),
    Truncate(Index),
    /// Replaces the chosen `seq` value.
    Seq(Index, &'static str),
    /// Escapes the chosen plain letter inside a string (same value, different text).
    EscapeLetter(Index),
    /// Repeats the chosen member (from a `"` after `{` or `,` to the next `,`) right after itself.
    Duplicate(Index),
    /// A string of `len` bytes as a new member (against small string limits).
    LongString(Index, usize),
    /// `depth` nested arrays as a new member (against the nesting budget).
    Nested(Index, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), prop::sample::select(BYTES)).prop_map(|(i, b)| Edit::SetByte(i, b)),
        2 => (any::<Index>(), prop::sample::select(SNIPPETS)).prop_map(|(i, s)| Edit::Insert(i, s)),
        3 => (any::<Index>(), prop::sample::select(SNIPPETS)).prop_map(|(i, s)| Edit::AfterBrace(i, s)),
        1 => (any::<Index>(), prop::sample::select(SNIPPETS)).prop_map(|(i, s)| Edit::BeforeBrace(i, s)),
        1 => (any::<Index>(), 1usize..8).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => any::<Index>().prop_map(Edit::Truncate),
        3 => (any::<Index>(), prop::sample::select(SEQS)).prop_map(|(i, s)| Edit::Seq(i, s)),
        2 => any::<Index>().prop_map(Edit::EscapeLetter),
        2 => any::<Index>().prop_map(Edit::Duplicate),
        1 => (any::<Index>(), prop::sample::select(&[0usize, 1, 15, 16, 17, 64, 65, 200][..]))
            .prop_map(|(i, n)| Edit::LongString(i, n)),
        1 => (any::<Index>(), prop::sample::select(&[1usize, 124, 125, 126, 127][..]))
            .prop_map(|(i, n)| Edit::Nested(i, n)),
    ]
}

/// Positions of `needle` in `text`.
fn positions(text: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() || text.len() < needle.len() {
        return Vec::new();
    }
    (0..=text.len() - needle.len())
        .filter(|&i| &text[i..i + needle.len()] == needle)
        .collect()
}

fn splice(text: &mut Vec<u8>, at: usize, remove: usize, insert: &[u8]) {
    let end = (at + remove).min(text.len());
    text.splice(at..end, insert.iter().copied());
}

fn apply(text: &mut Vec<u8>, edit: &Edit) {
    let len = text.len();
    match edit {
        Edit::SetByte(i, b) if len > 0 => text[i.index(len)] = *b,
        Edit::Insert(i, s) => splice(text, i.index(len + 1), 0, s.as_bytes()),
        Edit::AfterBrace(i, s) => {
            if let Some(&at) = pick(&positions(text, b"{"), i) {
                splice(text, at + 1, 0, s.as_bytes());
            }
        }
        Edit::BeforeBrace(i, s) => {
            if let Some(&at) = pick(&positions(text, b"}"), i) {
                let s = format!(",{}", s.trim_end_matches(','));
                splice(text, at, 0, s.as_bytes());
            }
        }
        Edit::Delete(i, n) if len > 0 => splice(text, i.index(len), *n, b""),
        Edit::Truncate(i) => text.truncate(i.index(len + 1)),
        Edit::Seq(i, s) => {
            if let Some(&at) = pick(&positions(text, b"\"seq\":"), i) {
                let start = at + 6;
                let digits = text[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                splice(text, start, digits, s.as_bytes());
            }
        }
        Edit::EscapeLetter(i) => {
            let letters: Vec<usize> = (0..len)
                .filter(|&k| text[k].is_ascii_alphabetic() && inside_string(text, k))
                .collect();
            if let Some(&at) = pick(&letters, i) {
                let escaped = format!("\\u{:04x}", text[at]);
                splice(text, at, 1, escaped.as_bytes());
            }
        }
        Edit::Duplicate(i) => {
            let mut starts = positions(text, b"{\"");
            starts.extend(positions(text, b",\""));
            starts.sort_unstable();
            if let Some(&at) = pick(&starts, i) {
                let from = at + 1;
                let to = text[from..]
                    .iter()
                    .position(|&b| b == b',' || b == b'}')
                    .map_or(text.len(), |k| from + k);
                let mut member = text[from..to].to_vec();
                member.push(b',');
                splice(text, from, 0, &member);
            }
        }
        Edit::LongString(i, n) => {
            if let Some(&at) = pick(&positions(text, b"{"), i) {
                let member = format!("\"long\":\"{}\",", "x".repeat(*n));
                splice(text, at + 1, 0, member.as_bytes());
            }
        }
        Edit::Nested(i, depth) => {
            if let Some(&at) = pick(&positions(text, b"{"), i) {
                let member = format!("\"deep\":{}{},", "[".repeat(*depth), "]".repeat(*depth));
                splice(text, at + 1, 0, member.as_bytes());
            }
        }
        _ => {}
    }
}

fn pick<'a>(items: &'a [usize], i: &Index) -> Option<&'a usize> {
    (!items.is_empty()).then(|| &items[i.index(items.len())])
}

/// Whether byte `k` sits inside a string literal (counting unescaped quotes before it).
fn inside_string(text: &[u8], k: usize) -> bool {
    let mut inside = false;
    let mut escaped = false;
    for &b in &text[..k] {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') if inside => escaped = true,
            (false, b'"') => inside = !inside,
            _ => {}
        }
    }
    inside
}

#[derive(Clone, Debug)]
struct Setup {
    revision: Revision,
    commitment: bool,
    max_failures: usize,
    limits: Limits,
    max_entry_bytes: usize,
    threads: usize,
    batch: usize,
}

fn setup() -> impl Strategy<Value = Setup> {
    let limits = (
        prop::sample::select(&[3usize, 9, 10, 11, 12, 1_000_000][..]),
        prop::sample::select(&[0usize, 15, 16, 56, 63, 64, 65, 16 * 1024 * 1024][..]),
    )
        .prop_map(|(max_values, max_string_bytes)| Limits {
            max_values,
            max_string_bytes,
        });
    (
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(&[1usize, 2, 5, 10_000][..]),
        prop_oneof![3 => Just(Limits::DEFAULT), 2 => limits],
        prop::sample::select(&[64 * 1024 * 1024, 250, 400][..]),
        2usize..6,
        1usize..6,
    )
        .prop_map(
            |(r06, commitment, max_failures, limits, max_entry_bytes, threads, batch)| Setup {
                revision: if r06 { Revision::R06 } else { Revision::R09 },
                commitment: commitment && !r06,
                max_failures,
                limits,
                max_entry_bytes,
                threads,
                batch,
            },
        )
}

fn options(setup: &Setup, entries: &[Entry]) -> TimelineOptions {
    let commitment = match (setup.commitment, entries.last()) {
        (true, Some(last)) => make_commitment(
            JOB,
            &hex::lower(&digest_entry(last, Revision::R09, &mut Vec::new())),
            entries.len() as u64,
            "2026-07-14T10:30:00Z",
        )
        .ok(),
        _ => None,
    };
    TimelineOptions {
        revision: setup.revision,
        commitment,
        max_failures: setup.max_failures,
        max_entry_bytes: setup.max_entry_bytes,
        json_limits: setup.limits,
        ..TimelineOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn mutated_chains_get_the_strict_report(
        n in 1usize..10,
        flavours in prop::collection::vec(any::<u8>(), 0..10),
        plain in prop::sample::select(&[true, true, false][..]),
        explicit_close in any::<bool>(),
        output_hash in any::<bool>(),
        edits in prop::collection::vec(edit(), 0..4),
        setup in setup(),
    ) {
        let flavours = if plain { Vec::new() } else { flavours };
        let style = if explicit_close { CloseStyle::Explicit } else { CloseStyle::LastOnly };
        // Chains linked under the revision checked, and sometimes under the other one.
        let built = if n % 3 == 0 { Revision::R06 } else { setup.revision };
        let entries = chain(n, &flavours, built, style);
        let mut text = if output_hash {
            with_output_hash(&entries).into_bytes()
        } else {
            timeline_json(&entries).into_bytes()
        };
        for e in &edits {
            apply(&mut text, e);
        }
        let options = options(&setup, &entries);
        assert_all_paths_agree(&text, &options, setup.threads, setup.batch);
    }

    #[test]
    fn arbitrary_bytes_get_the_strict_report(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        setup in setup(),
    ) {
        assert_all_paths_agree(&bytes, &options(&setup, &[]), setup.threads, setup.batch);
    }

    #[test]
    fn arbitrary_json_gets_the_strict_report(
        entries in prop::collection::vec(entry_like(), 0..8),
        setup in setup(),
    ) {
        let text = Value::Array(entries).to_string();
        assert_all_paths_agree(text.as_bytes(), &options(&setup, &[]), setup.threads, setup.batch);
    }
}

/// Objects with the timeline's member names and arbitrary values, and other JSON values.
fn entry_like() -> impl Strategy<Value = Value> {
    let names = prop::sample::select(
        &[
            "canonical_bytes",
            "prev_digest",
            "seq",
            "job_id",
            "id",
            "tool",
            "provenance_class",
            "close",
            "output_hash",
            "other",
        ][..],
    );
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..4).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[A-Za-z0-9+/=]{0,12}".prop_map(Value::from),
        "\\PC{0,6}".prop_map(Value::from),
        Just(Value::from("LOGGED BY AGENT")),
        Just(Value::from(agentconf_aer1::digest::GENESIS_PREV_DIGEST)),
    ];
    let value = leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    });
    prop_oneof![
        4 => prop::collection::btree_map(names, value.clone(), 0..10)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        1 => value,
    ]
}

// ------------------------------------------------------------------------------------------------
// The fast path is taken, and batch boundaries fall everywhere

#[test]
fn plain_entries_take_the_fast_path_and_unusual_ones_do_not() {
    let options = TimelineOptions::default();
    let entries = example_chain(JOB, 3, Revision::R09);
    for (i, e) in entries.iter().enumerate() {
        let text = serde_json::to_string(e).expect("serializes");
        assert!(
            entry_takes_fast_path(text.as_bytes(), i as u64, &options),
            "{text}"
        );
        // The same entry under the wrong index (seq not contiguous) is left to the strict path.
        assert!(!entry_takes_fast_path(
            text.as_bytes(),
            i as u64 + 1,
            &options
        ));
    }
    let plain = serde_json::to_string(&entries[0]).expect("serializes");
    let unusual = [
        plain.replace("price_lookup", "price_lookup\\u0041"),
        plain.replace("\"seq\":1", "\"seq\":1.0"),
        plain.replace("\"seq\":1", "\"seq\":1,\"seq\":1"),
        plain.replace("LOGGED BY AGENT", "LOGGED BY NOBODY?"),
        plain.replace("{", "{\"x\":{},"),
        plain.replace("\"job_id\":\"job-7a1f\"", "\"job_id\":\"\""),
        plain.replace("\"tool\":\"price_lookup\",", ""),
    ];
    for text in unusual {
        assert!(
            !entry_takes_fast_path(text.as_bytes(), 0, &options),
            "{text}"
        );
        // And the strict path finds exactly what it always found.
        assert_all_paths_agree(format!("[{text}]").as_bytes(), &options, 2, 1);
    }
    // Under revision 06 job, id, tool, provenance and seq are not judged.
    let r06 = TimelineOptions {
        revision: Revision::R06,
        ..TimelineOptions::default()
    };
    let loose = plain
        .replace("LOGGED BY AGENT", "anything")
        .replace("\"seq\":1", "\"seq\":7");
    assert!(entry_takes_fast_path(loose.as_bytes(), 0, &r06));
    assert!(!entry_takes_fast_path(loose.as_bytes(), 0, &options));
}

#[test]
fn every_batch_size_and_thread_count_gives_the_same_report() {
    let mut entries = example_chain(JOB, 23, Revision::R09);
    // A few entries the fast path declines, and a broken link, scattered across batches.
    entries[4].tool = "tab\there".into();
    entries[11].seq = 40;
    entries[17].prev_digest = "0".repeat(64);
    let text = timeline_json(&entries);
    let options = TimelineOptions {
        max_failures: 3,
        ..TimelineOptions::default()
    };
    let strict = verify_timeline_strict_only(text.as_bytes(), &options).expect("slice");
    assert_eq!(strict.verdict, Verdict::Invalid);
    // Threads count the caller's: 1 is the caller's alone, 2 to 5 are one to four workers.
    for threads in 1..6 {
        for batch in 1..25 {
            assert_all_paths_agree(text.as_bytes(), &options, threads, batch);
        }
    }
}

/// Entries over the batch byte budget are checked on the caller's thread, between batches.
#[test]
fn huge_entries_between_batches_keep_their_place() {
    let mut specs: Vec<EntrySpec> = (0..9).map(|i| spec(i, 0)).collect();
    specs[3].bytes = vec![b'a'; 200 * 1024];
    specs[6].bytes = vec![b'b'; 70 * 1024];
    let mut entries = build_timeline(JOB, &specs, Revision::R09, CloseStyle::LastOnly);
    entries[7].job_id = "other".into();
    let text = timeline_json(&entries);
    let options = TimelineOptions::default();
    for batch in [1, 2, 4] {
        assert_all_paths_agree(text.as_bytes(), &options, 2, batch);
    }
    let valid = timeline_json(&build_timeline(
        JOB,
        &specs,
        Revision::R09,
        CloseStyle::LastOnly,
    ));
    let report = verify_timeline(valid.as_bytes(), &options).expect("slice");
    assert_eq!(report.verdict, Verdict::Valid, "{:?}", report.failures);
    assert_eq!(report.entry_count, 9);
}

/// A long chain through the default batch size and thread count (several batches in flight).
#[test]
fn a_long_chain_verifies_the_same_in_parallel() {
    let entries = example_chain(JOB, 5000, Revision::R09);
    let text = timeline_json(&entries);
    let report = verify_timeline(text.as_bytes(), &TimelineOptions::default()).expect("slice");
    assert_eq!(report.verdict, Verdict::Valid);
    let forced = TimelineOptions {
        threads: 3,
        ..TimelineOptions::default()
    };
    assert_all_paths_agree(text.as_bytes(), &forced, 3, 0);
    // Tampering near the end of a late batch is found at the same place.
    let mut tampered = entries;
    tampered[4321].canonical_bytes = encode_base64(b"changed");
    let text = timeline_json(&tampered);
    assert_all_paths_agree(text.as_bytes(), &forced, 2, 0);
}

/// Batches of one entry keep the window full all along: the caller's thread waits for the oldest
/// batch, prepares waiting batches itself, and the workers share one queue, in every
/// interleaving the run happens to take. Entries the fast path declines and broken links sit at
/// window edges (every ninth entry is the first of a window of nine batches) and between them.
#[test]
fn a_window_always_full_gives_the_same_report_with_every_worker_count() {
    let mut entries = example_chain(JOB, 600, Revision::R09);
    for k in (8..600).step_by(97) {
        entries[k].tool = "tab\there".into();
    }
    for k in [9, 17, 18, 27, 200, 361, 599] {
        entries[k].prev_digest = "f".repeat(64);
    }
    entries[450].seq = 7;
    let text = timeline_json(&entries);
    let options = TimelineOptions {
        max_failures: 5,
        ..TimelineOptions::default()
    };
    // 10 threads: more workers than the most started (eight).
    for threads in [2, 3, 4, 9, 10] {
        for batch in [1, 2, 9] {
            assert_all_paths_agree(text.as_bytes(), &options, threads, batch);
        }
    }
}

/// A reader failing while batches are in flight: the error comes back (the workers are told to
/// stop, nothing waits for them forever), whatever the number of workers and the batch size.
#[test]
fn a_read_error_with_batches_in_flight_is_returned() {
    struct FailsAfter<'a> {
        data: &'a [u8],
    }
    impl std::io::Read for FailsAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.data.is_empty() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.data.len()).min(4096);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }
    let text = timeline_json(&example_chain(JOB, 3000, Revision::R09));
    for threads in [2, 3, 5] {
        for batch in [1, 16, 0] {
            let options = TimelineOptions {
                threads,
                batch_entries: batch,
                ..TimelineOptions::default()
            };
            let cut = &text.as_bytes()[..text.len() * 2 / 3];
            let result = verify_timeline(FailsAfter { data: cut }, &options);
            assert!(result.is_err(), "{threads} threads, batches of {batch}");
        }
    }
}

/// `canonical_bytes` is decoded on the fast path only to hash the decoded bytes (the digest binds
/// SHA-256 of them, not of the base64 text) and to check they are UTF-8; every way base64 can be
/// wrong, and decoded bytes that are not UTF-8, must still give the strict report, at the first,
/// last and every other place of a batch, under both constructions.
#[test]
fn bad_canonical_bytes_anywhere_in_a_batch_give_the_strict_report() {
    let bad = [
        "eyJqb2IiOiJqb2ItN2ExZiJ9", // valid base64 of other bytes: the next link breaks
        "eyJqb2IiOiJqb2ItN2ExZiJ9=", // length not a multiple of 4
        "eyJqb2IiOiJqb2ItN2ExZi J9", // whitespace
        "eyJqb2IiOiJqb2ItN2ExZi-_", // URL-safe alphabet
        "eyJqb2IiOiJqb2ItN2ExZiJ9\\n", // a newline (written as an escape in the JSON text)
        "YQ",                       // missing padding
        "YR==",                     // trailing bits set
        "Y===",                     // too much padding
        "=YQ=",                     // padding first
        "//79",                     // decodes to bytes that are not UTF-8
        "",                         // valid base64 of no bytes: the next link breaks
    ];
    let n = 12;
    for revision in [Revision::R09, Revision::R06] {
        let options = TimelineOptions {
            revision,
            ..TimelineOptions::default()
        };
        for (k, b64) in bad.iter().enumerate() {
            // One bad entry per position k, k + 5, ...: with batches of 1 to 5 entries the bad
            // entries fall first, last and in the middle of batches.
            let mut entries = example_chain(JOB, n, revision);
            for at in (k % 5..n).step_by(5) {
                entries[at].canonical_bytes = (*b64).to_string();
            }
            let text = timeline_json(&entries).replace("\\\\n", "\\n");
            for batch in 1..=5 {
                assert_all_paths_agree(text.as_bytes(), &options, 2, batch);
            }
            let report = verify_timeline(text.as_bytes(), &options).expect("slice");
            if !b64.is_empty() {
                assert_eq!(report.verdict, Verdict::Invalid, "{b64}: {report:?}");
            }
        }
    }
}
