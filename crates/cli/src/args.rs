//! Command-line arguments. This surface is a contract: the harness and users' scripts call it.

use std::path::PathBuf;

use agentconf_contract::call::Operation;
use agentconf_contract::vector::Suite;
use agentconf_harness::report::ReportFormat;
use agentconf_rules::draft_revisions::{AER1, GRP};
use agentconf_rules::Revisions;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// A draft's newest revision in the revisions table: the default wherever a revision is asked.
fn newest(draft: &str) -> &'static str {
    Revisions::embedded().newest(draft)
}

/// The suites `--suite` takes: every suite of the corpus.
fn suite_values() -> PossibleValuesParser {
    PossibleValuesParser::new(Suite::ALL.map(Suite::as_str))
}

/// Every revision of a draft the revisions table lists, newest first. Each one is accepted (a
/// script that names revision 09 keeps working when 10 is added), and each is checked under the
/// construction the table gives it; the help shows one value per construction, the newest revision
/// that uses it, and hides the older ones so the list stays short. What is checked is named by the
/// value asked for: reports carry the requested revision, never another one of its construction.
fn revision_values(draft: &str) -> PossibleValuesParser {
    let records = Revisions::embedded().of(draft);
    let mut values: Vec<PossibleValue> = Vec::new();
    for (i, r) in records.iter().enumerate().rev() {
        let covered: Vec<&str> = records
            .iter()
            .filter(|x| x.construction == r.construction)
            .map(|x| x.revision.as_str())
            .collect();
        let used_by = match covered.as_slice() {
            [one] => format!("revision {one}"),
            many => format!("revisions {}", many.join(", ")),
        };
        let newer_uses_it = records[i + 1..]
            .iter()
            .any(|x| x.construction == r.construction);
        values.push(
            PossibleValue::new(r.revision.as_str())
                .help(format!(
                    "the `{}` construction, used by {used_by}",
                    r.construction
                ))
                .hide(newer_uses_it),
        );
    }
    PossibleValuesParser::new(values)
}

/// The one-line description, naming the revisions the revisions table makes current.
fn about() -> String {
    format!(
        "Conformance tooling for AER-1 ({AER1}, revision {}) and GRP ({GRP}, revision {}).",
        newest(AER1),
        newest(GRP)
    )
}

fn long_about() -> String {
    format!(
        "{} Both are individual Internet-Drafts: not RFCs and not endorsed by the IETF.\n\n\
         Exit codes differ by command, and each command's help states its own: 0 is a valid \
         document, a passing verdict or a job done; 1 an invalid document, a failing verdict or \
         a difference found; 2 a usage error, unreadable input or unwritable output; `run` \
         exits 130 when interrupted, and `impl` with the contract's codes (0, 1, 89). FILE may \
         be '-' for standard input.",
        about()
    )
}

// What each command's help says of its exit codes (`after_help`): the codes its module returns
// (crates/cli/src/commands), in words. A test holds every command to having a line.

/// `verify`, `digest`, `commit`: a document judged.
const EXIT_DOCUMENT: &str = "Exit codes: 0 valid; 1 invalid (malformed or non-UTF-8 input \
    included); 2 usage error, unreadable input (a missing file, a directory, an I/O error) or \
    output that could not be written.";

/// Commands that list, print or write and judge nothing.
const EXIT_LISTING: &str = "Exit codes: 0 done; 2 usage error, unreadable input or output that \
    could not be written.";

const EXIT_RUN: &str = "Exit codes: 0 the verdict is CONFORMS, CONFORMS WITH N KNOWN FAILURES or \
    PARTIAL; 1 FAIL or NOTHING TESTED (a broken wrapper included: the smoke check says why); 2 \
    usage error, an adapter file with mistakes, an unwritable results file or a run that could \
    not start; 130 interrupted (Ctrl-C or SIGTERM: the cases that finished are written, the \
    verdict at best PARTIAL).";

const EXIT_REPORT: &str = "Exit codes: 0 the verdict is CONFORMS, CONFORMS WITH N KNOWN FAILURES \
    or PARTIAL (or at least the --require level; any verdict with --exit-zero); 1 below that; 2 \
    usage error, or a file that is refused or unreadable: not whole or not as written (cut, \
    damaged, edited without recomputing its digests, a member the format does not know), of \
    another corpus, or, with --signed-by, unsigned or not signed by an allowed key.\n\n\
    What each check proves: the seal (the footer's SHA-256 of the header and the lines, byte for \
    byte) catches accidental damage and edits by someone who does not recompute it, not a forger \
    who does; a signature (--signed-by) shows who vouched for these exact bytes, not that the run \
    was honest; only a re-run (`agentconf claim verify RESULTS -- COMMAND`) shows the verdict is \
    reproducible.";

const EXIT_REPORT_DIFF: &str = "Exit codes: 0 no regression (or --exit-zero); 1 a case regressed, \
    whatever its cause; 2 usage error, or a file that is refused or unreadable.";

const EXIT_SMOKE: &str = "Exit codes: 0 the wrapper works (every call answered as the contract \
    asks); 1 it does not (the diagnosis says what is wrong); 2 usage error or an adapter file \
    with mistakes.";

const EXIT_MATRIX: &str = "Exit codes: 0 every emitter and verifier pair agrees; 1 a pair \
    disagrees; 2 usage error, an adapter file with mistakes or output that could not be written.";

