tlbsim_test(test_machine SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_machine.c DEPS tlbsim_machine)
tlbsim_test(test_machine_uvm SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_machine_uvm.c DEPS tlbsim_machine)
