# Page tables you can see: explain's entries with their contents in one table
# (text and JSON), and tlbsim dump / run --dump-pt, all known by hand.
add_test(NAME explain_table COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/explain_table.sh $<TARGET_FILE:tlbsim>)
add_test(NAME pt_dump COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/pt_dump.sh $<TARGET_FILE:tlbsim>)
set_tests_properties(explain_table PROPERTIES SKIP_RETURN_CODE 77)
