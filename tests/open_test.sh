#!/bin/sh
# --open: the trace is served on loopback with the headers ui.perfetto.dev
# needs (CORS for its origin), the printed link points at it, a preflight
# is answered, the download is the trace byte for byte, and the tool exits
# 0 once it was fetched; --perfetto-ui changes the link and the origin.
# Uses curl.
#   open_test.sh NSYS_PERFETTO REPORT.sqlite WORKDIR
set -u
bin=$1 report=$2 dir=$3
command -v curl >/dev/null || { echo "skip: curl absent"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir"
trace=$dir/open.perfetto-trace
"$bin" -q --open -o "$trace" "$report" > "$dir/out" 2> "$dir/err" &
pid=$!
fail=0
for _ in $(seq 100); do
  grep -q '^https://ui.perfetto.dev/#!/?url=' "$dir/out" && break
  sleep 0.1
done
url=$(sed -n 's|^https://ui.perfetto.dev/#!/?url=||p' "$dir/out")
case $url in
  http://127.0.0.1:*/open.perfetto-trace) ;;
  *) echo "FAIL: link: $(cat "$dir/out")"; kill $pid; exit 1 ;;
esac
origin="Origin: https://ui.perfetto.dev"
curl -s -D "$dir/pre" -o /dev/null -X OPTIONS -H "$origin" \
     -H "Access-Control-Request-Method: GET" "$url" || fail=1
grep -qi '^Access-Control-Allow-Origin: https://ui.perfetto.dev' "$dir/pre" || {
  echo "FAIL: preflight headers:"; cat "$dir/pre"; fail=1; }
curl -s -D "$dir/head" -H "$origin" -o "$dir/download" "$url" || fail=1
grep -q '^HTTP/1.1 200' "$dir/head" || { echo "FAIL: status:"; cat "$dir/head"; fail=1; }
grep -qi '^Access-Control-Allow-Origin: https://ui.perfetto.dev' "$dir/head" || {
  echo "FAIL: CORS header missing"; fail=1; }
cmp -s "$dir/download" "$trace" || { echo "FAIL: download differs from the trace"; fail=1; }
for _ in $(seq 100); do
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
if kill -0 $pid 2>/dev/null; then
  echo "FAIL: still serving after the fetch"; kill $pid; fail=1
else
  wait $pid || { echo "FAIL: exit status $?"; fail=1; }
fi
# --perfetto-ui: the link and the CORS origin are the team's own UI.
"$bin" -q --open --perfetto-ui https://perfetto.example.com/ui/ -o "$trace" "$report" \
  > "$dir/out2" 2> "$dir/err2" &
pid=$!
for _ in $(seq 100); do
  grep -q '^https://perfetto.example.com/ui/#!/?url=' "$dir/out2" && break
  sleep 0.1
done
url=$(sed -n 's|^https://perfetto.example.com/ui/#!/?url=||p' "$dir/out2")
case $url in
  http://127.0.0.1:*/open.perfetto-trace) ;;
  *) echo "FAIL: --perfetto-ui link: $(cat "$dir/out2")"; kill $pid; exit 1 ;;
esac
curl -s -D "$dir/head2" -o /dev/null "$url" || fail=1
grep -qi '^Access-Control-Allow-Origin: https://perfetto.example.com' "$dir/head2" || {
  echo "FAIL: --perfetto-ui CORS origin:"; cat "$dir/head2"; fail=1; }
wait $pid || { echo "FAIL: --perfetto-ui exit status $?"; fail=1; }
exit $fail
