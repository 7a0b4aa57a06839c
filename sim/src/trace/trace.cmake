# The codecs are the portability seam (trace_src_impl.h): gzip through
# ISA-L on a thread, zstd and xz natively; gzip through zlib in the
# reader's calls, no zstd or xz, in the browser build (TLBSIM_WEB). So is
# the fill thread (trace_ahead.h): natively on a thread, in the browser
# never.
if(TLBSIM_WEB)
  set(trace_codecs trace_src_gzip_zlib.c trace_src_zx_absent.c trace_ahead_none.c)
  set(trace_codec_deps)
else()
  set(trace_codecs trace_src_gzip.c trace_src_zx.c trace_ahead.c)
  set(trace_codec_deps PkgConfig::ZSTD PkgConfig::LZMA PkgConfig::ISAL Threads::Threads)
endif()
tlbsim_module(trace SOURCES trace.c trace_src.c ${trace_codecs} trace_native.c trace_lackey.c trace_din.c trace_bin.c
  trace_champsim.c trace_pinatrace.c trace_write.c
  DEPS tlbsim_base tlbsim_uvm PkgConfig::ZLIB ${trace_codec_deps})
