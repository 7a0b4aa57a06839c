tlbsim_test(test_chase SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chase.c DEPS tlbsim_chase)