const EXIT_CLAIM: &str = "Exit codes: 0 REPRODUCED (with the claim's verdict, a FAIL claim \
    included), or with --signed-by and no command SIGNED (the signature, seal and corpus hold; \
    nothing re-run); 1 a case's status differs, or the command is not the implementation the \
    claim records; 2 nothing could be checked (a refused file, a signature missing, not matching \
    the bytes or by a key not allowed, a claim only its own command can re-run).";

const EXIT_CLAIM_SIGN: &str = "Exit codes: 0 signed (RESULTS.sig written, and the attestation \
    when asked for); 2 usage error, a refused results file, a key that cannot be used (missing, \
    encrypted, not Ed25519) or an output that could not be written.";

const EXIT_IMPL: &str = "Exit codes (the contract's, CONTRACT.md section 3): 0 accept; 1 reject; \
    89 unsupported; 2 usage error. `grp-admit`: 0 when the stream was processed.";

const EXIT_GRP_ADMIT: &str = "Exit codes: 0 the stream was processed (every line has its \
    decision); 2 usage error, an unreadable session file or a store failure (nothing is admitted \
    then).";

const EXIT_VECTORS_DIFF: &str = "Exit codes: 0 compared (with --exit-code: the corpora are the \
    same); 1 with --exit-code, the corpora differ; 2 usage error or a corpus that cannot be read.";

#[derive(Parser, Debug)]
#[command(
    name = "agentconf",
    version,
    about = about(),
    long_about = long_about()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Verify a receipt, a timeline or a workflow.
    #[command(subcommand, after_help = EXIT_DOCUMENT)]
    Verify(Verify),
    /// Print each timeline entry's digest (and with --preimage, the bytes hashed).
    #[command(after_help = EXIT_DOCUMENT)]
    Digest(DigestArgs),
    /// Verify a timeline under the draft's newest revision and print its external commitment.
    #[command(after_help = EXIT_DOCUMENT)]
    Commit(CommitArgs),
    /// List the rule catalogue.
    #[command(after_help = EXIT_LISTING)]
    Rules(RulesArgs),
    /// The embedded test-vector corpus: list, show, export and compare vectors.
    #[command(subcommand, after_help = EXIT_LISTING)]
    Vectors(Vectors),
    /// GRP (draft-sato-soos-grp) change-event admission: the reference receiver and tools.
    #[command(subcommand, after_help = EXIT_LISTING)]
    Grp(Grp),
    /// Run an implementation against the corpus and report conformance per rule.
    #[command(after_help = EXIT_RUN)]
    Run(RunArgs),
    /// Run several implementations over the corpus and every emitter's timelines, commitments
    /// and receipts through every verifier: the interoperability matrix (JSON, Markdown, HTML).
    #[command(after_help = EXIT_MATRIX)]
    Matrix(MatrixArgs),
    /// Check that an implementation's wrapper speaks the contract: a few trivial cases per
    /// operation and a one-screen diagnosis.
    #[command(after_help = EXIT_SMOKE)]
    Smoke(SmokeArgs),
    #[command(
        about = report_about(),
        after_help = EXIT_REPORT,
        args_conflicts_with_subcommands = true,
        subcommand_negates_reqs = true
    )]
    Report(ReportArgs),
    /// Re-check a conformance claim: `claim verify RESULTS [-- COMMAND]` re-runs exactly the
    /// cases, grading, profiles and adapter RESULTS records through the implementation it
    /// records, and says REPRODUCED (with the claim's verdict) or lists every difference.
    #[command(subcommand, after_help = EXIT_CLAIM)]
    Claim(Claim),
    #[command(about = impl_about(), long_about = impl_long_about(), after_help = EXIT_IMPL)]
    Impl(ImplArgs),
}

/// `agentconf impl`'s one line of help.
fn impl_about() -> &'static str {
    "The reference speaking the harness contract (crates/contract/CONTRACT.md): one operation per \
     call"
}

/// `agentconf impl --help`: every operation of the contract with its arguments, from the
/// contract's list of operations.
fn impl_long_about() -> String {
    let width = Operation::ALL
        .iter()
        .map(|o| o.as_str().len())
        .max()
        .unwrap_or(0);
    let mut text = format!("{}.\n\nOperations (OPERATION ARGS…):\n", impl_about());
    for op in Operation::ALL {
        text.push_str(&format!(
            "  {:<width$}  {}\n",
            op.as_str(),
            operation_synopsis(op)
        ));
    }
    // Not an operation of a call: the persistent mode's server (CONTRACT.md section 8).
    text.push_str(&format!(
        "  {:<width$}  requests and responses as JSON lines on stdin and stdout (persistent mode)",
        "serve"
    ));
    text
}

