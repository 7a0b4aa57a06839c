tlbsim_test(test_mrc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mrc.c DEPS tlbsim_mrc tlbsim_tlb)
# tlbsim mrc against separate tlbsim runs, its formats and its errors.
add_test(NAME mrc_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/mrc.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
