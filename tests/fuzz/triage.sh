#!/bin/sh
# Replays every finding of a fuzz target one by one and groups them by
# cause: the failed check or sanitizer report, and the first frame in the
# project's sources.
#
#   tests/fuzz/triage.sh BUILD/fuzz_rows BUILD/findings/fuzz_rows
#
# Prints one line per input ("<cause> | <frame> | <file>"), then the causes
# with their counts. Set NSYSP_FUZZ_IGNORE as for the fuzzers to check what
# remains once known findings are set aside.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 FUZZ_BINARY FINDINGS_DIR" >&2
    exit 2
fi
BIN=$1
DIR=$2
TMPDIR=${TMPDIR:-/tmp}
export TMPDIR
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
out=$(mktemp "$TMPDIR/nsysp-triage-XXXXXX")
trap 'rm -f "$out" "$out.log"' EXIT INT TERM
for f in "$DIR"/*; do
    [ -f "$f" ] || continue
    timeout 60 "$BIN" -timeout=20 -rss_limit_mb=2048 "$f" >"$out.log" 2>&1
    rc=$?
    cause=$(grep -a -m1 -E 'fuzz: FAILED CHECK|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer: (timeout|out-of-memory))' "$out.log" |
        sed -E 's/^==[0-9]+==//; s/0x[0-9a-f]+/0x?/g; s|/[^ ]*/nsysp-fuzz-[^ ]*/input-[0-9]+\.sqlite|INPUT|g;
            s/(packet|at|one at) [0-9]+/\1 N/g; s/[0-9]{4,}/N/g' | cut -c1-160)
    frame=$(grep -a -E '^ +#[0-9]+ .* in .* /.*/src/' "$out.log" | head -1 |
        sed -E 's/.* in ([^ ]+) .*\/src\/([^ ]+).*/\1 src\/\2/')
    [ -n "$cause" ] || cause="passes now (exit $rc)"
    echo "$cause | ${frame:--} | $f" | tee -a "$out"
done
echo "== causes"
cut -d'|' -f1,2 "$out" | sort | uniq -c | sort -rn
