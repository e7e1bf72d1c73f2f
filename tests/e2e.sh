#!/bin/sh
# End-to-end conversion checks (see check_report.py for what is asserted).
#   e2e.sh fixture SHAPE NSYS_FIXTURE NSYS_PERFETTO TRACE_DUMP PFTRACE_CHECK OUTDIR
#     (SHAPE modern, 2022, legacy; graphs: modern with CUDA graphs and
#      NVTX-named streams; everything: every table the generator writes)
#   e2e.sh report  REPORT.sqlite      NSYS_PERFETTO TRACE_DUMP PFTRACE_CHECK OUTDIR
#   e2e.sh corpus  REPORT.sqlite.gz   NSYS_PERFETTO TRACE_DUMP PFTRACE_CHECK OUTDIR
# Exits 77 (skipped) when what it needs from ../shared is absent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 what=$2
case $mode in
  fixture) gen=$3; shift 3 ;;
  *) shift 2 ;;
esac
bin=$1 dump=$2 check=$3 out=$4
mkdir -p "$out"

if [ ! -f "$check" ]; then
  if [ "$mode" = corpus ]; then echo "skip: $check absent"; exit 77; fi
  echo "note: pftrace-check absent, checking rows only"
  check=
fi

case $mode in
  fixture)
    report=$out/fixture-$what.sqlite
    if [ "$what" = graphs ]; then
      "$gen" --seed 5 --events 20000 --graphs 40 --graph-trace --nvtx-stream-names "$report"
    elif [ "$what" = everything ]; then
      "$gen" --seed 6 --events 20000 --all-tables --osrt --sched 4 --samples 500 "$report"
    else
      "$gen" --schema "$what" --seed 7 --events 20000 --overlap-pct 3 --negative-ts "$report"
    fi ;;
  report)
    report=$what ;;
  corpus)
    [ -f "$what" ] || { echo "skip: $what absent"; exit 77; }
    report=$out/$(basename "$what" .gz)
    [ -s "$report" ] || { gzip -dc "$what" > "$report.part" && mv "$report.part" "$report"; } ;;
esac

trace=$out/$(basename "$report" .sqlite).perfetto-trace
rm -f "$trace"
"$bin" -q --stats -o "$trace" "$report" 2> "$trace.stats"
if [ "$mode" = corpus ] && [ -n "${NSYSP_SANITIZED:-}" ]; then
  # A sanitizer build: what it adds is the conversion and the decoder run
  # under it. The Python checks of the same trace ran in the plain build.
  "$dump" "$trace" > /dev/null
  exit 0
fi
python3 "$here/check_report.py" "$report" "$trace" "$dump" "$check" "$trace.stats"
if [ "$mode" != corpus ]; then
  python3 "$here/check_cuda_details.py" "$report" "$trace" "$dump"
fi
