tlbsim_test(test_config SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c DEPS tlbsim_config tlbsim_phys)
