tlbsim_module(trace SOURCES trace.c trace_src.c trace_native.c trace_lackey.c trace_din.c trace_bin.c
  trace_champsim.c trace_pinatrace.c trace_write.c
  DEPS tlbsim_base tlbsim_uvm PkgConfig::ZLIB PkgConfig::ZSTD PkgConfig::LZMA PkgConfig::ISAL Threads::Threads)
