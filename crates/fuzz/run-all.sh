#!/usr/bin/env bash
# Runs every fuzz target for SECONDS_PER_TARGET (default 600) in JOBS parallel streams (default 1),
# after refreshing the seed corpora; logs go to crates/fuzz/logs/<target>.log and the last line of
# each log ("Done N runs in S second(s)") is appended to crates/fuzz/logs/summary.txt with the
# commit it ran on.
#
#   crates/fuzz/run-all.sh                 # all targets, 10 minutes each
#   SECONDS_PER_TARGET=60 JOBS=2 crates/fuzz/run-all.sh timeline receipt
#
# Needs cargo-fuzz and a nightly toolchain (or RUSTC_BOOTSTRAP=1 with stable: set TOOLCHAIN=stable).
set -u
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${SECONDS_PER_TARGET:-600}
JOBS=${JOBS:-1}
TOOLCHAIN=${TOOLCHAIN:-nightly}
# No AddressSanitizer by default: the fuzzed code is safe Rust (no `unsafe` outside the harness's
# process handling, which no target reaches), and without it targets run several times faster.
# FUZZ_FLAGS="--sanitizer address" puts it back.
FUZZ_FLAGS=${FUZZ_FLAGS:---sanitizer none}
ALL="timeline receipt commitment preimage workflow grp_admission grp_session harness_result harness_persistent adapter_toml results_file json_strict"
TARGETS=${*:-$ALL}
LOGS=crates/fuzz/logs
# The commit the targets are built from (marked when the tree has uncommitted changes).
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo -dirty)
mkdir -p "$LOGS"
if [ "$TOOLCHAIN" = stable ]; then export RUSTC_BOOTSTRAP=1; CARGO="cargo"; else CARGO="cargo +$TOOLCHAIN"; fi
cargo run -q -p xtask -- fuzz-seeds
# The results_file target reads what `agentconf run` writes: seed it with two real (small) runs,
# one of the reference and one of a mutant that fails vectors.
mkdir -p crates/fuzz/corpus/results_file
cargo build -q --release -p agentconf-cli -p agentconf-mutants
target/release/agentconf run --include aer1/timeline/truncated --include grp/admission/duplicate-event/same-pair \
    --out crates/fuzz/corpus/results_file/seed-reference.jsonl > /dev/null
target/release/agentconf run \
    --include aer1/timeline/tamper --out crates/fuzz/corpus/results_file/seed-mutant.jsonl -- target/release/agentconf-mutant trusts-stored-links > /dev/null
$CARGO fuzz build --fuzz-dir crates/fuzz $FUZZ_FLAGS || exit 2

run_one() {
    local t=$1
    # -timeout: an input that takes over 10 s is a finding (a quadratic path), not patience.
    $CARGO fuzz run --fuzz-dir crates/fuzz $FUZZ_FLAGS "$t" -- \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        > "$LOGS/$t.log" 2>&1
    local rc=$?
    echo "$t exit=$rc commit=$COMMIT $(grep -E '^Done [0-9]+ runs' "$LOGS/$t.log" | tail -1)"
}
export -f run_one
export CARGO SECONDS_PER_TARGET LOGS RUSTC_BOOTSTRAP FUZZ_FLAGS COMMIT
printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'run_one {}' | tee -a "$LOGS/summary.txt"