/// An operation's arguments in the contract's order (CONTRACT.md section 2), and what it prints.
fn operation_synopsis(op: Operation) -> &'static str {
    match op {
        Operation::Aer1Receipt => "RECEIPT [TIER]",
        Operation::Aer1Timeline => "REVISION TIMELINE [COMMITMENT]",
        Operation::Aer1Workflow => "WORKFLOW",
        Operation::GrpAdmit => {
            "REVISION SESSION STATE_DIR (event lines on stdin, decisions on stdout)"
        }
        Operation::Aer1EmitTimeline => "STEPS (the timeline on stdout)",
        Operation::Aer1EmitCommitment => {
            "TIMELINE PUBLISHED_AT (the commitment artifact on stdout)"
        }
        Operation::Aer1EmitReceipt => "PAYLOAD META (the receipt on stdout)",
    }
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// `reference` (agentconf's own implementation, run in process), `reference-process` (the
    /// reference through the contract: `agentconf impl` in a process per vector), or give another
    /// implementation's command after `--` (see crates/contract/CONTRACT.md).
    #[arg(long, value_enum, default_value_t = ImplementationArg::Reference)]
    pub implementation: ImplementationArg,
    /// The command of the implementation under test, after `--`.
    #[arg(last = true)]
    pub command: Vec<String>,
    /// strict: a rejection must cite the expected rules; loose (also called verdict-only): any
    /// rejection of an invalid vector passes.
    #[arg(long, value_enum, default_value_t = GradingArg::Strict)]
    pub grading: GradingArg,
    /// A capability profile the implementation claims (durable, atomic, cluster); repeatable.
    #[arg(long = "profile", value_enum)]
    pub profiles: Vec<ProfileArg>,
    /// Run only vectors whose id starts with this prefix; repeatable.
    #[arg(long)]
    pub include: Vec<String>,
    /// Skip vectors whose id starts with this prefix; repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Parallel workers, at least 1, at most 256 and the number of cases (default: the number of
    /// cores).
    #[arg(long)]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Per-vector timeout in seconds (the implementation's whole process group is killed).
    #[arg(long, default_value_t = agentconf_harness::DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Stop at the first unexpected result.
    #[arg(long)]
    pub fail_fast: bool,
    /// Stop after this many unexpected results.
    #[arg(long)]
    pub max_fail: Option<std::num::NonZeroUsize>,
    /// The results file (JSON lines: header, one line per vector, footer).
    #[arg(long, default_value = "agentconf-results.jsonl")]
    pub out: PathBuf,
    /// Also write the self-contained HTML report here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// An adapter file (TOML) for a tool not written for the contract: its command, argv
    /// templates, declared support, exit-code and error maps, crash patterns, profiles, skips and
    /// strict expected failures (crates/contract/CONTRACT.md section 12).
    #[arg(long)]
    pub adapter: Option<PathBuf>,
    /// Write today's unexpected results as a starting expected-failures file (TOML).
    #[arg(long, value_name = "FILE")]
    pub emit_xfail: Option<PathBuf>,
    /// Strict expected failures from FILE, as --emit-xfail writes it (`[[xfail]]` entries, each
    /// an exact case id with a reason; the same entries can be pasted into an adapter): a
    /// listed case that fails is a known failure, one that passes fails the run.
    #[arg(long, value_name = "FILE")]
    pub xfail: Option<PathBuf>,
    /// Run AER-1 vectors through one long-lived `IMPL serve` process per worker (JSON lines; see
    /// CONTRACT.md); GRP scenarios still run one-shot.
    #[arg(long)]
    pub persistent: bool,
    /// With --persistent: check every response against the protocol's JSON Schema.
    #[arg(long, requires = "persistent")]
    pub validate_protocol: bool,
    /// Run every case even when the first ones all crash the same way (by default the run stops
    /// there and the smoke check says what is wrong with the wrapper).
    #[arg(long)]
    pub keep_going: bool,
    /// Sign the results file with KEY, an OpenSSH Ed25519 private key file without a passphrase:
    /// writes `OUT.sig` beside it, an SSH signature (namespace `agentconf-results`) over its exact
    /// bytes that `ssh-keygen -Y verify` checks without agentconf. Without --sign, the
    /// environment variable AGENTCONF_SIGNING_KEY (a key file's path, or the key's text) signs.
    /// A signature shows who vouched for the file, not that the run was honest.
    #[arg(long, value_name = "KEY")]
    pub sign: Option<PathBuf>,
    /// Also write an in-toto Statement v1 of the results file (subjects: the file, the
    /// executable and the files the command names, with their SHA-256; predicate type
    /// https://agentconf.invalid/attestation/results/v1) in a DSSE envelope, signed with the
    /// signing key when there is one, unsigned otherwise.
    #[arg(long, value_name = "FILE")]
    pub attestation: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// An implementation besides the reference (which is always the first): `NAME=ADAPTER.toml`
    /// for an adapter file, or `NAME=COMMAND ARGS…` for a command (split at spaces; write an
    /// adapter for arguments that hold spaces). NAME: letters, digits, `.`, `_`, `-`.
    #[arg(value_name = "NAME=ADAPTER|COMMAND")]
    pub implementations: Vec<String>,
    /// The directory for the matrix and every implementation's results (created if missing).
    #[arg(long, default_value = "agentconf-matrix")]
    pub out: PathBuf,
    /// Run only vectors whose id starts with this prefix; repeatable. Only the emitter vectors
    /// selected reach the verifiers.
    #[arg(long)]
    pub include: Vec<String>,
    /// Skip vectors whose id starts with this prefix; repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Parallel workers per implementation, at least 1, at most 256 and the number of cases
    /// (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Per-vector timeout in seconds.
    #[arg(long, default_value_t = agentconf_harness::DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

