tlbsim_module(tlblog SOURCES tlblog.c DEPS tlbsim_machine PkgConfig::JSONC)
