# The cuda policy against the H200's cudaMalloc layouts (gpu/results/h200/layout_*.csv.gz): after the
# CUDA context's own part of the heap, every live buffer of the churn traces and of smallbufs lies
# where the GPU put it.
tlbsim_test(test_alloc_layout SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_alloc_layout.c
  DEPS tlbsim_alloctrace tlbsim_vas tlbsim_base PkgConfig::ZLIB)
# tlbsim alloc --layout, and the live set's 2 MiB and 32 MiB regions against the measured churn and
# smallbufs rows (the issue #15 target: within 2 %).
add_test(NAME alloc_layout_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/alloc_layout.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
