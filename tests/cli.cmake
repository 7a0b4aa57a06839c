# Command-line behaviour: exit codes and one-line FILE:LINE errors.
add_test(NAME cli_errors COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/cli_errors.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME calibrate COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/calibrate.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(calibrate PROPERTIES TIMEOUT 1800 ENVIRONMENT ${tlbsim_test_sample})
add_test(NAME validate_plot COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/plot.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME explain_h200 COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/explain.sh $<TARGET_FILE:tlbsim>)
add_test(NAME run_report COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/run_report.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME convert COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/convert.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME run_cpus COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/run_cpus.sh $<TARGET_FILE:tlbsim>)
add_test(NAME jobs COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/jobs.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR}
  $<TARGET_FILE:bench_gen_din>)
add_test(NAME cli_options COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/options.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME cli_progress COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli/progress.py $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME cli_shapes COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli/shapes.py $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME cli_error_table COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/error_table.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# Every number the docs state from committed data, re-computed (scripts/claims.sh; --quick: all
# but the validate/calibrate figures, which take hours under the sanitizers and are guarded by the
# fidelity tests' bounds).
add_test(NAME claims COMMAND ${PROJECT_SOURCE_DIR}/scripts/claims.sh --quick $<TARGET_FILE:tlbsim>)
set_tests_properties(claims PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
