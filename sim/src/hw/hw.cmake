tlbsim_module(hw SOURCES system.c engine.c gpu.c DEPS tlbsim_mmu tlbsim_rows)
