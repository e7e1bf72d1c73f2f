#!/bin/sh
# Line coverage of src/ reached by the fuzzers' corpora (after run.sh):
#
#   tests/fuzz/coverage.sh
#
# Builds replayers of the targets with clang source-based coverage
# (build-fuzz-cov/ or $NSYSP_FUZZ_COV_BUILD, no sanitizers), replays
# build-fuzz/corpus/<target> and the seeds through them, and prints llvm-cov's
# per-file report of src/ for each target and for fuzz_convert and fuzz_rows
# together; for fuzz_serve, per file of src/web/. NSYSP_FUZZ_COV_TARGETS
# picks targets (default: all three). Needs llvm-profdata and llvm-cov
# (Debian: llvm, or the versioned llvm-14).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ=${NSYSP_FUZZ_BUILD:-$ROOT/build-fuzz}
COV=${NSYSP_FUZZ_COV_BUILD:-$ROOT/build-fuzz-cov}
TARGETS=${NSYSP_FUZZ_COV_TARGETS:-fuzz_convert fuzz_rows fuzz_serve}
PROFDATA=$(command -v llvm-profdata || command -v llvm-profdata-14)
LLVMCOV=$(command -v llvm-cov || command -v llvm-cov-14)
FLAGS="-fprofile-instr-generate -fcoverage-mapping -O0 -g"
mkdir -p "$COV"
CC=clang cmake -S "$ROOT/tests/fuzz" -B "$COV" -DNSYSP_FUZZ_REPLAY_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >"$COV/build.log" 2>&1 ||
    { cat "$COV/build.log"; exit 1; }
cmake --build "$COV" -j "$(nproc 2>/dev/null || echo 2)" >>"$COV/build.log" 2>&1 ||
    { tail -50 "$COV/build.log"; exit 1; }
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/nsysp-cov-XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT INT TERM
# Corpora grown with NSYSP_FUZZ_SKIP_KNOWN=1 hold inputs that trip known
# findings: set those checks aside, and replay each input in its own process
# (a failed check aborts, and an aborted process writes no profile).
export NSYSP_FUZZ_IGNORE="utf8,unsorted,nomem,timestamp,accounting"
for t in $TARGETS; do
    case $t in fuzz_convert) seeds=seeds/convert ;; fuzz_serve) seeds=seeds/serve ;; *) seeds=seeds/rows ;; esac
    rm -f "$COV/$t"-*.profraw
    n=0 failed=0
    for f in "$FUZZ/corpus/$t"/* "$COV/$seeds"/*; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        LLVM_PROFILE_FILE="$COV/$t-%p.profraw" "$COV/$t" "$f" >"$COV/$t.replay.log" 2>&1 ||
            failed=$((failed + 1))
    done
    "$PROFDATA" merge -sparse "$COV/$t"-*.profraw -o "$COV/$t.profdata"
    rm -f "$COV/$t"-*.profraw
    echo "== $t: $n inputs ($failed failed a check and are not counted)"
    if [ "$t" = fuzz_serve ]; then
        "$LLVMCOV" report "$COV/$t" -instr-profile="$COV/$t.profdata" "$ROOT/src/web" \
            "$ROOT/src/cli/options.c"
    else
        "$LLVMCOV" report "$COV/$t" -instr-profile="$COV/$t.profdata" "$ROOT/src" | tail -1
    fi
done
case " $TARGETS " in *" fuzz_convert "*" fuzz_rows "*) ;; *) exit 0 ;; esac
"$PROFDATA" merge -sparse "$COV/fuzz_convert.profdata" "$COV/fuzz_rows.profdata" -o "$COV/all.profdata"
echo "== fuzz_convert and fuzz_rows (per file)"
"$LLVMCOV" report "$COV/fuzz_rows" -object "$COV/fuzz_convert" -instr-profile="$COV/all.profdata" "$ROOT/src"
