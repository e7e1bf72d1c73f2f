#!/bin/sh
# Generates the fuzzers' inputs into OUTDIR (nothing binary is committed):
#
#   make_seeds.sh NSYS_FIXTURE FUZZ_PREP OUTDIR
#
#   OUTDIR/rows_base_{modern,2022,legacy}.sqlite  the reports fuzz_rows edits
#   OUTDIR/rows_base_real{1,2}.sqlite             more, when ../shared/corpus is there
#   OUTDIR/seeds/convert/*.sqlite                 seed corpus of fuzz_convert
#   OUTDIR/seeds/rows/*                           seed corpus of fuzz_rows
#
# Every report comes from nsys-fixture with a fixed seed, gets NVTX rows
# (fuzz_prep; nsys-fixture writes none) and 512-byte pages, so the same
# build always makes the same files: fuzz_rows reproducers stay valid as
# long as nsys-fixture and fuzz_prep.c do not change.
#
# nsys-fixture writes no CPU-side tables (OS runtime, scheduling, CPU
# samples, diagnostics...). When the real-report corpus is beside the
# project (../shared/corpus, or $NSYSP_FUZZ_SHARED/corpus), a few small real
# reports are cut down (the first 30 rows of each event table, only the
# tables the converter's sources name) and added as seeds and as fuzz_rows
# bases 3 and 4. Bases 0-2 keep their numbers either way.
set -eu

if [ $# -ne 3 ]; then
    echo "usage: $0 NSYS_FIXTURE FUZZ_PREP OUTDIR" >&2
    exit 2
fi
FIXTURE=$1
PREP=$2
OUT=$3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${NSYSP_FUZZ_SHARED:-$ROOT/../shared}

mkdir -p "$OUT/seeds/convert" "$OUT/seeds/rows"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nsysp-seeds-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# report NAME NVTX-FLAVOUR FIXTURE-ARGS...: fixture -> prep -> $TMP/NAME.sqlite
report() {
    name=$1
    nvtx=$2
    shift 2
    "$FIXTURE" "$@" "$TMP/raw-$name.sqlite"
    if [ "$nvtx" = none ]; then
        "$PREP" "$TMP/raw-$name.sqlite" "$TMP/$name.sqlite"
    else
        "$PREP" --nvtx "$nvtx" "$TMP/raw-$name.sqlite" "$TMP/$name.sqlite"
    fi
}

# The bases of fuzz_rows: small, but with every table and kind of row.
report modern modern --seed 7 --events 120 --gpus 2 --processes 2 --threads 2 --streams 2 \
    --graphs 1 --graph-trace --nvtx-stream-names --overlap-pct 20
report 2022 modern --schema 2022 --seed 8 --events 100 --gpus 1 --processes 2 --threads 2 \
    --streams 2 --graphs 1 --nvtx-stream-names
report legacy legacy --schema legacy --seed 9 --events 100 --gpus 2 --processes 1 --threads 2 \
    --streams 2
for b in modern 2022 legacy; do
    cp "$TMP/$b.sqlite" "$OUT/rows_base_$b.sqlite"
done

# fuzz_convert: the bases, and a few other shapes.
report negative modern --seed 11 --events 60 --gpus 1 --processes 1 --threads 1 --streams 2 \
    --negative-ts
report overlap none --seed 12 --events 80 --gpus 1 --processes 1 --threads 1 --streams 1 \
    --overlap-pct 60
report multi none --seed 13 --events 150 --gpus 2 --processes 3 --threads 2 --streams 3 \
    --graphs 2 --graph-trace
for b in modern 2022 legacy negative overlap multi; do
    cp "$TMP/$b.sqlite" "$OUT/seeds/convert/$b.sqlite"
done

# fuzz_rows: a 4-byte header (base, options, domains, reserved) and 16-byte
# edit records: op table column row(2) kind aux(2) value(8). printf with
# octal escapes only (POSIX sh).
rows() {
    printf "$2" >"$OUT/seeds/rows/$1"
}
rows base-modern '\000\003\000\000'
rows base-2022 '\001\003\000\000'
rows base-legacy '\002\003\000\000'
rows options-nogzip-activity '\000\034\000\000'
rows options-filter-domain '\000\343\011\000'
# one cell edit of each value kind on table 3, column 1, row 1
for k in 0 1 2 3 4 5 6 7 10 11 13 14 15 16; do
    rows "edit-kind-$k" "\\000\\003\\000\\000\\000\\003\\001\\001\\000\\$(printf %03o "$k")\\007\\000\\377\\377\\377\\377\\377\\377\\377\\177"
done
# duplicate rows, drop a column, view
rows dup-rows '\000\003\000\000\021\005\000\002\000\000\020\000\001\000\000\000\000\000\000\000'
rows drop-column '\000\003\000\000\024\005\002\000\000\000\000\000\000\000\000\000\000\000\000\000'
rows view '\000\003\000\000\026\005\002\000\000\000\001\000\000\000\000\000\000\000\000\000'

# Real reports, cut down, when the corpus is there.
rm -f "$OUT"/rows_base_real*.sqlite "$OUT"/seeds/convert/real-*.sqlite
if [ -d "$SHARED/corpus" ]; then
    # Table names the converter's sources mention (a superset is fine).
    grep -rhoE '"[A-Za-z][A-Za-z0-9_]{2,}' "$ROOT/src" | tr -d '"' | sort -u >"$TMP/tables.txt"
    i=0
    for r in local/nvtx_workload-sampled StellaWava__benchmarking-n-profiling-__report1 \
        NVIDIA__Fuser__report2; do
        gz="$SHARED/corpus/$r.sqlite.gz"
        [ -f "$gz" ] || continue
        gunzip -c "$gz" >"$TMP/real.sqlite"
        name=$(basename "$r")
        "$PREP" --shrink 30 --tables "$TMP/tables.txt" "$TMP/real.sqlite" \
            "$OUT/seeds/convert/real-$name.sqlite"
        i=$((i + 1))
        if [ $i -le 2 ]; then
            cp "$OUT/seeds/convert/real-$name.sqlite" "$OUT/rows_base_real$i.sqlite"
            rows "base-real$i" "\\00$((2 + i))\\003\\000\\000"
        fi
    done
fi

echo "make_seeds: $(ls "$OUT/seeds/convert" | wc -l) convert seeds, $(ls "$OUT/seeds/rows" | wc -l) rows seeds, bases in $OUT"
