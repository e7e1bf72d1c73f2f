# Writes a C file holding every module of a PerfettoSQL package directory,
# for `nsys-perfetto sql` and --open (src/tool/sql_package.c):
#   const nsysp_sql_module nsysp_sql_modules[]; const size_t nsysp_sql_n_modules;
# each {"nsys.cuda", text, length}, sorted by module name. A module is
# DIR/a/b.sql -> PACKAGE.a.b.
#   cmake -DDIR=src/sql/nsys -DPACKAGE=nsys -DOUTPUT=sql_modules.c -P EmbedSqlPackage.cmake
file(GLOB_RECURSE files RELATIVE "${DIR}" "${DIR}/*.sql")
list(SORT files)
set(body "")
set(table "")
set(i 0)
foreach(f IN LISTS files)
  string(REGEX REPLACE "\\.sql$" "" module "${f}")
  string(REPLACE "/" "." module "${module}")
  file(READ "${DIR}/${f}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  string(APPEND body "static const char module_${i}[] = {\n${bytes}0x00};\n")
  string(APPEND table "    {\"${PACKAGE}.${module}\", module_${i}, ${size}},\n")
  math(EXPR i "${i} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${DIR} by cmake/EmbedSqlPackage.cmake; do not edit. */\n"
  "#include \"tool/sql_package.h\"\n"
  "${body}"
  "const nsysp_sql_module nsysp_sql_modules[] = {\n${table}    {0, 0, 0}};\n"
  "const size_t nsysp_sql_n_modules = ${i};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
