# GPU suite: the host logic on the CPU, and a smoke run of tlbsim-gpu that
# counts as skipped where no GPU is present: exit 77 (GPU_EXIT_NO_DEVICE), not 2, which is a usage error.
tlbsim_test(test_gpu_host SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_host.c DEPS tlbsim_gpu_host)
if(TARGET tlbsim-gpu)
  add_test(NAME gpu_smoke COMMAND tlbsim-gpu --smoke)
  set_tests_properties(gpu_smoke PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
