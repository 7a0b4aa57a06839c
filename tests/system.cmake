tlbsim_test(test_system SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_system.c DEPS tlbsim_machine)
