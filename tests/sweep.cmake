tlbsim_test(test_sweep SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sweep.c DEPS tlbsim_sweep)
# tlbsim sweep against separate tlbsim runs, its threads, window, formats and errors.
add_test(NAME sweep_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/sweep.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
