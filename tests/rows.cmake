tlbsim_test(test_rows SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rows.c DEPS tlbsim_rows)
