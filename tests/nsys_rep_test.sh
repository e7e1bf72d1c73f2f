#!/bin/sh
# .nsys-rep input: a real report captured here with nsys is exported with
# that nsys and converted, the trace lands beside the report, and a report
# nsys refuses gets one line naming it. Skipped when nsys is absent.
#   nsys_rep_test.sh NSYS_PERFETTO WORKDIR [PFTRACE_CHECK]
set -u
bin=$1 dir=$2 check=${3:-}
command -v nsys >/dev/null 2>&1 || { echo "skip: nsys not installed"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir"
fail=0
importer=/usr/lib/nsight-systems/host-linux-x64/QdstrmImporter
timeout 300 nsys profile --trace=osrt --sample=none --cpuctxsw=none --force-overwrite=true \
  -o "$dir/r" sh -c 'for i in 1 2 3; do ls / >/dev/null; sleep 0.05; done' > "$dir/log" 2>&1
if [ ! -f "$dir/r.nsys-rep" ] && [ -x "$importer" ]; then
  "$importer" -i "$dir/r.qdstrm" -o "$dir/r.nsys-rep" -f >> "$dir/log" 2>&1
fi
[ -f "$dir/r.nsys-rep" ] || { echo "skip: nsys could not capture here"; cat "$dir/log"; exit 77; }

"$bin" -q --stats "$dir/r.nsys-rep" 2> "$dir/stats" || { echo "FAIL: conversion"; cat "$dir/stats"; fail=1; }
[ -s "$dir/r.perfetto-trace" ] || { echo "FAIL: no trace beside the report"; fail=1; }
grep -q '^osrt ' "$dir/stats" || { echo "FAIL: no OS runtime rows read:"; cat "$dir/stats"; fail=1; }
if [ -n "$check" ] && [ -f "$check" ]; then
  python3 "$check" "$dir/r.perfetto-trace" > "$dir/check" || { echo "FAIL: pftrace-check"; cat "$dir/check"; fail=1; }
fi
ls "$dir" | grep -q 'report.sqlite' && { echo "FAIL: export left behind"; fail=1; }

echo "not a report" > "$dir/bad.nsys-rep"
"$bin" -q "$dir/bad.nsys-rep" 2> "$dir/err"; rc=$?
[ $rc -eq 4 ] || { echo "FAIL: refused report exit $rc"; fail=1; }
[ "$(wc -l < "$dir/err")" -eq 1 ] && grep -q "bad.nsys-rep: nsys export failed" "$dir/err" || {
  echo "FAIL: refused report message:"; cat "$dir/err"; fail=1; }
exit $fail
