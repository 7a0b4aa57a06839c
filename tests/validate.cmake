# Fidelity: the h200 preset against committed H200 sweeps it was NOT fitted on (docs/VALIDATION.md,
# "Held out": for each test, what its constants were fitted on and what it validates on). Each bound
# is the figure docs/VALIDATION.md states for that file plus the margin it states for machine noise
# (the difference between two H200s' runs of the same sweep): one-thread chase, VMM and sequential
# rows +0.25 % on the mean, +3.5 cycles on the worst point, +2.5 % (sequential aliased: +0.8 %) on the
# translation cost's mean; random rows past the third level +0.2 %, +25 cycles, +1.1 %; 64 KiB pages
# +0.5 %, +115 cycles, +4.3 %; gather +0.3 % on the mean (managed memory 4.8 %) and, on the worst
# point, what the two machines differed by there (5.4 % for gather.csv, 5.1 % from 512 threads per
# SM, 0.7 % beyond memory, 2.3 % locality, 0.9 % loads per thread, 31 % managed memory).
set(h200 ${PROJECT_SOURCE_DIR}/gpu/results/h200)
# The chase target (VMM chunks and cudaMalloc, >= 32 MiB with >= 64 nodes, up to 128 GiB): fitted on
# chase.csv, validated on run2/chase.csv, another H200's run of the whole sweep (0.432 %, 5.5 cycles;
# translation 3.32 % over its 76 rows with more than 20 cycles of it).
# The four one-thread tests below check every 5th row they select under the sanitizers (every 3rd for
# 64 KiB pages, so that the 16 GiB point at the third level's capacity stays in), all of them on
# other builds; the figures of both are in docs/VALIDATION.md, "Sampled under the sanitizers".
tlbsim_every(every5 5)
tlbsim_every(every3 3)
add_test(NAME validate_h200
  COMMAND tlbsim validate --preset h200 --mapping contiguous,shuffled,cudamalloc --min-footprint 32M --min-nodes 64
          ${every5} --max-mean-error 0.682 --max-error-cycles 9.0 --max-translation-error 5.82 ${h200}/run2/chase.csv)
# Beyond device memory (aliased, up to 4 TiB, past the 256 GiB third level), on run2: sequential
# (0.235 %, 5.4 cycles, translation 1.05 %; the bank strides 48/96/160 MiB whose organisation was
# fitted on chase_banks.csv included) and random (0.540 %, 33.0 cycles, translation 2.01 %).
add_test(NAME validate_h200_aliased_seq
  COMMAND tlbsim validate --preset h200 --mapping aliased --order seq ${every5} --max-mean-error 0.485 --max-error-cycles 8.9
          --max-translation-error 1.85 ${h200}/run2/chase.csv)
add_test(NAME validate_h200_aliased_random
  COMMAND tlbsim validate --preset h200 --mapping aliased --order random ${every5} --max-mean-error 0.74
          --max-error-cycles 58.0 --max-translation-error 3.11 ${h200}/run2/chase.csv)
# The two H200s of the other kind (third-level hit +157/+160 cycles): each one's probe, picked out of
# its sweep, calibrated into a machine file; the preset with it validated on the rest of the sweep.
add_test(NAME validate_h200_probe COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/machine_file.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR})
set_tests_properties(validate_h200_probe PROPERTIES ENVIRONMENT ${tlbsim_test_sample})
# 64 KiB pages (managed memory touched only at the nodes): fitted on chase_64k.csv, validated on
# run3/chase_64k.csv (another H200: 0.656 %, 271.7 cycles at 16 GiB, the third level at capacity;
# translation 8.04 %).
add_test(NAME validate_h200_64k
  COMMAND tlbsim validate --preset h200 ${every3} --max-mean-error 1.156 --max-error-cycles 386.7 --max-translation-error 12.34
          ${h200}/run3/chase_64k.csv)
set_tests_properties(validate_h200 validate_h200_aliased_seq validate_h200_aliased_random validate_h200_probe
  validate_h200_64k PROPERTIES TIMEOUT 1800)
# The concurrency model (the preset's [gpu] section, fitted on gather.csv, gather_sms.csv and
# gather_aliased.csv) on run3/, another H200's run of the same sweeps. A row takes seconds, so these
# sample rows, exactly as docs/VALIDATION.md says: every 16th row of run3/gather.csv
# (49 rows: 4.20 %, worst 16.7 %), every 13th of its rows with >= 512 threads per SM (26: 2.30 %,
# 7.41 %; every 6th kept only 512 threads, the sweep's period), every 3rd of run3/gather_aliased.csv
# (8: 1.96 %, 6.40 %); under the sanitizers (ten times slower) the first every 33rd row (24: 4.31 %, 17.4 %).
tlbsim_every(gather_every 33 16)
add_test(NAME validate_h200_gather
  COMMAND tlbsim validate --preset h200 ${gather_every} --max-mean-error 4.48 --max-error-pct 21.9 ${h200}/run3/gather.csv)
add_test(NAME validate_h200_gather_512
  COMMAND tlbsim validate --preset h200 --every 13 --min-threads-per-sm 512 --max-mean-error 2.65
          --max-error-pct 12.5 ${h200}/run3/gather.csv)
add_test(NAME validate_h200_gather_aliased
  COMMAND tlbsim validate --preset h200 --every 3 --max-mean-error 2.29 --max-error-pct 7.36
          ${h200}/run3/gather_aliased.csv)
# Sweeps no [gpu] constant was fitted on: node counts (every 4th row: 14, 3.14 %, 30.6 %), 64 and
# 1024 loads per thread (all 12 rows each: 7.34 %, 34.3 %; 4.10 %, 27.9 %), managed memory's
# 64 KiB pages (all 14: 5.01 %, 17.7 %).
add_test(NAME validate_h200_gather_locality
  COMMAND tlbsim validate --preset h200 --every 4 --max-mean-error 3.45 --max-error-pct 32.9 ${h200}/gather_locality.csv)
add_test(NAME validate_h200_gather_loads64
  COMMAND tlbsim validate --preset h200 --max-mean-error 7.44 --max-error-pct 34.6 ${h200}/gather_loads64.csv)
add_test(NAME validate_h200_gather_loads1024
  COMMAND tlbsim validate --preset h200 --max-mean-error 4.22 --max-error-pct 28.6 ${h200}/gather_loads1024.csv)
add_test(NAME validate_h200_gather_managed
  COMMAND tlbsim validate --preset h200 --max-mean-error 9.77 --max-error-pct 48.8 ${h200}/gather_managed.csv)
set_tests_properties(validate_h200_gather validate_h200_gather_512 validate_h200_gather_aliased
  validate_h200_gather_locality validate_h200_gather_loads64 validate_h200_gather_loads1024 validate_h200_gather_managed
  PROPERTIES TIMEOUT 1800)
# Managed memory (no constant fitted on a chase: the mapping follows the driver's rules): the chase rows re-simulated on the history each row records (population, region:
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
