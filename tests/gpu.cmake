# GPU suite: the host logic on the CPU, and a smoke run of tlbsim-gpu that
# counts as skipped where no GPU is present: exit 77 (GPU_EXIT_NO_DEVICE), not 2, which is a usage error.
tlbsim_test(test_gpu_host SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_host.c DEPS tlbsim_gpu_host)
tlbsim_test(test_gpu_kern SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_kern.c DEPS tlbsim_gpu_host)
# The embed kernels' SASS table against its listing (and, with nvcc, the listing against the code).
if(CMAKE_CUDA_COMPILER)
  set(gpu_sass_nvcc ${CMAKE_CUDA_COMPILER})
endif()
add_test(NAME gpu_embed_sass COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/gpu_embed_sass.sh ${PROJECT_SOURCE_DIR}
                                     ${gpu_sass_nvcc})
set_tests_properties(gpu_embed_sass PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
if(TARGET tlbsim-gpu)
  add_test(NAME gpu_smoke COMMAND tlbsim-gpu --smoke)
  set_tests_properties(gpu_smoke PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  add_test(NAME gpu_embed_trace COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/gpu_embed_trace.sh $<TARGET_FILE:tlbsim-gpu>
                                        ${PROJECT_SOURCE_DIR})
  set_tests_properties(gpu_embed_trace PROPERTIES TIMEOUT 120)
endif()
