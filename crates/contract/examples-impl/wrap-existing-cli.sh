#!/bin/sh
# wrap-existing-cli.sh: adapt an existing verifier CLI to the agentconf implementation contract
# (crates/contract/CONTRACT.md). An EXAMPLE, not part of the suite.
#
# The hypothetical tool being wrapped:
#     someverifier check-timeline --rev N FILE
# prints "OK" or "ERROR: <message>" and exits 0 (valid) or 3 (invalid).
#
# The harness calls this script as:
#     wrap-existing-cli.sh aer1-timeline REVISION TIMELINE [COMMITMENT]
#     wrap-existing-cli.sh aer1-receipt ... | aer1-workflow ... | grp-admit ...   (-> 89)
#
# No JSON is printed, so this implementation is graded on its verdict only (loose grading).
# Set SOMEVERIFIER to point at the tool if it is not on PATH.
set -eu

tool=${SOMEVERIFIER:-someverifier}
op=${1-}

# 89 = unsupported: reported as "unsupported", never as a failure. Say why on stderr.
unsupported() { echo "wrap-existing-cli: unsupported: $*" >&2; exit 89; }

[ "$op" = aer1-timeline ] || unsupported "operation '$op'"
[ $# -ge 3 ] || { echo "usage: $0 aer1-timeline REVISION TIMELINE [COMMITMENT]" >&2; exit 2; }
[ $# -eq 3 ] || unsupported "external commitments (someverifier has no option for them)"
rev=$2 timeline=$3
case $rev in
  06 | 07 | 08 | 09) ;;             # edit to the revisions your tool really implements
  *) unsupported "revision $rev" ;;
esac

# Reorder the arguments for the tool. Its "OK"/"ERROR: ..." text goes to stderr, which the
# harness captures into the report and never interprets: standard output must stay empty
# (or be one JSON object), so the tool's text must not reach it.
status=0
"$tool" check-timeline --rev "$rev" "$timeline" >&2 || status=$?

case $status in
  0) exit 0 ;;                      # accepted
  3) exit 1 ;;                      # rejected
  1 | 89) exit 2 ;;                 # the tool's own 1 or 89 would be misread: keep it a crash
  *) exit "$status" ;;              # anything else (127: not found, 128+n: signal n) is a crash
esac
