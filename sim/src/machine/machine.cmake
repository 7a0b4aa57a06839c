tlbsim_module(machine SOURCES machine.c machine_uvm.c machine_spec.c DEPS tlbsim_hw tlbsim_phys tlbsim_vas tlbsim_alloctime tlbsim_config tlbsim_trace tlbsim_uvm)
