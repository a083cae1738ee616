#!/usr/bin/env bash
# agentconf-ci.sh: the one CI step. The GitHub Action (action.yml) and the GitLab template
# (integrations/gitlab/agentconf.gitlab-ci.yml) both call it; it runs as well by hand.
#
# It runs `agentconf run` on the vendor's implementation, writes every output (even when the
# verdict is FAIL), and exits per the verdict:
#
#   DIR/agentconf-results.jsonl  the results file (the product; every other output derives from it)
#   DIR/agentconf-report.html    the self-contained HTML report
#   DIR/agentconf-report.txt     the text report (its first line carries the verdict)
#   DIR/agentconf-summary.md     Markdown, also appended to $GITHUB_STEP_SUMMARY when that is set
#   DIR/agentconf-junit.xml      JUnit XML, for CI test reports
#   DIR/agentconf-badge.json     a shields.io endpoint badge (JSON, not an image: `report --format
#                                badge` writes the endpoint a shields.io URL points at)
#
# Inputs (environment variables):
#   AGENTCONF            the agentconf binary, a path or a name on PATH (default: agentconf)
#   AGENTCONF_COMMAND    the implementation's command line, as given after `agentconf run --`;
#                        split into words by xargs' rules (quotes '…' "…" and \ work, but a
#                        backslash inside double quotes is kept as it is, not an escape as in
#                        a shell; nothing is expanded: no variables, globs or substitutions)
#   AGENTCONF_ADAPTER    an adapter file (CONTRACT.md section 12); at least one of the two
#   AGENTCONF_ARGS       further `agentconf run` arguments, split the same way
#                        (e.g. --include aer1/timeline/ --timeout 30); not --out or --html
#   AGENTCONF_OUT_DIR    where the outputs go (default: agentconf-out; created if missing)
#   AGENTCONF_REQUIRE    the least verdict that passes: conforms, known-failures, in-scope
#                        (every case of the scope the adapter declares ran and passed) or
#                        partial (default: partial, which fails on FAIL and NOTHING TESTED only)
#   AGENTCONF_EXIT_ZERO  true: exit 0 whatever the verdict once everything is written
#                        (default: false)
#
# Exit status: 0 the verdict is at least AGENTCONF_REQUIRE (or AGENTCONF_EXIT_ZERO is true);
# 1 it is not; 2 a configuration error, no results file, or a results file agentconf refuses;
# 130 the run was interrupted (what ran is published). 2 and 130 are never turned into 0 by
# AGENTCONF_EXIT_ZERO.
#
# With GitHub Actions, the outputs `verdict` and `results-file` go to $GITHUB_OUTPUT.
set -euo pipefail

die() {
    printf 'agentconf-ci: %s\n' "$*" >&2
    exit 2
}

agentconf=${AGENTCONF:-agentconf}
command_line=${AGENTCONF_COMMAND:-}
adapter=${AGENTCONF_ADAPTER:-}
extra_args=${AGENTCONF_ARGS:-}
out_dir=${AGENTCONF_OUT_DIR:-agentconf-out}
require=${AGENTCONF_REQUIRE:-partial}
exit_zero=${AGENTCONF_EXIT_ZERO:-false}

# Splits $1 into words by xargs' rules (quotes and backslashes; no expansion), into the array
# `words` (no namerefs or mapfile: macOS ships bash 3.2).
split_words() {
    words=()
    # Blank: no words (xargs would run printf once and yield one empty word).
    [[ -n ${1//[[:space:]]/} ]] || return 0
    local list word
    list=$(mktemp)
    if ! printf '%s' "$1" | xargs printf '%s\0' >"$list"; then
        rm -f -- "$list"
        die "cannot split into words (an unmatched quote?): $1"
    fi
    while IFS= read -r -d '' word; do
        words+=("$word")
    done <"$list"
    rm -f -- "$list"
}

# --- Check the inputs before running anything ----------------------------------------------
case $require in
    conforms | known-failures | in-scope | partial) ;;
    *) die "AGENTCONF_REQUIRE must be conforms, known-failures, in-scope or partial, not '$require'" ;;
esac
case $exit_zero in
    true | false) ;;
    *) die "AGENTCONF_EXIT_ZERO must be true or false, not '$exit_zero'" ;;
esac
command -v "$agentconf" >/dev/null 2>&1 ||
    die "AGENTCONF: cannot find the agentconf binary '$agentconf' (install it, or give its path)"
