# Fidelity: the h200 preset against the committed H200 sweeps.
# The target: VMM chunks (contiguous, shuffled) and cudaMalloc, footprints >= 32 MiB with >= 64
# nodes, up to 128 GiB: mean absolute error <= 1% and no point off by more than 8 cycles.
add_test(NAME validate_h200
  COMMAND tlbsim validate --preset h200 --mapping contiguous,shuffled,cudamalloc --min-footprint 32M
          --min-nodes 64 --max-mean-error 1 --max-error-cycles 8 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
# Beyond device memory (aliased, up to 4 TiB, past the 256 GiB third level). Sequential order:
# which loads walk and what one walk costs, held to the target.
add_test(NAME validate_h200_aliased_seq
  COMMAND tlbsim validate --preset h200 --mapping aliased --order seq --max-mean-error 1 --max-error-cycles 8
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
# Random order: the same structure, but past 256 GiB a random walk's page-table reads cost
# what differs from GPU to GPU (docs/VALIDATION.md, "One thread"); the current fidelity is
# guarded so that a change that makes it worse is caught.
add_test(NAME validate_h200_aliased_random
  COMMAND tlbsim validate --preset h200 --mapping aliased --order random --max-mean-error 0.5
          --max-error-cycles 30 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
# The experiment that settled the second and third levels' organisation, on another H200
# (third-level hit +157 cycles there: tlb.l3 latency 147, what `tlbsim calibrate` fits to
# chase_banks.csv). Sequential order at 32-256 MiB strides, the 48/96/160 MiB staircases
# included, to the target.
add_test(NAME validate_h200_banks
  COMMAND tlbsim validate --preset h200 --set tlb.l3.latency=147 --order seq --max-mean-error 1
          --max-error-cycles 8 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase_banks.csv)
# The whole suite again on a fourth H200 (gpu/results/h200/run2), the preset unchanged: the target,
# and the sequential aliased rows (the bank strides included).
add_test(NAME validate_h200_run2
  COMMAND tlbsim validate --preset h200 --mapping contiguous,shuffled,cudamalloc --min-footprint 32M
          --min-nodes 64 --max-mean-error 1 --max-error-cycles 8 ${PROJECT_SOURCE_DIR}/gpu/results/h200/run2/chase.csv)
add_test(NAME validate_h200_run2_aliased_seq
  COMMAND tlbsim validate --preset h200 --mapping aliased --order seq --max-mean-error 1 --max-error-cycles 8
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run2/chase.csv)
set_tests_properties(validate_h200 validate_h200_aliased_seq validate_h200_aliased_random validate_h200_banks
  validate_h200_run2 validate_h200_run2_aliased_seq PROPERTIES TIMEOUT 1800)
# 64 KiB pages (managed memory touched only at the nodes, gpu/results/h200/chase_64k.csv): the same
# three levels with 512 KiB / 1 MiB / 1 MiB entries; both orders to the chase target's mean.
add_test(NAME validate_h200_64k
  COMMAND tlbsim validate --preset h200 --max-mean-error 1 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase_64k.csv)
# The concurrency model (the preset's [gpu] section) against the many-thread gather sweep, on two
# H200s (gather.csv, run3/gather.csv): the issue's target is a mean absolute error <= 10 % over
# the sweep and every point with >= 512 threads per SM within 15 %. The sanitizer build samples
# rows (every 24th for the mean; every 8th, on the second H200 every 16th, of the >= 512 rows: a
# minute or two each); docs/VALIDATION.md gives the whole sweeps' figures (`validate` without --every).
function(tlbsim_gather_test tag csv every_512)
  add_test(NAME validate_h200_gather${tag}
    COMMAND tlbsim validate --preset h200 --every 24 --max-mean-error 10 ${csv})
  add_test(NAME validate_h200_gather${tag}_512
    COMMAND tlbsim validate --preset h200 --every ${every_512} --min-threads-per-sm 512 --max-error-pct 15 ${csv})
endfunction()
tlbsim_gather_test("" ${PROJECT_SOURCE_DIR}/gpu/results/h200/gather.csv 8)
tlbsim_gather_test(run3 ${PROJECT_SOURCE_DIR}/gpu/results/h200/run3/gather.csv 16)
# Beyond memory (aliased: the third level, then every load walks, 128 GiB - 4 TiB).
add_test(NAME validate_h200_gather_aliased
  COMMAND tlbsim validate --preset h200 --every 3 --max-mean-error 10 ${PROJECT_SOURCE_DIR}/gpu/results/h200/gather_aliased.csv)
set_tests_properties(validate_h200_64k validate_h200_gather validate_h200_gather_512 validate_h200_gatherrun3
  validate_h200_gatherrun3_512 validate_h200_gather_aliased PROPERTIES TIMEOUT 1800)
# Managed memory: the chase rows re-simulated on the history each row records (population, region:
# the allocation's population and the chains of its earlier points, through the managed-memory model,
# tlbsim/uvm.h). The chase sweep's managed rows (one region, 64 KiB stride first) of the first machine
# and of run4 to the chase target; the populations of run4 to its mean (their only misses are at
# exactly the third level's 8192 entries of 64 KiB pages, 16 GiB: docs/VALIDATION.md), a third of them.
add_test(NAME validate_h200_managed
  COMMAND tlbsim validate --preset h200 --mapping managed --max-mean-error 1 --max-error-cycles 12
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
add_test(NAME validate_h200_managed_run4
  COMMAND tlbsim validate --preset h200 --mapping managed --max-mean-error 1 --max-error-cycles 12
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/chase_managed.csv)
add_test(NAME validate_h200_managed_pop
  COMMAND tlbsim validate --preset h200 --mapping managed --every 3 --max-mean-error 1
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/chase_pop.csv)
# The managed-memory experiment (tlbsim-gpu uvm): tests/cli/uvm.sh (issue #24's targets per column on
# run4/uvm.csv, which the [uvm] costs were fitted on, and the held-out second machine's smoke/uvm.csv).
add_test(NAME uvm COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/uvm.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(uvm PROPERTIES TIMEOUT 1800)
set_tests_properties(validate_h200_managed validate_h200_managed_run4 validate_h200_managed_pop
  PROPERTIES TIMEOUT 1800)
# traces/managed/managed.trace (the tutorial's step 7) replayed by `tlbsim run`: each phase's faults, bytes
# and time checked by the mechanism behind them; bad managed-memory records each one FILE:LINE line.
add_test(NAME managed_trace COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/managed_trace.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
