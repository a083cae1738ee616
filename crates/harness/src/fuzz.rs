//! What the fuzz targets (`crates/fuzz`) drive: one entry point per reader of untrusted input,
//! each feeding it arbitrary bytes and asserting what must hold whatever they are. They panic
//! only when such an invariant breaks; an `Err` from the reader is the expected answer to bad
//! input.
//!
//! The entry points live here, not in the targets, so the readers they drive (the adapter's
//! getters, persistent mode's exchange, the emitted-output comparisons, the report renderers)
//! stay private to the harness. Compiled only with the `fuzzing` feature, which the fuzz
//! workspace turns on.

use std::collections::BTreeSet;

use agentconf_contract::call::{Call, Operation};
use agentconf_contract::emit::{ReceiptMeta, TimelineSteps};
use agentconf_contract::vector::{Expectation, Suite, Tier, Vector};
use agentconf_rules::Rule;

use crate::adapter::Adapter;
use crate::grade::Grading;
use crate::persistent::{grade_run_answer, read_run_response, read_start_response, ReplyError};
use crate::results::{self, ResultsFile};
use crate::status::Status;
use crate::{emitted, report};

/// An adapter file: parsed against the corpus's ids, then every getter asked about a few
/// vectors, calls and exit codes (none may panic, whatever the file said).
pub fn adapter_file(text: &str, vectors: &[Vector]) {
    let ids: BTreeSet<String> = vectors.iter().map(|v| v.id.clone()).collect();
    let Ok(adapter) = Adapter::parse(text, &ids) else {
        return;
    };
    for code in [
        None,
        Some(0),
        Some(1),
        Some(2),
        Some(89),
        Some(-1),
        Some(i32::MAX),
    ] {
        let _ = adapter.exit_meaning(code);
    }
    let calls = [
        Call::receipt("r.json".into(), None),
        Call::receipt("r.json".into(), Some(Tier::Anchored)),
        Call::Timeline {
            revision: "09".into(),
            timeline: "t.json".into(),
            commitment: Some("c.json".into()),
        },
        Call::Timeline {
            revision: "06".into(),
            timeline: "t.json".into(),
            commitment: None,
        },
        Call::Workflow {
            workflow: "w.json".into(),
        },
    ];
    for call in &calls {
        let _ = adapter.arguments(call);
    }
    let _ = adapter.check_persistent();
    let _ = adapter.crash_pattern(text.as_bytes());
    for v in vectors.iter().take(3) {
        for c in v.cases() {
            let _ = adapter.declines(&c);
            let _ = adapter.skip_reason(&c.id);
            let _ = adapter.xfail_reason(&c.id);
        }
        for op in Operation::ALL {
            let _ = adapter.mapped_rules(op, &v.id, text);
        }
    }
}

/// An emitter's output, graded against the emitting vector `which` (modulo their number): it
/// passes or is wrong output, never anything else, and the comparisons behind the grade agree
/// with it and name catalogue rules only.
pub fn emitted_output(vectors: &[Vector], which: usize, output: &[u8]) {
    let emitters: Vec<&Vector> = vectors
        .iter()
        .filter(|v| {
            v.suite == Suite::Aer1EmitTimeline
                || (v.suite == Suite::Aer1EmitReceipt && v.expectation == Expectation::Valid)
        })
        .collect();
    let Some(v) = emitters.get(which % emitters.len().max(1)) else {
        return;
    };
    let crate::grade::Grade { status, detail } = emitted::grade_any(&v.main_case(), output);
    assert!(
        matches!(status, Status::Pass | Status::WrongOutput),
        "{detail}"
    );
    let mut faults = None;
    if let (Suite::Aer1EmitReceipt, Some(payload), Some(meta)) =
        (v.suite, v.input_bytes("payload"), v.input_bytes("meta"))
    {
        let meta = ReceiptMeta::parse(&meta).expect("the corpus's meta");
        faults = Some(emitted::compare_receipt(&payload, &meta, output));
    }
    if let Some(steps) = v
        .input_bytes("steps")
        .and_then(|b| TimelineSteps::parse(&b).ok())
    {
        let (want, _) = emitted::expected_timeline(&steps);
        faults = Some(emitted::compare(&want, output));
    }
    if let Some(faults) = faults {
        assert_eq!(faults.is_empty(), status == Status::Pass);
        for f in faults {
            assert_eq!(Rule::from_id(f.rule.id()), Some(f.rule));
        }
    }
}

/// One line from a persistent server: read as a start response, or as the answer to request 7
/// and graded against vector `which` (modulo their number). A refusal always says why.
pub fn persistent_reply(
    vectors: &[Vector],
    start: bool,
    validate: bool,
    which: usize,
    line: &[u8],
) {
    if start {
        if let Err(e) = read_start_response(line, validate) {
            assert!(!e.to_string().is_empty());
        }
        return;
    }
    match read_run_response(line, 7, validate) {
        Ok(answer) => {
            let Some(vector) = vectors.get(which % vectors.len().max(1)) else {
                return;
            };
            let _ = grade_run_answer(&vector.main_case(), answer, Grading::Strict);
        }
        Err(ReplyError::OutOfStep(why) | ReplyError::Invalid(why)) => assert!(!why.is_empty()),
    }
}

/// A results file: parsed, then rendered in every format and diffed against itself. No
/// format may let the file's text open markup: JUnit carries no script element, and the HTML
/// page has exactly the script elements the renderer writes itself.
pub fn results_file(text: &str) {
    let Ok(file) = results::parse(text) else {
        return;
    };
    let view = report::View::of(&file);
    for format in report::ReportFormat::ALL {
        let _ = format.render(&view);
    }
    let junit = report::ReportFormat::Junit.render(&view);
    assert!(!junit.contains("<script"), "unescaped markup in JUnit");
    let html = report::ReportFormat::Html.render(&view);
    let empty = ResultsFile {
        header: file.header.clone(),
        results: Vec::new(),
        footer: None,
    };
    let fixed = report::ReportFormat::Html.render(&report::View::of(&empty));
    assert_eq!(
        html.matches("<script").count(),
        fixed.matches("<script").count(),
        "the file's text opened a script element"
    );
    let d = report::diff(&file, &file, None);
    let _ = report::diff_text(&d);
}