#[derive(Args, Debug)]
pub struct SmokeArgs {
    /// The command of the implementation, after `--` (not with an adapter that names one).
    #[arg(last = true)]
    pub command: Vec<String>,
    /// An adapter file for a tool that does not speak the contract itself; its `command` runs
    /// the tool (then give none after `--`).
    #[arg(long)]
    pub adapter: Option<PathBuf>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// `agentconf report diff OLD NEW`: compare two results files.
    #[command(subcommand)]
    pub diff: Option<ReportCommand>,
    /// A results file written by `agentconf run` (a file named `diff`: `./diff`).
    #[arg(required = true)]
    pub file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = report_formats(), default_value = "text")]
    pub format: ReportFormat,
    /// The corpus directory (a `vectors/` with its manifest.json) FILE was made against, when it
    /// is not the corpus this agentconf embeds. FILE is refused unless its corpus digest, cases
    /// and every line's rules and expectations are that corpus's.
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Exit 0 whatever the verdict once the report is written: for publishing a FAIL report or
    /// a red badge from CI without failing the step. A file that is refused or unreadable
    /// still exits 2.
    #[arg(long)]
    pub exit_zero: bool,
    /// Exit 1 unless the verdict is at least LEVEL (best first: conforms, known-failures,
    /// in-scope, partial), so that CI can demand CONFORMS, or, for an implementation of a part
    /// of the drafts, that every case of the scope its adapter declares passed (in-scope).
    /// Without it, FAIL and NOTHING TESTED exit 1, which is `--require partial`. A file that is
    /// refused or unreadable still exits 2.
    #[arg(long, value_enum, value_name = "LEVEL", conflicts_with = "exit_zero")]
    pub require: Option<RequireLevel>,
    /// Also write FILE's unexpected results as a starting expected-failures list (TOML, the
    /// adapter's `[[xfail]]` entries), as `run --emit-xfail` would have: no second run needed.
    #[arg(long, value_name = "XFAIL")]
    pub emit_xfail: Option<PathBuf>,
    /// Refuse FILE (exit 2) unless FILE.sig (or --signature) is an SSH signature of its exact
    /// bytes by a key SIGNERS allows: an OpenSSH allowed_signers file (its `namespaces=` honoured)
    /// or a public key file (KEY.pub). It shows who vouched for the bytes, not that the run was
    /// honest.
    #[arg(long, value_name = "SIGNERS")]
    pub signed_by: Option<PathBuf>,
    /// The signature file, when it is not FILE.sig.
    #[arg(long, value_name = "SIG", requires = "signed_by")]
    pub signature: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum ReportCommand {
    /// Compare two results files: the verdict and coverage change first, then each case whose
    /// status changed (regressions first, false accepts first among them), with its cause: the
    /// implementation, or the corpus under it.
    #[command(after_help = EXIT_REPORT_DIFF)]
    Diff(ReportDiffArgs),
}

#[derive(Args, Debug)]
pub struct ReportDiffArgs {
    /// The older results file.
    pub old: PathBuf,
    /// The newer results file.
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_parser = diff_formats(), default_value = "text")]
    pub format: ReportFormat,
    /// The corpus directory OLD was made against (its digest must be OLD's), when it is not the
    /// embedded corpus. With both corpora known, each difference names its cause:
    /// `implementation` (same corpus, or the vector file and its expectation unchanged),
    /// `expectation` (the case's expectation, expected rules or revision changed),
    /// `vector-content` (the vector file changed), `vector-added` / `vector-retired` (the vector
    /// is in one corpus only), `not-run` (in both corpora, but the other run left the case out);
    /// without them, a difference across corpora is `corpus-unknown` unless its expectation
    /// changed. Regressions fail the diff whatever their cause.
    #[arg(long, value_name = "DIR")]
    pub old_corpus: Option<PathBuf>,
    /// The corpus directory NEW was made against (see --old-corpus).
    #[arg(long, value_name = "DIR")]
    pub new_corpus: Option<PathBuf>,
    /// Exit 0 even when a case regressed, once the diff is written.
    #[arg(long)]
    pub exit_zero: bool,
}

#[derive(Args, Debug)]
pub struct ImplArgs {
    /// The operation.
    pub operation: String,
    /// Its arguments, in the contract's fixed order.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum Grp {
    /// Create an empty admission store, SQLite or PostgreSQL (exit 2 if one is already there).
    ///
    /// A store is never created on first use (only here, or by `grp admit --create`), so a
    /// deleted one cannot silently come back empty and admit every replay again.
    #[command(after_help = EXIT_LISTING)]
    Init(GrpInitArgs),
    /// Admit change events read as JSON lines on standard input; write one decision per line.
    #[command(after_help = EXIT_GRP_ADMIT)]
    Admit(GrpAdmitArgs),
    /// Sign a change event with an Ed25519 key (the project's JWS profile); prints the event.
    #[command(after_help = EXIT_LISTING)]
    Sign(GrpSignArgs),
    /// Print the deterministic test key derived from a vector id and label (public test keys).
    #[command(after_help = EXIT_LISTING)]
    Key(GrpKeyArgs),
    /// Close a session: delete its admitted pairs from a store.
    #[command(after_help = EXIT_LISTING)]
    Close(GrpCloseArgs),
    /// After a crash, with no receiver running for the session: resume the hand-offs of pairs
    /// that were admitted but not handed on (printed one JSON line each, then marked done).
    #[command(after_help = EXIT_LISTING)]
    Recover(GrpCloseArgs),
}

#[derive(Args, Debug)]
pub struct GrpInitArgs {
    /// The store to create: `sqlite:PATH` or `postgres://USER@HOST:PORT/DB`.
    pub store: String,
}

#[derive(Args, Debug)]
pub struct GrpAdmitArgs {
    /// The session context (session id, nonce, clock, registered publishers and keys).
    pub session: PathBuf,
    /// Where admitted pairs are kept: `memory` (gone on exit), `sqlite:PATH` (durable, shareable
    /// between processes) or `postgres://USER@HOST:PORT/DB` (shared by receiver nodes; while the
    /// database cannot be reached, each event that passes its checks gets a `deferred` decision).
    /// A store must exist (`agentconf grp init SPEC`, or --create): a missing, deleted or damaged
    /// one is refused with exit 2.
    #[arg(long, default_value = "memory")]
    pub store: String,
    /// Create the store when there is none (receivers started together on one new store: one
    /// creates it, the others open it). Never over what a deleted SQLite store left.
    #[arg(long)]
    pub create: bool,
    /// The draft revision to implement (spec-notes/revisions.toml): 01 has the duplicate check,
    /// 00 does not.
    #[arg(long, default_value = newest(GRP), value_parser = revision_values(GRP))]
    pub revision: String,
    /// `power-loss` syncs every admission to disk before hand-off (SQLite `synchronous=FULL`,
    /// PostgreSQL `synchronous_commit=on`); `process-crash` survives a killed receiver but not a
    /// machine crash (or, on PostgreSQL, a crash of the server), and is several times faster.
    #[arg(long, value_enum, default_value_t = DurabilityArg::PowerLoss)]
    pub durability: DurabilityArg,
}

