# Fidelity: the h200 preset against the committed H200 sweeps.
# The target: VMM chunks (contiguous, shuffled) and cudaMalloc, footprints >= 32 MiB with >= 64
# nodes, up to 128 GiB: mean absolute error <= 1% and no point off by more than 8 cycles.
add_test(NAME validate_h200
  COMMAND tlbsim validate --preset h200 --mapping contiguous,shuffled,cudamalloc --min-footprint 32M
          --min-nodes 64 --max-mean-error 1 --max-error-cycles 8 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
# Beyond device memory (aliased, up to 4 TiB, past the 256 GiB third level): the walk model's
# current fidelity, so that a change that makes it worse is caught.
add_test(NAME validate_h200_aliased
  COMMAND tlbsim validate --preset h200 --mapping aliased --max-mean-error 0.5 --max-error-cycles 125
          ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
set_tests_properties(validate_h200 validate_h200_aliased PROPERTIES TIMEOUT 1800)
