#!/bin/sh
# Output faults and interruptions: a full disk, /dev/full, an output that
# is a directory, an existing output (replaced only on success), SIGINT and
# SIGTERM during a conversion. Each fails with its status and one line, and
# leaves no partial or temporary file and the previous output intact.
#   faults_test.sh NSYS_PERFETTO NSYS_FIXTURE WORKDIR
set -u
bin=$1 gen=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail=0
report=$dir/report.sqlite
"$gen" --seed 2 --events 20000 "$report" || exit 1

leftovers() { # leftovers DIR DESCRIPTION: no temporary files may remain
  if ls -A "$1" | grep -q '\.tmp-'; then
    echo "FAIL: $2: temporary file left in $1:"; ls -A "$1"; fail=1
  fi
}

# An existing output survives a failed conversion and is replaced by a good one.
out=$dir/keep.perfetto-trace
echo "previous trace" > "$out"
: > "$dir/empty.sqlite"
"$bin" -q -o "$out" "$dir/empty.sqlite" 2>/dev/null
[ "$(cat "$out")" = "previous trace" ] || { echo "FAIL: existing output changed by a failed run"; fail=1; }
"$bin" -q -o "$out" "$report" || { echo "FAIL: conversion"; fail=1; }
[ "$(head -c 2 "$out" | od -An -tx1 | tr -d ' ')" = "1f8b" ] || { echo "FAIL: output not replaced by a gzip trace"; fail=1; }
leftovers "$dir" "existing output"

# /dev/full: written directly (never renamed over), fails with status 6.
"$bin" -q -o /dev/full "$report" 2>"$dir/err"; rc=$?
[ $rc -eq 6 ] || { echo "FAIL: /dev/full exit $rc"; fail=1; }
grep -q "/dev/full: cannot write output" "$dir/err" || { echo "FAIL: /dev/full message:"; cat "$dir/err"; fail=1; }
[ -c /dev/full ] || { echo "FAIL: /dev/full is no longer a device"; fail=1; }

# An output path that is a directory.
mkdir -p "$dir/adir"
"$bin" -q -o "$dir/adir" "$report" 2>"$dir/err"; rc=$?
[ $rc -eq 6 ] || { echo "FAIL: directory output exit $rc"; fail=1; }

# A full disk (a 64 KiB tmpfs; needs root and mount, else skipped).
mkdir -p "$dir/tiny"
if mount -t tmpfs -o size=64k tmpfs "$dir/tiny" 2>/dev/null; then
  echo "previous trace" > "$dir/tiny/full.perfetto-trace"
  "$bin" -q -o "$dir/tiny/full.perfetto-trace" "$report" 2>"$dir/err"; rc=$?
  [ $rc -eq 6 ] || { echo "FAIL: full disk exit $rc"; fail=1; }
  grep -q "No space left on device" "$dir/err" || { echo "FAIL: full disk message:"; cat "$dir/err"; fail=1; }
  [ "$(wc -l < "$dir/err")" -eq 1 ] || { echo "FAIL: full disk: more than one line"; fail=1; }
  [ "$(cat "$dir/tiny/full.perfetto-trace")" = "previous trace" ] || { echo "FAIL: full disk changed the old output"; fail=1; }
  leftovers "$dir/tiny" "full disk"
  umount "$dir/tiny"
else
  echo "note: cannot mount a tmpfs here; full-disk case skipped"
fi

# SIGINT and SIGTERM during a conversion long enough to be interrupted.
big=$dir/big.sqlite
"$gen" --seed 3 --events 1000000 "$big" || exit 1
for sig in INT TERM; do
  out=$dir/sig.perfetto-trace
  echo "previous trace" > "$out"
  "$bin" -q -o "$out" "$big" 2>"$dir/err" &
  pid=$!
  sleep 1
  kill -$sig $pid
  wait $pid; rc=$?
  [ $rc -eq 7 ] || { echo "FAIL: SIG$sig exit $rc (expected 7)"; cat "$dir/err"; fail=1; }
  grep -q "interrupted" "$dir/err" || { echo "FAIL: SIG$sig message:"; cat "$dir/err"; fail=1; }
  [ "$(cat "$out")" = "previous trace" ] || { echo "FAIL: SIG$sig changed the old output"; fail=1; }
  leftovers "$dir" "SIG$sig"
done

exit $fail
