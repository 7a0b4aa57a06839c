tlbsim_test(test_report SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report.c DEPS tlbsim_report)
