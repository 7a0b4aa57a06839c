tlbsim_module(trace SOURCES trace.c trace_native.c trace_lackey.c trace_din.c
  DEPS tlbsim_base PkgConfig::ZLIB)