#[derive(Args, Debug)]
pub struct GrpSignArgs {
    /// The event to sign (JSON object; any publisher_signature is replaced), or '-'.
    pub event: PathBuf,
    /// The key id to put in the protected header.
    #[arg(long)]
    pub kid: String,
    /// The Ed25519 private key seed, 64 hex digits.
    #[arg(long)]
    pub seed: String,
}

#[derive(Args, Debug)]
pub struct GrpKeyArgs {
    /// The vector id the key belongs to.
    #[arg(long)]
    pub vector_id: String,
    /// The key's label within the vector (e.g. a publisher id).
    #[arg(long)]
    pub label: String,
    /// The kid to put in the printed public JWK.
    #[arg(long)]
    pub kid: Option<String>,
}

#[derive(Args, Debug)]
pub struct GrpCloseArgs {
    /// The session context whose session is closed.
    pub session: PathBuf,
    /// The store: `sqlite:PATH` or `postgres://USER@HOST:PORT/DB` (an existing one; it is never
    /// created here). A cluster node's PostgreSQL store is reached as the node reaches it
    /// (`AGENTCONF_STORE_ADDR`, in the namespace of `AGENTCONF_CLUSTER`).
    #[arg(long)]
    pub store: String,
}

#[derive(Subcommand, Debug)]
pub enum Vectors {
    /// List vectors, optionally filtered; ends with the count and the corpus digest.
    #[command(after_help = EXIT_LISTING)]
    List(VectorsListArgs),
    /// Print one vector file, or with --input one of its input files (raw bytes).
    #[command(after_help = EXIT_LISTING)]
    Show(VectorsShowArgs),
    /// Write the vectors that apply to one revision into a directory, with a manifest of that
    /// subset and every input as a plain file under inputs/.
    #[command(after_help = EXIT_LISTING)]
    Export(VectorsExportArgs),
    /// Compare two corpora: vectors added and retired, expectations changed under a revision
    /// graded by both, revisions gained or lost, files whose content changed besides their grades
    /// (inputs, description, flags); per-family and per-rule counts. Corpus directories of older
    /// agentconf versions are read too.
    #[command(after_help = EXIT_VECTORS_DIFF)]
    Diff(VectorsDiffArgs),
}

