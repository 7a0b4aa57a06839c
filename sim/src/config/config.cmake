tlbsim_module(config SOURCES config.c DEPS tlbsim_base PkgConfig::INIH)
