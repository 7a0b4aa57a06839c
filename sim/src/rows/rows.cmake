tlbsim_module(rows SOURCES rows.c DEPS tlbsim_base)
