#!/bin/sh
# Builds the fuzzers and runs each for SECONDS (default 60):
#
#   tests/fuzz/run.sh [SECONDS]
#
# Configures a separate build directory (build-fuzz/ beside build/, or
# $NSYSP_FUZZ_BUILD) with clang, builds fuzz_convert, fuzz_rows and
# fuzz_serve (libFuzzer + ASan + UBSan), generates the seeds (make_seeds.sh,
# serve_seeds.py), then runs them one after the other, each for SECONDS,
# with -timeout=10 -rss_limit_mb=2048 (fuzz_serve: with the dictionary
# tests/fuzz/serve.dict). The corpora grow in
# build-fuzz/corpus/<target>/ and are reused by the next run; crash, leak,
# timeout and OOM inputs land in build-fuzz/findings/<target>/. It prints,
# per target, the executions, exec/s, coverage and every finding, and exits
# 1 if any target found something.
#
# Environment: NSYSP_FUZZ_BUILD (build directory), NSYSP_FUZZ_TARGETS
# (default "fuzz_convert fuzz_rows fuzz_serve"), NSYSP_FUZZ_JOBS (parallel fuzzing
# processes per target, default 1), NSYSP_FUZZ_ARGS (extra libFuzzer flags),
# NSYSP_FUZZ_SKIP_KNOWN=1 (set the known, still open findings aside: the
# UBSan suppressions of tests/fuzz/known-ub.supp, plus the harness checks
# named in NSYSP_FUZZ_IGNORE, see fuzz_common.c; so that a run looks for new
# ones).
# Needs clang with libFuzzer (Debian: apt-get install -y clang, which brings
# libclang-rt-14-dev), cmake, and the project's own build dependencies.
set -eu

SECONDS_EACH=${1:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${NSYSP_FUZZ_BUILD:-$ROOT/build-fuzz}
TARGETS=${NSYSP_FUZZ_TARGETS:-fuzz_convert fuzz_rows fuzz_serve}
JOBS=${NSYSP_FUZZ_JOBS:-1}

if ! command -v clang >/dev/null 2>&1; then
    echo "run.sh: clang not found (Debian: apt-get install -y clang libclang-rt-14-dev)" >&2
    exit 2
fi

echo "== configure and build ($BUILD)"
mkdir -p "$BUILD"
BUILD_LOG="$BUILD/build.log"
CC=clang cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$BUILD_LOG" 2>&1 ||
    { cat "$BUILD_LOG"; exit 1; }
cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" >>"$BUILD_LOG" 2>&1 ||
    { tail -50 "$BUILD_LOG"; exit 1; }

# The harnesses' temporary directories go here, so that a crash (which
# skips their clean-up) leaves nothing behind once this script ends. The
# library fsyncs each trace it writes: on a disk that costs more than the
# conversion, so use tmpfs when there is one.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    TMPDIR="/dev/shm/nsysp-fuzz-run-$$"
else
    TMPDIR="$BUILD/tmp/run-$$"
fi
export TMPDIR
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT INT TERM
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ "${NSYSP_FUZZ_SKIP_KNOWN:-0}" = 1 ]; then
    UBSAN_OPTIONS="$UBSAN_OPTIONS:suppressions=$ROOT/tests/fuzz/known-ub.supp"
    echo "== known findings set aside: ${NSYSP_FUZZ_IGNORE:-no check}, $ROOT/tests/fuzz/known-ub.supp"
fi

status=0
for t in $TARGETS; do
    corpus="$BUILD/corpus/$t"
    findings="$BUILD/findings/$t"
    log="$BUILD/$t.log"
    mkdir -p "$corpus" "$findings"
    case $t in
    fuzz_convert) seeds="$BUILD/seeds/convert"; extra="-max_len=131072" ;;
    # -len_control=0: libFuzzer would otherwise keep inputs to one or two
    # edits for a long while (fuzz_rows runs tens of inputs a second).
    fuzz_rows) seeds="$BUILD/seeds/rows"; extra="-max_len=1028 -len_control=0" ;;
    # What clients send to the server: up to 64 KiB (the server's upload
    # limit in fuzz_serve is 16 KiB), HTTP and multipart tokens.
    fuzz_serve) seeds="$BUILD/seeds/serve"; extra="-max_len=65536 -dict=$ROOT/tests/fuzz/serve.dict" ;;
    *) echo "run.sh: unknown target $t" >&2; exit 2 ;;
    esac
    echo "== $t: ${SECONDS_EACH}s, log $log"
    before=$(ls "$findings" | wc -l)
    rc=0
    # -fork keeps fuzzing after a finding and writes each one to findings/.
    (cd "$findings" && "$BUILD/$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -artifact_prefix="$findings/" $extra ${NSYSP_FUZZ_ARGS:-} \
        "$corpus" "$seeds") >"$log" 2>&1 || rc=$?
    # A summary from libFuzzer's last status line:
    #   #<executions>: cov: <edges> ft: <features> corp: <inputs> exec/s <rate> ...
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    echo "   last status: ${last:-none}"
    echo "$last" | awk '{sub(/^#/, "", $1); sub(/:$/, "", $1);
        for (i = 1; i <= NF; i++) { if ($i == "cov:") cov = $(i + 1); if ($i == "exec/s") rate = $(i + 1) }
        printf "   executions: %s   exec/s: %s   coverage (edges): %s\n", $1, rate, cov }'
    echo "   corpus: $(ls "$corpus" | wc -l) inputs in $corpus"
    after=$(ls "$findings" | wc -l)
    if [ "$after" -gt "$before" ] || [ "$rc" -ne 0 ]; then
        echo "   FINDINGS (exit $rc):"
        ls -1 "$findings" | sed "s|^|   $findings/|"
        grep -E '^(SUMMARY|fuzz: FAILED CHECK|==[0-9]+==ERROR)' "$log" | sort | uniq -c |
            sed 's/^/   /' || true
        status=1
    else
        echo "   no findings"
    fi
done
exit $status
