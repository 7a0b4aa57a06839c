tlbsim_module(tlb SOURCES tlb.c DEPS tlbsim_base)
