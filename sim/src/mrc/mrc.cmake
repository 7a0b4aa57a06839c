tlbsim_module(mrc SOURCES mrc.c mrc_outside.c mrc_sets.c mrc_opt.c DEPS tlbsim_base tlbsim_trace m)
