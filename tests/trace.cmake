tlbsim_test(test_trace SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace.c DEPS tlbsim_trace)
