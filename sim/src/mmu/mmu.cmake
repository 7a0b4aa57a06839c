tlbsim_module(mmu SOURCES walker.c mmu.c DEPS tlbsim_tlb tlbsim_pt tlbsim_memsys)
