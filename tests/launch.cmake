tlbsim_test(test_launch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch.c DEPS tlbsim_loader PkgConfig::ZLIB)
