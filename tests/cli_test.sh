#!/bin/sh
# The command line: help, version, usage errors and the documented exit
# statuses for bad inputs, each with a one-line message naming the file and
# no output left behind.
#   cli_test.sh NSYS_PERFETTO WORKDIR
set -u
bin=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail=0

expect() { # expect STATUS DESCRIPTION -- CMD...
  want=$1 what=$2; shift 3
  "$@" >"$dir/out" 2>"$dir/err"; got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$dir/err"; fail=1
  fi
}
one_line_naming() { # one_line_naming FILE DESCRIPTION
  if [ "$(wc -l < "$dir/err")" -ne 1 ] || ! grep -qF "$1" "$dir/err"; then
    echo "FAIL: $2: expected one line naming $1, got:"; cat "$dir/err"; fail=1
  fi
}
no_output() { # no_output DESCRIPTION
  if ls -a "$dir" | grep -q 'perfetto-trace'; then
    echo "FAIL: $1: output left behind:"; ls -a "$dir"; fail=1
  fi
}

expect 0 "--help" -- "$bin" --help
grep -q "Usage: nsys-perfetto" "$dir/out" || { echo "FAIL: --help text"; fail=1; }
grep -q "Exit status" "$dir/out" || { echo "FAIL: --help lists exit statuses"; fail=1; }
expect 0 "--version" -- "$bin" --version
grep -q "^nsys-perfetto [0-9]" "$dir/out" || { echo "FAIL: --version text"; fail=1; }

expect 2 "no input" -- "$bin"
expect 3 "two inputs, missing" -- "$bin" a.sqlite b.sqlite
expect 2 "bad --align" -- "$bin" --align sideways a.sqlite
expect 2 "unknown option" -- "$bin" --bogus x.sqlite
expect 2 "bad --kernel-names" -- "$bin" --kernel-names long x.sqlite
expect 2 "bad --compress-level" -- "$bin" --compress-level 12 x.sqlite
expect 2 "bad --min-stream-activity" -- "$bin" --min-stream-activity 120 x.sqlite
expect 2 "bad --time-range" -- "$bin" --time-range 5s:1s x.sqlite
expect 2 "bad --time-range unit" -- "$bin" --time-range 1h:2h x.sqlite
expect 2 "bad --sources" -- "$bin" --sources kernel,bogus x.sqlite
grep -q "unknown source 'bogus'" "$dir/err" || { echo "FAIL: --sources message"; fail=1; }
expect 2 "bad --gpu" -- "$bin" --gpu x x.sqlite

expect 3 "missing file" -- "$bin" "$dir/missing.sqlite"
one_line_naming "$dir/missing.sqlite" "missing file"
mkdir -p "$dir/adir.sqlite"
expect 3 "directory" -- "$bin" "$dir/adir.sqlite"
one_line_naming "$dir/adir.sqlite" "directory"
# A FIFO is refused at once, not waited on for a writer.
if mkfifo "$dir/fifo.sqlite" 2>/dev/null; then
  expect 3 "FIFO" -- timeout 20 "$bin" "$dir/fifo.sqlite"
  one_line_naming "$dir/fifo.sqlite" "FIFO"
  grep -q "not a regular file" "$dir/err" || { echo "FAIL: FIFO message"; fail=1; }
  rm -f "$dir/fifo.sqlite"
fi

: > "$dir/empty.sqlite"
expect 4 "empty file" -- "$bin" "$dir/empty.sqlite"
one_line_naming "$dir/empty.sqlite" "empty file"
echo "not a database at all, just text" > "$dir/text.sqlite"
head -c 100 "$(dirname "$0")/../samples/sample.sqlite" > "$dir/truncated.sqlite"
expect 4 "truncated SQLite" -- "$bin" "$dir/truncated.sqlite"
one_line_naming "$dir/truncated.sqlite" "truncated SQLite"
expect 4 "not SQLite" -- "$bin" "$dir/text.sqlite"
one_line_naming "$dir/text.sqlite" "not SQLite"

