# GPU suite: the host logic on the CPU, and a smoke run of tlbsim-gpu that
# counts as skipped (exit 2) where no GPU is present.
tlbsim_test(test_gpu_host SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_host.c DEPS tlbsim_gpu_host)
if(TARGET tlbsim-gpu)
  add_test(NAME gpu_smoke COMMAND tlbsim-gpu --smoke)
  set_tests_properties(gpu_smoke PROPERTIES SKIP_RETURN_CODE 2 TIMEOUT 600)
endif()