#[derive(Args, Debug)]
pub struct VectorsListArgs {
    /// Only this suite.
    #[arg(long, value_parser = suite_values())]
    pub suite: Option<String>,
    /// Only this family (valid, truncated, structure, ...).
    #[arg(long)]
    pub family: Option<String>,
    /// Only vectors exercising this rule id.
    #[arg(long)]
    pub rule: Option<String>,
    /// Only vectors that apply to this draft revision.
    #[arg(long)]
    pub revision: Option<String>,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct VectorsShowArgs {
    /// The vector id, e.g. aer1/timeline/reclosed/drop-2-of-8.
    pub id: String,
    /// Print an input file instead of the vector: by file name (e.g. session-2.json) or role (its
    /// first input of that role); the first input when none is given.
    #[arg(long, value_name = "ROLE", num_args = 0..=1, default_missing_value = "")]
    pub input: Option<String>,
}

#[derive(Args, Debug)]
pub struct VectorsExportArgs {
    /// The draft revision to export (any revision spec-notes/revisions.toml lists).
    #[arg(long)]
    pub revision: String,
    /// The directory to write; it must not exist or be empty.
    pub dir: std::path::PathBuf,
}

#[derive(Args, Debug)]
pub struct VectorsDiffArgs {
    /// The older corpus: a directory holding manifest.json (e.g. vectors/ of an earlier
    /// checkout), or `embedded` for the corpus in this binary (./embedded for a directory of
    /// that name).
    pub old: PathBuf,
    /// The newer corpus, as OLD; the corpus in this binary when omitted.
    pub new: Option<PathBuf>,
    /// Output format: markdown is for release notes; json lists every id; changelog is the entry
    /// `cargo xtask vectors` writes into vectors/CHANGELOG.md for the same two corpora.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Exit 1 when the corpora differ (0 when they are the same); without it, 0 either way.
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    Markdown,
    Changelog,
}

#[derive(Subcommand, Debug)]
pub enum Verify {
    /// Verify a single receipt (Sections 3-6).
    #[command(after_help = EXIT_DOCUMENT)]
    Receipt(ReceiptArgs),
    /// Verify a job timeline (Section 7), optionally against an external commitment.
    #[command(after_help = EXIT_DOCUMENT)]
    Timeline(TimelineArgs),
    /// Verify a workflow receipt (Section 8): its members, step seq 1..n, distinct step receipt
    /// ids and the Merkle root over them in seq order.
    #[command(after_help = EXIT_DOCUMENT)]
    Workflow(WorkflowArgs),
}

#[derive(Args, Debug)]
pub struct Output {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// The eight members; id a lowercase UUID (the nil UUID included, as at revision 09).
    Core,
    /// Core, and id a UUID version 4 with the RFC 4122 variant (revision 09).
    Strict,
    /// Strict, and the anchor object: log, leaf_hash (the bytes' hash), anchored_at, proof.
    Anchored,
    /// Core, and the decoded payload a JSON object carrying inputs (producer profile).
    Profile,
}

#[derive(Args, Debug)]
pub struct ReceiptArgs {
    /// The receipt file, or '-' for standard input.
    pub file: PathBuf,
    /// The receipt tier to check; the report names it, and a valid verdict says nothing about
    /// the others. (`--id-tier` is the old spelling, still accepted.)
    #[arg(long, alias = "id-tier", value_enum, default_value_t = TierArg::Core)]
    pub tier: TierArg,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct TimelineArgs {
    /// The timeline file (a JSON array of entries), or '-' for standard input.
    pub file: PathBuf,
    /// An external commitment to check the chain against (a revision the AER1-CM rules apply to).
    #[arg(long, value_name = "FILE")]
    pub commitment: Option<PathBuf>,
    /// The draft revision whose chain construction to verify under (spec-notes/revisions.toml).
    #[arg(long, default_value = newest(AER1), value_parser = revision_values(AER1))]
    pub revision: String,
    /// Keep at most this many failures in the report; the rest are counted.
    #[arg(long, default_value_t = agentconf_aer1::timeline::DEFAULT_MAX_FAILURES)]
    pub max_failures: usize,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct WorkflowArgs {
    /// The workflow file, or '-' for standard input.
    pub file: PathBuf,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct DigestArgs {
    /// The timeline file, or '-' for standard input.
    pub file: PathBuf,
    /// The draft revision whose chain construction to digest under (spec-notes/revisions.toml).
    #[arg(long, default_value = newest(AER1), value_parser = revision_values(AER1))]
    pub revision: String,
    /// Also print each entry's preimage (a revision with the `preimage` construction).
    #[arg(long)]
    pub preimage: bool,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct CommitArgs {
    /// The timeline file, or '-' for standard input.
    pub file: PathBuf,
    /// When the witness publishes the commitment (RFC 3339, e.g. 2026-10-01T18:30:00Z).
    #[arg(long, value_name = "RFC3339")]
    pub published_at: String,
}

#[derive(Args, Debug)]
pub struct RulesArgs {
    #[command(flatten)]
    pub output: Output,
}

/// Which implementation `agentconf run` runs when no command is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImplementationArg {
    /// The reference, called as a library (no processes).
    Reference,
    /// The reference through the contract: `agentconf impl` in a process per vector.
    ReferenceProcess,
}

/// How strictly rejections are graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GradingArg {
    /// A rejection must cite the expected rules.
    Strict,
    /// Any rejection of an invalid vector passes.
    #[value(alias = "verdict-only")]
    Loose,
}

/// A GRP capability profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    Durable,
    Atomic,
    Cluster,
}

impl ProfileArg {
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileArg::Durable => "durable",
            ProfileArg::Atomic => "atomic",
            ProfileArg::Cluster => "cluster",
        }
    }
}

/// `agentconf report`'s one line of help, listing the formats.
fn report_about() -> String {
    format!(
        "Render a results file ({}); `report diff OLD NEW` compares two",
        ReportFormat::names()
    )
}

/// The values of `agentconf report --format`: every report format, each with what it is for.
fn report_formats() -> impl TypedValueParser<Value = ReportFormat> {
    format_values(ReportFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.about())))
}

/// The values of `agentconf report diff --format`: the report formats that can render a diff.
fn diff_formats() -> impl TypedValueParser<Value = ReportFormat> {
    format_values(
        ReportFormat::ALL
            .into_iter()
            .filter(|f| f.has_diff())
            .map(|f| PossibleValue::new(f.name())),
    )
}

/// A `--format` parser taking `values`, each a [`ReportFormat`]'s name.
fn format_values(
    values: impl IntoIterator<Item = PossibleValue>,
) -> impl TypedValueParser<Value = ReportFormat> {
    PossibleValuesParser::new(values).try_map(|name| {
        // Only the listed names get here.
        ReportFormat::from_name(&name).ok_or_else(|| format!("no report format is called {name}"))
    })
}

/// The least verdict `agentconf report --require` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RequireLevel {
    /// CONFORMS only.
    Conforms,
    /// CONFORMS, or CONFORMS WITH N KNOWN FAILURES.
    KnownFailures,
    /// Every case inside the scope the adapter declares ran, strictly graded, and passed or
    /// failed as a listed expected failure; the cases outside it are not claimed (a PARTIAL
    /// whose only reason is its declared scope, or better).
    InScope,
    /// Anything but FAIL and NOTHING TESTED (what `report` exits by without `--require`).
    Partial,
}

/// How durable a SQLite admission store is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DurabilityArg {
    PowerLoss,
    ProcessCrash,
}

