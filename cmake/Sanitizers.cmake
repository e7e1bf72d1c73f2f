# -DNSYSP_ASAN=ON / -DNSYSP_UBSAN=ON / -DNSYSP_TSAN=ON build everything (library, tools, tests)
# with AddressSanitizer / UndefinedBehaviorSanitizer. UBSan findings abort,
# so a test that triggers one fails.
option(NSYSP_ASAN "Build with AddressSanitizer" OFF)
option(NSYSP_UBSAN "Build with UndefinedBehaviorSanitizer" OFF)

if(NSYSP_ASAN)
  add_compile_options(-fsanitize=address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
endif()
if(NSYSP_UBSAN)
  add_compile_options(-fsanitize=undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=undefined)
endif()

# -DNSYSP_TSAN=ON: ThreadSanitizer (not with ASan). The readers, the
# compressors and the web server's workers share memory only under locks;
# a race found is a failed test.
option(NSYSP_TSAN "Build with ThreadSanitizer" OFF)
if(NSYSP_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
