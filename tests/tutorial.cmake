# docs/tutorial.md: every command block re-run with the built tlbsim, its output excerpt matched line
# by line, and docs/tutorial.zh.md holding the same blocks (tests/cli/tutorial.sh says the rules).
# About 35 s of CPU under ASan (step 7's `tlbsim uvm` 10 of them); the limit leaves room for a machine
# whose cores are shared.
add_test(NAME tutorial COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/tutorial.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(tutorial PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
