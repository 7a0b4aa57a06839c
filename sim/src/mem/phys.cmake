tlbsim_module(phys SOURCES phys.c DEPS tlbsim_base)
