tlbsim_module(hw SOURCES system.c engine.c gpu.c launch.c DEPS tlbsim_mmu tlbsim_rows)
