# Any textbook's machine: formats from configuration, map ... frame=, RISC-V
# Sv39/Sv48 and canonical addresses, and the textbooks' own answers (CS:APP
# 9.6.4, OSTEP's multi-level paging homework, an xv6 Sv39 walk) asserted exactly.
add_test(NAME textbook_formats COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/textbook_formats.sh $<TARGET_FILE:tlbsim>)
add_test(NAME textbook_csapp COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/textbook_csapp.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME textbook_ostep COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/textbook_ostep.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
add_test(NAME textbook_xv6 COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/textbook_xv6.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(textbook_csapp textbook_ostep PROPERTIES SKIP_RETURN_CODE 77)
