#!/bin/sh
# Runs browser_test.js: skipped (77) without node, chromium, playwright-core
# or ../shared (the corpus report, pftrace-check).
#   browser_test.sh NSYS_PERFETTO REPORT.sqlite.gz PFTRACE_CHECK WORKDIR [big]
set -u
bin=$1 gz=$2 check=$3 work=$4 mode=${5:-}
command -v node >/dev/null 2>&1 || { echo "skip: node absent"; exit 77; }
[ -f "$gz" ] || { echo "skip: $gz absent"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
report=$work/$(basename "$gz" .gz)
gzip -dc "$gz" > "$report" || exit 1
exec node "$(dirname "$0")/browser_test.js" "$bin" "$report" "$check" "$work" $mode
