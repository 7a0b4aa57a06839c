tlbsim_test(test_mmu SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mmu.c DEPS tlbsim_mmu)
