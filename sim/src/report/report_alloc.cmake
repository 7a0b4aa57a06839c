# The summary of an allocation replay (tlbsim/report_alloc.h).
tlbsim_module(report_alloc SOURCES report_alloc.c DEPS tlbsim_report tlbsim_allocreplay PkgConfig::JSONC)
