tlbsim_module(base SOURCES diag.c size.c rng.c)
