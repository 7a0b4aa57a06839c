tlbsim_module(chase SOURCES chase.c DEPS tlbsim_mmu tlbsim_gpu_host)
