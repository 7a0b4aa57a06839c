# tlbsim kernel --stats and convert on the kernel-trace fixture (tests/cli/kernel.sh).
add_test(NAME kernel_stats COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/kernel.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
