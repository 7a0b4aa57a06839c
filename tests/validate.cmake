# Fidelity: the h200 preset against the committed H200 sweeps. Fails when the
# mean absolute error exceeds 1% or any point is off by more than 8 cycles.
add_test(NAME validate_h200
  COMMAND tlbsim validate --preset h200 --min-footprint 32M --min-nodes 64
          --max-mean-error 1 --max-error-cycles 8 ${PROJECT_SOURCE_DIR}/gpu/results/h200/chase.csv)
set_tests_properties(validate_h200 PROPERTIES TIMEOUT 1800)
