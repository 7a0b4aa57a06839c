# libtlbsim installed and used: tests/cli/install.sh builds a consumer
# against a DESTDIR install (pkg-config and find_package).
# A sanitized libtlbsim needs its runtime first in a process: the consumers
# are built with the same flags, python3 gets it preloaded.
set(tlbsim_consumer_flags "")
set(tlbsim_preload "")
if(TLBSIM_SANITIZE)
  set(tlbsim_consumer_flags "-fsanitize=address,undefined")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE tlbsim_asan
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(tlbsim_preload "LD_PRELOAD=${tlbsim_asan};ASAN_OPTIONS=detect_leaks=0")
endif()
add_test(NAME install_consumer COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
  $<TARGET_FILE:tlbsim> "${tlbsim_consumer_flags}")
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
# The man pages and the bash completion.
add_test(NAME man_pages COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/man.sh ${PROJECT_BINARY_DIR}/man $<TARGET_FILE:tlbsim>
  $<TARGET_FILE:man_source> ${PROJECT_SOURCE_DIR})
add_test(NAME bash_completion COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/completion.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# The Debian package, unpacked and run (root and dpkg-deb only; else skipped).
add_test(NAME deb_package COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/deb.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(deb_package PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
  ENVIRONMENT "TLBSIM_TEST_PRELOAD=${tlbsim_asan}")
# The Python package over the build tree's libtlbsim (Debian's python3; skipped without one).
if(TLBSIM_PYTHON3)
  add_test(NAME python_tlbsim COMMAND ${TLBSIM_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/python/test_tlbsim.py
    $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
  set_tests_properties(python_tlbsim PROPERTIES ENVIRONMENT
    "TLBSIM_LIBRARY=$<TARGET_FILE:tlbsim_shared>;TLBSIM_PROGRAM=$<TARGET_FILE:tlbsim>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python;TLBSIM_PRESET_PATH=;${tlbsim_preload}")
  # docs/notebook_example.py runs to its end (exit status and its OSTEP row; its figure where matplotlib is).
  add_test(NAME notebook_example COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/notebook.sh ${TLBSIM_PYTHON3} ${PROJECT_SOURCE_DIR}
    ${CMAKE_CURRENT_BINARY_DIR}/notebook_example.png)
  set_tests_properties(notebook_example PROPERTIES ENVIRONMENT
    "TLBSIM_LIBRARY=$<TARGET_FILE:tlbsim_shared>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python;${tlbsim_preload}")
else()
  foreach(t python_tlbsim notebook_example)
    add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/need.sh ${t} python3)
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()
# Tests that need a tool scripts/deps.sh installs skip (77) without it, or fail where
# TLBSIM_TOOLS_REQUIRED=1 (CI).
set_tests_properties(install_consumer man_pages PROPERTIES SKIP_RETURN_CODE 77)
