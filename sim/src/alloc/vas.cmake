tlbsim_module(vas SOURCES vas.c vas_tree.c vas_extent.c vas_driver.c vas_fit.c vas_buddy.c vas_cuda.c
  vas_caching.c vas_recorded.c DEPS tlbsim_base)