if command -v sqlite3 >/dev/null 2>&1 || python3 -c 'import sqlite3' 2>/dev/null; then
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.commit()" "$dir/other.sqlite"
  expect 5 "SQLite but not nsys" -- "$bin" "$dir/other.sqlite"
  one_line_naming "$dir/other.sqlite" "not nsys"
  # An nsys-looking file whose kernel table lacks required columns.
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table StringIds(id integer primary key, value text)'); c.execute('create table CUPTI_ACTIVITY_KIND_KERNEL(start integer)'); c.commit()" "$dir/nocols.sqlite"
  expect 5 "missing columns" -- "$bin" "$dir/nocols.sqlite"
  one_line_naming "$dir/nocols.sqlite" "missing columns"
  grep -q "deviceId\|end" "$dir/err" || { echo "FAIL: missing column not named"; fail=1; }
fi
no_output "bad inputs"

# Default output path: beside the input, extension replaced.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table StringIds(id integer primary key, value text)'); c.commit()" "$dir/tiny.report.sqlite"
expect 0 "minimal nsys file" -- "$bin" -q "$dir/tiny.report.sqlite"
[ -s "$dir/tiny.report.perfetto-trace" ] || { echo "FAIL: default output path"; fail=1; }
[ -s "$dir/err" ] && { echo "FAIL: -q printed:"; cat "$dir/err"; fail=1; }
expect 0 "-o" -- "$bin" -o "$dir/chosen.trace" "$dir/tiny.report.sqlite"
[ -s "$dir/chosen.trace" ] || { echo "FAIL: -o path"; fail=1; }
grep -qF "chosen.trace" "$dir/err" || { echo "FAIL: success message names the output"; fail=1; }

# A bad --nvtx-filter regex is a usage error naming the pattern.
expect 2 "bad --nvtx-filter" -- "$bin" --nvtx-filter '(' "$dir/tiny.report.sqlite"
grep -q "nvtx-filter" "$dir/err" || { echo "FAIL: bad regex message"; fail=1; }

# Unwritable destination: status 6, nothing left behind.
expect 6 "unwritable output dir" -- "$bin" -o "$dir/no/such/dir/x.perfetto-trace" "$dir/tiny.report.sqlite"
one_line_naming "$dir/no/such/dir/x.perfetto-trace" "unwritable output"

# Output path equal to the input: refused, input intact.
cp "$dir/tiny.report.sqlite" "$dir/same.sqlite"
sum_before=$(cksum < "$dir/same.sqlite")
expect 6 "output is the input" -- "$bin" -o "$dir/same.sqlite" "$dir/same.sqlite"
one_line_naming "$dir/same.sqlite" "output is the input"
[ "$(cksum < "$dir/same.sqlite")" = "$sum_before" ] || { echo "FAIL: input modified"; fail=1; }

# A file another process holds an exclusive lock on still converts: the
# input is opened immutable, without taking or waiting for locks.
python3 - "$dir/tiny.report.sqlite" "$dir/locked.ready" "$dir/locked.done" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("begin exclusive")
open(sys.argv[2], "w").close()
for _ in range(200):
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.05)
c.execute("rollback")
PY
locker=$!
for _ in $(seq 100); do [ -e "$dir/locked.ready" ] && break; sleep 0.05; done
[ -e "$dir/locked.ready" ] || { echo "FAIL: could not lock the input"; fail=1; }
expect 0 "locked input" -- "$bin" -q -o "$dir/locked.trace" "$dir/tiny.report.sqlite"
[ -s "$dir/locked.trace" ] || { echo "FAIL: locked input gave no trace"; fail=1; }
touch "$dir/locked.done"; wait $locker

# An unreadable input: status 3, one line naming it. Root reads any file,
# so as root the check runs as the unprivileged user "nobody" where that
# user can reach the binary and the file; otherwise it says it is skipped.
cp "$dir/tiny.report.sqlite" "$dir/unreadable.sqlite"
chmod 000 "$dir/unreadable.sqlite"
as_user=""
if [ "$(id -u)" = 0 ]; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
  chmod 777 "$dir"
  $as_user test -x "$bin" && $as_user test -w "$dir" || as_user=skip
fi
if [ "$as_user" = skip ]; then
  echo "note: unreadable-input check skipped (user nobody cannot reach $bin or $dir)"
else
  expect 3 "unreadable input" -- $as_user "$bin" -o "$dir/unreadable.trace" "$dir/unreadable.sqlite"
  one_line_naming "$dir/unreadable.sqlite" "unreadable input"
  [ -e "$dir/unreadable.trace" ] && { echo "FAIL: unreadable input left output"; fail=1; }
fi
chmod 644 "$dir/unreadable.sqlite"

exit $fail
