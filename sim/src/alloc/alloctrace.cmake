tlbsim_module(alloctrace SOURCES alloctrace.c alloctrace_snapshot.c alloctrace_rmm.c alloctrace_native.c
  alloctrace_synth.c DEPS tlbsim_base tlbsim_trace PkgConfig::JSONC PkgConfig::ZLIB)
