# docs/tutorial.md: every command block re-run with the built tlbsim, its output excerpt matched line
# by line, and docs/tutorial.zh.md holding the same blocks (tests/cli/tutorial.sh says the rules).
add_test(NAME tutorial COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/tutorial.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(tutorial PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
