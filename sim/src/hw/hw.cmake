tlbsim_module(hw SOURCES system.c engine.c gpu.c launch.c DEPS tlbsim_mmu tlbsim_rows)
# The memory below a GPU's load path (tlbsim/kmem.h: coalescing, sector caches, the L2's partitions,
# DRAM rows), and the GPU device built over it and the system (tlbsim/gdev.h).
tlbsim_module(kmem SOURCES kmem_coalesce.c kmem_cache.c kmem_l2.c kmem_dram.c DEPS tlbsim_base)
tlbsim_module(gdev SOURCES gdev.c DEPS tlbsim_hw tlbsim_kmem m)
