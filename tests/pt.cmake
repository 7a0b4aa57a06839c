tlbsim_test(test_pt SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pt.c DEPS tlbsim_pt)
