# Allocation requests through several allocator policies in lockstep
# (tlbsim alloc, tlbsim_alloc); report_alloc.cmake writes its summary.
tlbsim_module(allocreplay SOURCES allocreplay.c DEPS tlbsim_alloctime tlbsim_alloctrace tlbsim_vas tlbsim_base)
