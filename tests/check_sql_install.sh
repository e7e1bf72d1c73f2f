#!/bin/sh
# cmake --install puts the nsys PerfettoSQL package in
# PREFIX/share/nsys-perfetto/sql/nsys (docs/sql.md), and trace_processor_shell
# loads it from there: every module INCLUDEs on a converted report.
#   check_sql_install.sh BUILD_DIR WORKDIR NSYS_PERFETTO TRACE_PROCESSOR_SHELL REPORT.sqlite.gz
set -eu
build=$1 dir=$2 nsysp=$3 tp=$4 report=$5
rm -rf "$dir" && mkdir -p "$dir"
cmake --install "$build" --prefix "$dir/prefix" >/dev/null
pkg="$dir/prefix/share/nsys-perfetto/sql/nsys"
for m in gpus cuda nvtx; do
  [ -f "$pkg/$m.sql" ] || { echo "FAIL: $pkg/$m.sql not installed"; exit 1; }
done
{ [ -x "$tp" ] && [ -f "$report" ]; } || { echo "skip: no trace_processor_shell or report"; exit 77; }
gzip -dc "$report" > "$dir/report.sqlite"
"$nsysp" -q "$dir/report.sqlite" -o "$dir/report.perfetto-trace"
: > "$dir/q.sql"
for f in "$pkg"/*.sql; do
  m=$(basename "$f" .sql)
  echo "INCLUDE PERFETTO MODULE nsys.$m;" >> "$dir/q.sql"
done
echo "SELECT (SELECT count(*) FROM nsys_kernels) AS k, (SELECT count(*) FROM nsys_gpus) AS g;" >> "$dir/q.sql"
out=$("$tp" --add-sql-package "$pkg" -q "$dir/q.sql" "$dir/report.perfetto-trace" 2>"$dir/tp.err") ||
  { echo "FAIL: trace_processor_shell with the installed package:"; tail -5 "$dir/tp.err"; exit 1; }
echo "$out" | tail -1 | grep -q '^[1-9][0-9]*,[1-9]' || { echo "FAIL: no kernels or GPUs: $out"; exit 1; }
echo ok
