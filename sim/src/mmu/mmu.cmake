tlbsim_module(mmu SOURCES walker.c mmu.c mmu_config.c DEPS tlbsim_tlb tlbsim_pt tlbsim_memsys tlbsim_config)
