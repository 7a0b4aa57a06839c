# The cuda policy against the H200's cudaMalloc layouts (gpu/results/h200/layout_*.csv.gz): after the
# CUDA context's own part of the heap, every live buffer of the churn traces and of smallbufs lies
# where the GPU put it.
tlbsim_test(test_alloc_layout SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_alloc_layout.c
  DEPS tlbsim_alloctrace tlbsim_vas tlbsim_base PkgConfig::ZLIB)
# tlbsim alloc --layout, and the live set's 2 MiB and 32 MiB regions against the measured churn and
# smallbufs rows (the issue #15 target: within 2 %).
add_test(NAME alloc_layout_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/alloc_layout.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# The chain end to end (issue #15's targets): each committed churn trace replayed under the h200
# preset (the cuda policy, frames highest first), its live set's regions within 2 %, the warm
# one-thread chase within 3 % and the many-thread gather within 15 % of the H200, for the churned,
# fresh and pool cases (validate --traces re-runs each row of gpu/results/h200/churn_*.csv).
foreach(level IN ITEMS below near above)
  add_test(NAME validate_h200_churn_${level}
    COMMAND tlbsim validate --preset h200 --traces ${PROJECT_SOURCE_DIR}/traces/churn --max-region-error 2
            --max-chase-error 3 --max-error-pct 15 ${PROJECT_SOURCE_DIR}/gpu/results/h200/churn_${level}.csv)
  set_tests_properties(validate_h200_churn_${level} PROPERTIES TIMEOUT 1200)
endforeach()
# The committed libtlbsim-capture traces replayed (--policy recorded and cuda, tlbsim run) and a
# capture's bad input (gpu/results/h200/capture/README.md).
add_test(NAME capture_replay COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/capture_replay.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
