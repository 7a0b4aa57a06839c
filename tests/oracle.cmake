# The cachegrind oracle (see tests/oracle/cachegrind_oracle.sh). Workloads are
# compiled without sanitizers: they run under valgrind.
find_program(VALGRIND valgrind)
if(VALGRIND AND TARGET tlbsim)
  set(oracle_bins)
  foreach(w stride chase transpose)
    set(bin ${CMAKE_CURRENT_BINARY_DIR}/oracle_${w})
    add_custom_command(OUTPUT ${bin}
      COMMAND ${CMAKE_C_COMPILER} -std=c11 -O1 -g -o ${bin} ${CMAKE_CURRENT_LIST_DIR}/oracle/${w}.c
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/oracle/${w}.c VERBATIM)
    list(APPEND oracle_bins ${bin})
  endforeach()
  add_custom_target(oracle_workloads ALL DEPENDS ${oracle_bins})
  add_test(NAME cachegrind_oracle
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/oracle/cachegrind_oracle.sh $<TARGET_FILE:tlbsim> ${oracle_bins})
  set_tests_properties(cachegrind_oracle PROPERTIES ENVIRONMENT "WORK=${CMAKE_CURRENT_BINARY_DIR}/oracle_work"
    TIMEOUT 1800)
else()
  message(STATUS "valgrind not found: the cachegrind oracle test is skipped")
  add_test(NAME cachegrind_oracle COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/need.sh cachegrind_oracle valgrind)
  set_tests_properties(cachegrind_oracle PROPERTIES SKIP_RETURN_CODE 77)
endif()
