tlbsim_test(test_tlblog SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tlblog.c DEPS tlbsim_tlblog)
