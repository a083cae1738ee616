//! The corpus a run draws from, as its arguments choose it: built whole when its prefixes reach
//! every suite or its case lists must be checked against every case id, else only the suites
//! they reach; with what the results header records of the whole corpus either way.

use std::collections::BTreeSet;

use agentconf_contract::vector::{Suite, Vector};

use crate::args::RunArgs;

/// The vectors a run draws its cases from, and what is recorded of the whole corpus.
pub struct ChosenCorpus {
    pub vectors: Vec<Vector>,
    /// The whole corpus's digest, whatever was built.
    pub digest: String,
    /// The whole corpus's case count.
    pub case_count: usize,
    /// Every case id, when an adapter's lists or an expected-failures file name cases (they are
    /// checked against them); empty otherwise.
    pub case_ids: BTreeSet<String>,
}

/// The corpus for `args`. The digest and count come from the corpus when it is built whole,
/// else from the facts compiled into this build (`agentconf_corpus::embedded`), which spare
/// building the drafts no prefix selects. Never a file on disk.
pub fn choose(args: &RunArgs) -> ChosenCorpus {
    let lists_cases = args.adapter.is_some() || args.xfail.is_some();
    let whole = lists_cases || all_parts(&args.include);
    if !whole {
        return ChosenCorpus {
            vectors: agentconf_corpus::corpus_of(|suite| reaches(&args.include, suite)),
            digest: agentconf_corpus::embedded::CORPUS_DIGEST.to_string(),
            case_count: agentconf_corpus::embedded::CASE_COUNT,
            case_ids: BTreeSet::new(),
        };
    }
    let vectors = agentconf_corpus::corpus();
    let ids = case_ids(&vectors);
    ChosenCorpus {
        digest: agentconf_corpus::writer::manifest(&vectors).corpus_digest,
        case_count: ids.len(),
        case_ids: if lists_cases { ids } else { BTreeSet::new() },
        vectors,
    }
}

/// Whether the `--include` prefixes reach every suite (or there are none): the whole corpus is
/// built then.
fn all_parts(include: &[String]) -> bool {
    Suite::ALL.into_iter().all(|suite| reaches(include, suite))
}

/// Every case id of `vectors`: a vector's id names its first case, `<id>@<revision>` its others.
pub fn case_ids(vectors: &[Vector]) -> BTreeSet<String> {
    vectors
        .iter()
        .flat_map(|v| v.cases().into_iter().map(|c| c.id))
        .collect()
}

/// Whether a vector of `suite` may be selected by the `--include` prefixes (every one when there
/// are none; excludes only take away): one of its ids may start with a prefix when the prefix
/// and the suite's id prefix are one a prefix of the other.
fn reaches(include: &[String], suite: Suite) -> bool {
    let suite = suite.id_prefix();
    include.is_empty()
        || include
            .iter()
            .any(|p| p.starts_with(suite) || suite.starts_with(p.as_str()))
}
