tlbsim_test(test_machine SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_machine.c DEPS tlbsim_machine)
