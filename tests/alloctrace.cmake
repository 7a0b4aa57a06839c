tlbsim_test(test_alloctrace SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_alloctrace.c
  DEPS tlbsim_alloctrace tlbsim_vas PkgConfig::ZLIB m)
# tlbsim alloc end to end (exit codes, formats, the documented numbers).
add_test(NAME test_alloc_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/test_alloc_cli.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
