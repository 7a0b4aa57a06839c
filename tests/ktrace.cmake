tlbsim_test(test_ktrace SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ktrace.c
  DEPS tlbsim_ktrace PkgConfig::ZLIB PkgConfig::ZSTD PkgConfig::LZMA)
