tlbsim_module(report SOURCES report.c DEPS tlbsim_machine PkgConfig::JSONC)
