# The rows of `tlbsim kernel --stats` (tlbsim/report_ktrace.h).
tlbsim_module(report_ktrace SOURCES report_ktrace.c DEPS tlbsim_report tlbsim_ktrace PkgConfig::JSONC)
