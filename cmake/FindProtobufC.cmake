# Finds protobuf-c (runtime library and header) and protoc-c (the code
# generator), and provides protobuf_c_generate() to turn .proto files into
# C sources at build time.
#
#   find_package(ProtobufC REQUIRED)
#   protobuf_c_generate(SRCS HDRS proto/foo.proto)
#   -> target ProtobufC::ProtobufC, variables PROTOBUFC_PROTOC_EXECUTABLE

find_path(PROTOBUFC_INCLUDE_DIR protobuf-c/protobuf-c.h)
find_library(PROTOBUFC_LIBRARY NAMES protobuf-c)
find_program(PROTOBUFC_PROTOC_EXECUTABLE NAMES protoc-c protoc-gen-c)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ProtobufC
  REQUIRED_VARS PROTOBUFC_LIBRARY PROTOBUFC_INCLUDE_DIR PROTOBUFC_PROTOC_EXECUTABLE)

if(ProtobufC_FOUND AND NOT TARGET ProtobufC::ProtobufC)
  add_library(ProtobufC::ProtobufC UNKNOWN IMPORTED)
  set_target_properties(ProtobufC::ProtobufC PROPERTIES
    IMPORTED_LOCATION "${PROTOBUFC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PROTOBUFC_INCLUDE_DIR}")
endif()

# protobuf_c_generate(<srcs-var> <hdrs-var> <file.proto>...)
# Generates <name>.pb-c.c/.h into ${CMAKE_CURRENT_BINARY_DIR}/proto.
function(protobuf_c_generate srcs_var hdrs_var)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/proto")
  file(MAKE_DIRECTORY "${out_dir}")
  set(srcs)
  set(hdrs)
  foreach(proto IN LISTS ARGN)
    get_filename_component(abs "${proto}" ABSOLUTE)
    get_filename_component(dir "${abs}" DIRECTORY)
    get_filename_component(name "${abs}" NAME_WE)
    set(c "${out_dir}/${name}.pb-c.c")
    set(h "${out_dir}/${name}.pb-c.h")
    add_custom_command(
      OUTPUT "${c}" "${h}"
      COMMAND "${PROTOBUFC_PROTOC_EXECUTABLE}" "--c_out=${out_dir}" "-I${dir}" "${abs}"
      DEPENDS "${abs}"
      COMMENT "protoc-c ${name}.proto"
      VERBATIM)
    list(APPEND srcs "${c}")
    list(APPEND hdrs "${h}")
  endforeach()
  set(${srcs_var} "${srcs}" PARENT_SCOPE)
  set(${hdrs_var} "${hdrs}" PARENT_SCOPE)
endfunction()
