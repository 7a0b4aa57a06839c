tlbsim_module(report SOURCES stats.c report.c report_mrc.c report_chase.c DEPS tlbsim_machine tlbsim_mrc tlbsim_chase
  PkgConfig::JSONC)
