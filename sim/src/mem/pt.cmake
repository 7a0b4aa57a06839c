tlbsim_module(pt SOURCES pt_format.c pt_config.c pt.c DEPS tlbsim_config)
