tlbsim_test(test_gather SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gather.c DEPS tlbsim_gather tlbsim_chase)
