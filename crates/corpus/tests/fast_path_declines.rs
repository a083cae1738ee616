//! The trap a new timeline rule sets: the reference checks a plain entry on a fast path
//! (`crates/aer1/src/timeline/fast.rs`) that writes no findings and must decline every entry the
//! strict path (`timeline/mod.rs`, `check_object_*`) would fault. A rule added to the strict path
//! and not declined by the fast one would be skipped for every plain entry. Every rule has a
//! vector (`corpus.rs`, `every_rule_has_a_vector`); here every timeline case of the corpus is
//! checked both ways and the reports must be the same, so a rule whose vectors the fast path
//! lets through fails here, named, with where to look.

use agentconf_aer1::timeline::{verify_timeline, verify_timeline_strict_only, TimelineOptions};
use agentconf_contract::call::Call;
use agentconf_contract::vector::Suite;
use agentconf_reference::dispatch::timeline_options;
use agentconf_reference::vector_inputs::{call_of, VectorInputs};

#[test]
fn the_fast_path_declines_every_entry_the_strict_path_faults() {
    let corpus = agentconf_corpus::corpus();
    let mut compared = 0;
    let mut problems = Vec::new();
    for v in corpus.iter().filter(|v| v.suite == Suite::Aer1Timeline) {
        for case in v.cases() {
            let Some(Call::Timeline {
                revision,
                timeline,
                commitment,
            }) = call_of(&case)
            else {
                continue;
            };
            let inputs = VectorInputs(v);
            let Ok(Some(options)) = timeline_options(&revision, commitment.as_deref(), &inputs)
            else {
                continue;
            };
            let bytes = v.input_file_bytes(&timeline).expect("the timeline input");
            // On the caller's thread: every entry meets the fast path first.
            let fast_options = TimelineOptions {
                threads: 1,
                ..options.clone()
            };
            let fast = verify_timeline(&bytes[..], &fast_options).expect("in memory");
            let strict = verify_timeline_strict_only(&bytes[..], &options).expect("in memory");
            compared += 1;
            let (fast, strict) = (
                serde_json::to_string(&fast).unwrap(),
                serde_json::to_string(&strict).unwrap(),
            );
            if fast != strict {
                problems.push(format!(
                    "{}: the fast path's report differs from the strict path's (a rule the \
                     strict path reports that crates/aer1/src/timeline/fast.rs does not decline \
                     for):\n  fast:   {fast}\n  strict: {strict}",
                    case.id
                ));
            }
        }
    }
    assert!(compared > 200, "only {compared} timeline cases compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
