tlbsim_test(test_trace SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace.c DEPS tlbsim_trace)
tlbsim_test(test_trace_bin SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace_bin.c DEPS tlbsim_trace PkgConfig::ZLIB PkgConfig::ZSTD
  PkgConfig::LZMA)
