tlbsim_module(machine SOURCES machine.c machine_spec.c DEPS tlbsim_mmu tlbsim_phys tlbsim_vas tlbsim_config tlbsim_trace tlbsim_gather)
