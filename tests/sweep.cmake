tlbsim_test(test_sweep SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sweep.c DEPS tlbsim_sweep tlbsim_loader)
# tlbsim sweep against separate tlbsim runs, its threads, window, formats and errors.
add_test(NAME sweep_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/sweep.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# tlbsim sweep --emit slurm / --merge: every task run through the emitted script, merged, equal to the plain sweep.
add_test(NAME sweep_cluster COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/sweep_cluster.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# The same through a real Slurm (sbatch, squeue); skipped when no controller answers (.ci/run starts one).
add_test(NAME sweep_slurm COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/sweep_slurm.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(sweep_slurm PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400)
set_tests_properties(sweep_cli PROPERTIES SKIP_RETURN_CODE 77)
