tlbsim_test(test_tlb SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tlb.c DEPS tlbsim_tlb)
