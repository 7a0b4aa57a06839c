tlbsim_module(report SOURCES stats.c report.c report_mrc.c DEPS tlbsim_machine tlbsim_mrc PkgConfig::JSONC)