agentconf=$(command -v "$agentconf")
[[ $agentconf == /* ]] || agentconf=$PWD/$agentconf

split_words "$command_line"
impl_words=(${words[@]+"${words[@]}"})
split_words "$extra_args"
run_words=(${words[@]+"${words[@]}"})
# Running the reference by default would report agentconf's own conformance as the vendor's.
if ((${#impl_words[@]} == 0)) && [[ -z $adapter ]]; then
    die "set AGENTCONF_COMMAND (the implementation's command) or AGENTCONF_ADAPTER (an adapter \
file); to run agentconf's own reference through the contract, AGENTCONF_COMMAND='agentconf impl'"
fi
if [[ -n $adapter && ! -f $adapter ]]; then
    die "AGENTCONF_ADAPTER: no such file: $adapter"
fi
for word in ${run_words[@]+"${run_words[@]}"}; do
    case $word in
        --out | --out=* | --html | --html=* | --)
            die "AGENTCONF_ARGS: leave out '$word' (the outputs go to AGENTCONF_OUT_DIR; the \
command goes in AGENTCONF_COMMAND)" ;;
    esac
done

mkdir -p -- "$out_dir" || die "cannot create AGENTCONF_OUT_DIR $out_dir"
out_dir=$(cd -- "$out_dir" && pwd)
results=$out_dir/agentconf-results.jsonl
html=$out_dir/agentconf-report.html
text=$out_dir/agentconf-report.txt
markdown=$out_dir/agentconf-summary.md
junit=$out_dir/agentconf-junit.xml
badge=$out_dir/agentconf-badge.json
# Nothing from an earlier run may be published as this run's.
rm -f -- "$results" "$html" "$text" "$markdown" "$junit" "$badge"

# --- Run -----------------------------------------------------------------------------------
run=("$agentconf" run --out "$results" --html "$html")
[[ -z $adapter ]] || run+=(--adapter "$adapter")
run+=(${run_words[@]+"${run_words[@]}"})
((${#impl_words[@]} == 0)) || run+=(-- "${impl_words[@]}")
printf 'agentconf-ci: running'
printf ' %q' "${run[@]}"
printf '\n'
run_status=0
"${run[@]}" || run_status=$?

# 0 and 1 are verdicts, 130 an interrupted run that still wrote its results; anything else
# (2: a usage error, a bad adapter, an unwritable output) means the run itself went wrong.
if [[ ! -s $results ]]; then
    die "agentconf run wrote no results file ($results; it exited $run_status): the run \
itself failed, see its message above; nothing was tested and nothing is published"
fi
case $run_status in
    0 | 1 | 130) ;;
    *) printf 'agentconf-ci: agentconf run exited %s but wrote a results file; it is reported, \
and the step fails\n' "$run_status" >&2 ;;
esac

# --- Render every output, whatever the verdict ----------------------------------------------
# The text report first: its exit status is the verdict held to AGENTCONF_REQUIRE (0 at least
# that level, 1 below it), or 0 whatever the verdict with AGENTCONF_EXIT_ZERO; 2 a refused file.
if [[ $exit_zero == true ]]; then
    verdict_flags=(--exit-zero)
else
    verdict_flags=(--require "$require")
fi
verdict_status=0
"$agentconf" report "$results" --format text "${verdict_flags[@]}" >"$text" || verdict_status=$?
case $verdict_status in
    0 | 1) ;;
    *) die "agentconf report refused or could not read $results (it exited $verdict_status)" ;;
esac

render() {
    local format=$1 file=$2
    "$agentconf" report "$results" --format "$format" --exit-zero >"$file" ||
        die "agentconf report refused or could not read $results (--format $format)"
}
render markdown "$markdown"
render junit "$junit"
render badge "$badge"

first_line=$(head -n 1 -- "$text")
verdict=${first_line#agentconf conformance report: }
[[ $verdict != "$first_line" ]] || die "unexpected first line of the text report: $first_line"

if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    cat -- "$markdown" >>"$GITHUB_STEP_SUMMARY"
fi
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    {
        printf 'verdict=%s\n' "$verdict"
        printf 'results-file=%s\n' "$results"
    } >>"$GITHUB_OUTPUT"
fi

printf 'agentconf-ci: verdict %s; outputs in %s\n' "$verdict" "$out_dir"

# --- Exit per the verdict ------------------------------------------------------------------
# An interrupted run is published (its file says `interrupted`, its verdict at best PARTIAL) but
# never passes: `agentconf run` itself exits 130, and a PARTIAL that passes `require: partial`
# would hide that most of the corpus never ran. AGENTCONF_EXIT_ZERO does not change that: it is
# about verdicts, and this is no verdict on the corpus.
case $run_status in
    0 | 1) ;;
    130)
        printf 'agentconf-ci: failing: the run was interrupted (agentconf run exited 130); what \
ran is published, but an interrupted run never passes\n' >&2
        exit 130
        ;;
    *) exit 2 ;;
esac
if [[ $exit_zero == true ]]; then
    printf 'agentconf-ci: AGENTCONF_EXIT_ZERO=true: exiting 0 whatever the verdict\n'
elif ((verdict_status == 0)); then
    printf 'agentconf-ci: %s is at least what AGENTCONF_REQUIRE=%s asks for\n' "$verdict" "$require"
else
    printf 'agentconf-ci: failing: %s is below what AGENTCONF_REQUIRE=%s asks for\n' \
        "$verdict" "$require" >&2
fi
exit "$verdict_status"