#[derive(Subcommand, Debug)]
pub enum Claim {
    /// Re-run what RESULTS records against COMMAND and compare every case's status: exit 0
    /// REPRODUCED, 1 a status differs or COMMAND is not the recorded implementation, 2 nothing
    /// could be checked.
    ///
    /// It prints the recorded command and identity first. COMMAND (or the adapter's command)
    /// must be the implementation RESULTS records: its executable's SHA-256, and that of every
    /// file its arguments name (a script, a configuration), are compared with the recorded ones
    /// before anything runs; paths may differ, bytes may not. Without COMMAND only the
    /// reference's own claims are re-run: a claim recorded with the reference in process, or
    /// with `agentconf impl` of this very build (`--implementation reference-process`); any
    /// other claim is refused with exit 2 and the recorded command to give after `--`.
    ///
    /// With --signed-by SIGNERS it first checks RESULTS.sig (or --signature): an SSH signature of
    /// the file's exact bytes by a key SIGNERS allows, and names the signer; then the seal and
    /// the corpus. Without a command it then stops, having run nothing (SIGNED, exit 0): a
    /// signature shows who vouched for the bytes, not that the run was honest, which only a
    /// re-run shows. With a command it also re-runs, as above.
    #[command(after_help = EXIT_CLAIM)]
    Verify(ClaimVerifyArgs),
    /// Sign an existing results file: writes RESULTS.sig (SSHSIG, namespace
    /// `agentconf-results`, over its exact bytes), and with --attestation an in-toto attestation
    /// of it. RESULTS must be whole and of this agentconf's corpus.
    #[command(after_help = EXIT_CLAIM_SIGN)]
    Sign(ClaimSignArgs),
}

