tlbsim_module(region SOURCES region.c DEPS tlbsim_pt tlbsim_rows tlbsim_exp tlbsim_uvm)
tlbsim_module(chase SOURCES chase.c DEPS tlbsim_hw tlbsim_region tlbsim_exp)
tlbsim_module(gather SOURCES gather.c DEPS tlbsim_gdev tlbsim_region tlbsim_exp m)
tlbsim_module(layout SOURCES layout.c DEPS tlbsim_machine tlbsim_chase tlbsim_gather tlbsim_exp)
