tlbsim_test(test_uvm SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_uvm.c DEPS tlbsim_uvm)
