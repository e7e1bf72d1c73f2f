#!/bin/sh
# cmake --install puts the binary, library, header, pkg-config file and man
# page in place, and a program builds against the installed library with
# pkg-config alone.
#   install_test.sh BUILD_DIR WORKDIR
set -eu
build=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
cmake --install "$build" --prefix "$dir/prefix" >/dev/null
for f in bin/nsys-perfetto include/nsys_perfetto.h lib/libnsys-perfetto.a \
         lib/pkgconfig/nsys-perfetto.pc share/man/man1/nsys-perfetto.1; do
  [ -f "$dir/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
cat > "$dir/use.c" <<'C'
#include <nsys_perfetto.h>
#include <stdio.h>
int main(void) { nsysp_options o; nsysp_options_init(&o); printf("%s\n", nsysp_version()); return 0; }
C
export PKG_CONFIG_PATH="$dir/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -o "$dir/use" "$dir/use.c" $(pkg-config --cflags --libs --static nsys-perfetto)
"$dir/use" | grep -q '^[0-9]' || { echo "FAIL: program against the installed library"; exit 1; }
man -l "$dir/prefix/share/man/man1/nsys-perfetto.1" >/dev/null 2>&1 || true
echo ok
