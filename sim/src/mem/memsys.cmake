tlbsim_module(memsys SOURCES memsys.c DEPS tlbsim_config)