#[derive(Args, Debug)]
pub struct ClaimSignArgs {
    /// The results file to sign.
    pub results: PathBuf,
    /// An OpenSSH Ed25519 private key file without a passphrase (default: the environment
    /// variable AGENTCONF_SIGNING_KEY, a key file's path or the key's text).
    #[arg(long, value_name = "KEY")]
    pub key: Option<PathBuf>,
    /// Also write an in-toto Statement v1 of RESULTS in a DSSE envelope signed with the key.
    #[arg(long, value_name = "FILE")]
    pub attestation: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ClaimVerifyArgs {
    /// The results file of the claim.
    pub results: PathBuf,
    /// The command of the implementation, after `--`.
    #[arg(last = true)]
    pub command: Vec<String>,
    /// The adapter the claim was made with: required when RESULTS records one, and its SHA-256
    /// must be the one recorded.
    #[arg(long)]
    pub adapter: Option<PathBuf>,
    /// The expected-failures file the claim was made with (`run --xfail FILE`): required when
    /// RESULTS records one, and its SHA-256 must be the one recorded.
    #[arg(long, value_name = "FILE")]
    pub xfail: Option<PathBuf>,
    /// Run AER-1 vectors through `IMPL serve`, as the claim may have.
    #[arg(long)]
    pub persistent: bool,
    /// Parallel workers, at least 1, at most 256 and the number of cases (default: the number of
    /// cores).
    #[arg(long)]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Per-vector timeout in seconds.
    #[arg(long, default_value_t = agentconf_harness::DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Where to write the new results file.
    #[arg(long, default_value = "agentconf-claim-results.jsonl")]
    pub out: PathBuf,
    /// Run even when COMMAND is not the implementation RESULTS records (another executable,
    /// or a file of the command with other bytes): the result line then says so. For
    /// re-checking a claim against a new build of the same implementation.
    #[arg(long)]
    pub allow_different_implementation: bool,
    /// Check RESULTS.sig (or --signature) first: an SSH signature of the file's exact bytes by a
    /// key SIGNERS allows (an OpenSSH allowed_signers file, or a public key file). Without a
    /// command nothing is re-run.
    #[arg(long, value_name = "SIGNERS")]
    pub signed_by: Option<PathBuf>,
    /// The signature file, when it is not RESULTS.sig.
    #[arg(long, value_name = "SIG", requires = "signed_by")]
    pub signature: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use clap::CommandFactory;

    use super::Cli;

    /// Every command of the tool, by its path of subcommand names (`["report", "diff"]`); the
    /// generated `help` subcommands left out.
    fn commands() -> Vec<(Vec<String>, clap::Command)> {
        fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<(Vec<String>, clap::Command)>) {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let mut here = path.to_vec();
                here.push(sub.get_name().to_string());
                out.push((here.clone(), sub.clone()));
                walk(sub, &here, out);
            }
        }
        let mut out = Vec::new();
        walk(&Cli::command(), &[], &mut out);
        out
    }

    /// The options a command's help lists, by long name, with the values each takes when it
    /// lists them.
    fn options(cmd: &clap::Command) -> BTreeMap<String, BTreeSet<String>> {
        cmd.get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| {
                // A flag's `true` and `false` are no values a synopsis lists.
                let values = match a.get_action().takes_values() {
                    true => a
                        .get_possible_values()
                        .iter()
                        .filter(|v| !v.is_hide_set())
                        .map(|v| v.get_name().to_string())
                        .collect(),
                    false => BTreeSet::new(),
                };
                a.get_long().map(|l| (l.to_string(), values))
            })
            .filter(|(l, _)| l != "help" && l != "version")
            .collect()
    }

    #[test]
    fn every_command_states_its_exit_codes() {
        let top = Cli::command().render_long_help().to_string();
        assert!(top.contains("each command's help states its own"), "{top}");
        for (path, cmd) in commands() {
            let help = cmd
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                help.starts_with("Exit codes"),
                "`agentconf {}` --help states no exit codes",
                path.join(" ")
            );
        }
    }

    /// The lists in the help come from the tables they name: every suite, every operation of
    /// the contract, every report format (the diff's own three).
    #[test]
    fn help_lists_come_from_their_tables() {
        let find = |path: &[&str]| {
            commands()
                .into_iter()
                .find(|(p, _)| p.iter().map(String::as_str).eq(path.iter().copied()))
                .map(|(_, c)| c)
                .unwrap_or_else(|| panic!("no command {path:?}"))
        };
        let suites = &options(&find(&["vectors", "list"]))["suite"];
        let all: BTreeSet<String> = agentconf_contract::vector::Suite::ALL
            .map(|s| s.as_str().to_string())
            .into();
        assert_eq!(suites, &all);
        let implementation = find(&["impl"]).render_long_help().to_string();
        for op in agentconf_contract::call::Operation::ALL {
            assert!(implementation.contains(op.as_str()), "{implementation}");
        }
        let formats = &options(&find(&["report"]))["format"];
        assert_eq!(formats.len(), ReportFormat::ALL.len());
        let diff = &options(&find(&["report", "diff"]))["format"];
        let expected: BTreeSet<String> = ["text", "json", "markdown"].map(String::from).into();
        assert_eq!(diff, &expected);
        // `report diff` is a command of its own: its options are not `report`'s.
        assert!(options(&find(&["report", "diff"])).contains_key("old-corpus"));
        assert!(!options(&find(&["report"])).contains_key("old-corpus"));
    }

    use super::ReportFormat;

    /// One command's synopsis in the README: the options it names, each with the values it
    /// lists (`--grading strict|loose`: `strict`, `loose`; none when it names a placeholder).
    type Synopsis = BTreeMap<String, BTreeSet<String>>;

    /// The README's synopses: every line of a code block that starts with `agentconf ` and
    /// names a placeholder (`FILE`, `[--jobs N]`), with the indented lines after it, comments
    /// (`# …`) left out; by command path. An example that runs as written names none.
    fn readme_synopses(readme: &str) -> BTreeMap<Vec<String>, Synopsis> {
        let mut out: BTreeMap<Vec<String>, Synopsis> = BTreeMap::new();
        let mut in_code = false;
        let mut current: Option<Vec<Vec<String>>> = None;
        for line in readme.lines() {
            if line.starts_with("```") {
                in_code = !in_code;
                current = None;
                continue;
            }
            if !in_code {
                continue;
            }
            let text = line.split(" #").next().unwrap_or("");
            let text = if text.trim_start().starts_with('#') {
                ""
            } else {
                text
            };
            let placeholder = text.contains('[')
                || text
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            let body = if let Some(rest) = text.strip_prefix("agentconf ") {
                if !placeholder {
                    current = None;
                    continue;
                }
                let words: Vec<&str> = rest
                    .split_whitespace()
                    .take_while(|w| {
                        w.chars()
                            .all(|c| c.is_ascii_lowercase() || c == '-' || c == '|')
                            && !w.starts_with('-')
                    })
                    .collect();
                // `grp close|recover …` is the synopsis of both.
                let mut paths: Vec<Vec<String>> = vec![Vec::new()];
                for w in words {
                    paths = paths
                        .iter()
                        .flat_map(|p| {
                            w.split('|').map(move |alt| {
                                let mut p = p.clone();
                                p.push(alt.to_string());
                                p
                            })
                        })
                        .collect();
                }
                current = Some(paths);
                text
            } else if line.starts_with(' ') && current.is_some() {
                text
            } else {
                current = None;
                continue;
            };
            let tokens: Vec<&str> = body.split_whitespace().collect();
            for (i, t) in tokens.iter().enumerate() {
                let t = t.trim_start_matches('[');
                let Some(name) = t.strip_prefix("--") else {
                    continue;
                };
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                if name.is_empty() {
                    continue;
                }
                let values: BTreeSet<String> = tokens
                    .get(i + 1)
                    .filter(|v| v.contains('|') && !v.starts_with('-'))
                    .map(|v| {
                        v.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                            .split('|')
                            .filter(|v| !v.is_empty())
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                for path in current.iter().flatten() {
                    out.entry(path.clone())
                        .or_default()
                        .entry(name.clone())
                        .or_default()
                        .extend(values.iter().cloned());
                }
            }
            if let Some(paths) = &current {
                for path in paths {
                    out.entry(path.clone()).or_default();
                }
            }
        }
        out
    }

    /// The README's synopses and the help list the same options and values, for every command
    /// the tool has (the `help` subcommands aside): neither can gain or lose one alone.
    #[test]
    fn the_readme_and_the_help_list_the_same_options() {
        let readme = include_str!("../../../README.md");
        let synopses = readme_synopses(readme);
        let mut problems = Vec::new();
        let commands = commands();
        for (path, cmd) in &commands {
            let name = path.join(" ");
            // A group of subcommands with no option of its own: its leaves have the synopses.
            if cmd.has_subcommands() && options(cmd).is_empty() {
                continue;
            }
            let Some(synopsis) = synopses.get(path) else {
                problems.push(format!("README.md has no synopsis of `agentconf {name}`"));
                continue;
            };
            let help = options(cmd);
            for (option, values) in &help {
                match synopsis.get(option) {
                    None => problems.push(format!(
                        "README.md's synopsis of `agentconf {name}` lacks --{option}"
                    )),
                    // Values are compared where the help lists them (`--store memory|sqlite:PATH`
                    // takes any text).
                    Some(listed)
                        if !listed.is_empty() && !values.is_empty() && listed != values =>
                    {
                        problems.push(format!(
                            "README.md lists `agentconf {name} --{option}` {listed:?}; the help \
                             {values:?}"
                        ))
                    }
                    Some(_) => {}
                }
            }
            for option in synopsis.keys().filter(|o| !help.contains_key(*o)) {
                problems.push(format!(
                    "README.md names `agentconf {name} --{option}`, which the help does not list"
                ));
            }
        }
        for path in synopses.keys() {
            if !commands.iter().any(|(p, _)| p == path) {
                problems.push(format!(
                    "README.md has a synopsis of `agentconf {}`, which is no command",
                    path.join(" ")
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
