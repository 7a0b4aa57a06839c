# The kernel model's parts (coalescing, caches, DRAM rows, the engine's band) and its scoreboard.
tlbsim_test(test_kmodel SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kmodel.c DEPS tlbsim_loader tlbsim_kmodel tlbsim_kmicro)
# The kernel model against the embedding-bag sweeps (issue #23's targets: mean absolute error <= 10 %,
# every point within 25 %), sampled to stay fast: the second machine's embed_big.csv (held out: nothing
# was fitted on it; both sides of the cliff, 64 and 128 GiB) and every 37th row of run4/embed.csv (its
# first row, 1 GiB of 64-byte rows at alpha 0, is the one dram_row_interval was fitted to; the others
# are held out). Four L2-TLB groups simulated (--groups 4, validate's default); docs/KERNEL.md compares that with every SM.
# Bounds (docs/VALIDATION.md's rule: the figure plus a margin; the model is deterministic, the margin
# leaves room for a change that moves a point a little): embed_big.csv 8.72 % mean, 10.80 % worst;
# every 37th row of embed.csv 3.77 %, 7.77 % (both well inside the issue's 10 % and 25 %). With the first wave
# of a launch of two or more blocks per SM dealt as measured (launch.h, [gpu] wave_lead: the embed launch's
# 8192 blocks of 256): embed_big.csv 8.40 %, 10.26 %; every 37th row 4.16 %, 8.33 % (bounds kept).
# With the L2 partitions measured (l2_part/: interleaved SMs): embed_big.csv 8.43 %, 10.26 %; every 37th
# row 3.92 %, 7.97 % (bounds kept).
add_test(NAME validate_h200_embed_smoke
  COMMAND tlbsim validate --preset h200 --groups 4 --max-mean-error 9.5 --max-error-pct 13
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/smoke/embed_big.csv)
add_test(NAME validate_h200_embed_sample
  COMMAND tlbsim validate --preset h200 --groups 4 --every 37 --max-mean-error 4.2 --max-error-pct 8.5
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/embed.csv)
set_tests_properties(validate_h200_embed_smoke validate_h200_embed_sample PROPERTIES TIMEOUT 600)
# The stream kernel's instruction tables (kstream.c) against its committed listing (gpu_stream.sass).
add_test(NAME kstream_sass COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/kstream_sass.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(kstream_sass PROPERTIES SKIP_RETURN_CODE 77)
# tlbsim kernel --preset on the fixture and the measured embed trace (tests/cli/kernel_model.sh).
add_test(NAME kernel_model COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/kernel_model.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR})
# The suite's memory microbenchmarks run as kernels through the model (tlbsim/kstream.h, kchase.h; issue
# #23's targets: stream bandwidth within 5 %, DRAM chase within 3 %). What each constant was fitted on, so
# the tests validate on the rest (docs/VALIDATION.md, "Held out"): dram_cycles on dram_chase.csv's 32-256 MiB
# rows (translation hitting the L1 TLB), so its test takes the 512 MiB-128 GiB rows, where translation adds;
# dram_sector_interval on stream.csv's 64 GiB read (line 34), dram_write_sector_interval on its 64 GiB copy
# (line 67) and l2_sector_interval on its 32 MiB read (line 12): the samples below skip those lines.
# One L2-TLB group (--groups 1) for the streams: within 0.05 % of four on these rows, a third of the time.
# Bounds = figure + margin (the model is deterministic; the margin leaves room for a change that moves a
# point a little): DRAM chase 0.13 % mean, 0.31 % worst (+0.37, +0.69); streams of at least 256 MiB, every
# 13th (lines 18, 31, 60: a 256 MiB read run whole, a 24 GB read and a 6 GB copy, those two
# extrapolated from 16 and 32 trips, validate_kmicro.h) 0.59 %, 0.89 % (+0.41, +0.61); about 6 s of one
# core on a Release build, a minute under the sanitizers. The whole file's figures: docs/KERNEL.md.
add_test(NAME validate_h200_dram_chase
  COMMAND tlbsim validate --preset h200 --min-footprint 512M --max-mean-error 0.5 --max-error-pct 1
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/dram_chase.csv)
add_test(NAME validate_h200_stream_dram
  COMMAND tlbsim validate --preset h200 --groups 1 --min-footprint 256M --every 13 --max-mean-error 1.0
          --max-error-pct 1.5 ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/stream.csv)
# What the model misses, pinned so a change that moves it shows (docs/KERNEL.md, "Where it misses"): every
# 22nd stream row (lines 2, 24, 46: the 1 MiB read, -14.3 % at one group (-8.8 % at four): its pass is the
# stream kernel's SASS (kstream.c), its 128 working blocks two on each of SMs 124-131 (launch.h), before
# them +135 %; with the SASS's stall counts, kstream.c's hold, -10.5 % (-14.3 % before); the 2 GiB read, -2.2 %;
# the 47 MB copy, +4.1 % with the measured L2 partitions, +3.2 % with SMs 0-63 assumed) 5.59 % mean, 10.53 % worst
# (5.30 % with the assumed partitions; 6.85 %, 14.31 % before the stall counts); every 4th L2-chase row
# (lines 2, 6, 10, 14, 18) 4.03 %, 10.57 % (60 MiB: 530 against 593 cycles, the whole L2's edge; 28 MiB,
# -9.1 %: the near partition's; l2_far_cycles was fitted on lines 9-12, none of them). Bounds: +1.5 % mean,
# +5 % worst.
add_test(NAME validate_h200_stream_sample
  COMMAND tlbsim validate --preset h200 --groups 1 --every 22 --max-mean-error 6.8 --max-error-pct 15.5
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/stream.csv)
add_test(NAME validate_h200_l2_chase
  COMMAND tlbsim validate --preset h200 --every 4 --max-mean-error 5.5 --max-error-pct 15.5
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/run4/l2_chase.csv)
set_tests_properties(validate_h200_dram_chase validate_h200_stream_dram validate_h200_stream_sample
                     validate_h200_l2_chase PROPERTIES TIMEOUT 600)

# [gpu] int_issue_cycles (off in the preset) against stream_pass.csv's 4-block SMs (docs/KERNEL.md).
add_test(NAME kstream_int_pipe COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli/kstream_int_pipe.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR})
set_tests_properties(kstream_int_pipe PROPERTIES TIMEOUT 300)

# validate's --format text, json and csv on kernel-model rows agree (one row of each kind).
add_test(NAME validate_kformats COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/validate_kformats.sh $<TARGET_FILE:tlbsim>
  ${PROJECT_SOURCE_DIR})
