# The rows of `tlbsim kernel --stats` (tlbsim/report_ktrace.h).
tlbsim_module(report_ktrace SOURCES report_ktrace.c report_kmodel.c DEPS tlbsim_report tlbsim_ktrace tlbsim_kmodel
  PkgConfig::JSONC)
