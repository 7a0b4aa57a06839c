tlbsim_module(base SOURCES diag.c num.c rng.c csv.c DEPS m)
