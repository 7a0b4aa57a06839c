tlbsim_module(report SOURCES stats.c report.c DEPS tlbsim_machine PkgConfig::JSONC)
