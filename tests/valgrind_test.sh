#!/bin/sh
# valgrind memcheck on one real report: no invalid access, no leak.
#   valgrind_test.sh VALGRIND NSYS_PERFETTO REPORT.sqlite.gz WORKDIR
set -eu
valgrind=$1 bin=$2 gz=$3 dir=$4
[ -f "$gz" ] || { echo "skip: $gz absent"; exit 77; }
mkdir -p "$dir"
report=$dir/$(basename "$gz" .gz)
[ -s "$report" ] || { gzip -dc "$gz" > "$report.part" && mv "$report.part" "$report"; }
exec "$valgrind" --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 -q \
  "$bin" -q -o "$report.perfetto-trace" "$report"
