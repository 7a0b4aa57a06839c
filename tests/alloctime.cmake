# The driver-time model's tables, costs and timelines (tlbsim/alloctime.h).
tlbsim_test(test_alloctime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_alloctime.c DEPS tlbsim_alloctime m)
