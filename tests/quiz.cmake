# tlbsim quiz: every answer of several seeds equal to what run and alloc report when the exercise's own
# trace is replayed with its own command, and one seed's text stable byte for byte (tests/cli/quiz_seed7.txt).
add_test(NAME quiz COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/quiz.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# tlbsim chase on the teaching machine: the OSTEP ch. 19 curve inside a 16-bit address space, known by hand.
add_test(NAME quiz_chase COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/quiz_chase.sh $<TARGET_FILE:tlbsim>)
# tlbsim dump --format json: pt_dump.sh's hand-worked teaching16 table as data.
add_test(NAME quiz_dump COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/quiz_dump.sh $<TARGET_FILE:tlbsim>)
# tlbsim alloc: OOM reasons (exhausted, fragmentation, granularity, va_range) and the --map / --map-csv
# address-space map at the first OOM, known by hand; plots/alloc_map.gp renders the CSV.
add_test(NAME quiz_alloc_map COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/quiz_alloc_map.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# scripts/figures.sh: every figure to PNG and SVG, its teaching16 page-table bytes and chase curve known by hand.
add_test(NAME quiz_figures COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/quiz_figures.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(quiz_figures PROPERTIES TIMEOUT 300)
# The alloc exercise's OOM reasons against README's definitions over 60 seeds (buddy's granularity included).
add_test(NAME quiz_reasons COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli/quiz_reasons.py $<TARGET_FILE:tlbsim>)
set_tests_properties(quiz quiz_dump quiz_alloc_map quiz_figures PROPERTIES SKIP_RETURN_CODE 77)
