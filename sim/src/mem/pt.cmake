tlbsim_module(pt SOURCES pt_format.c pt.c DEPS tlbsim_base)
