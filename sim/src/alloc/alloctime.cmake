# What allocations cost in time: the [driver] section and the two-timeline
# replay (tlbsim alloc's driver_time_s; docs/ALLOC.md).
tlbsim_module(alloctime SOURCES alloctime.c DEPS tlbsim_config tlbsim_base m)
