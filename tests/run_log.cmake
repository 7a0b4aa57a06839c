# run --log: the per-access log's lines, known by hand, and its JSON lines adding up to the report.
add_test(NAME run_log COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/run_log.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(run_log PROPERTIES SKIP_RETURN_CODE 77)
