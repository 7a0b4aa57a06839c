tlbsim_test(test_loader SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_loader.c DEPS tlbsim_loader)
