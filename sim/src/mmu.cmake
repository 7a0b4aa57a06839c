tlbsim_module(mmu SOURCES mmu.c DEPS tlbsim_tlb tlbsim_pt)
