tlbsim_module(mrc SOURCES mrc.c mrc_outside.c mrc_sets.c DEPS tlbsim_base tlbsim_trace m)
