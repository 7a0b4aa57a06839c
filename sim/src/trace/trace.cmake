# The codecs are the portability seam (trace_src_impl.h): gzip through
# ISA-L on a thread, zstd and xz natively; gzip through zlib in the
# reader's calls, no zstd or xz, in the browser build (TLBSIM_WEB). So is
# the fill thread (trace_ahead.h): natively on a thread, in the browser
# never. The GPU machine's plain build (gpu/scripts/device_sweep.sh, which
# has zlib and threads but no ISA-L or liblzma) reads the module's sources
# from this file and takes each ${trace_X} list as trace_X_device: gzip
# through zlib, no zstd or xz, the fill thread.
set(trace_codecs_native trace_src_gzip.c trace_src_zx.c trace_ahead.c)
set(trace_codecs_web trace_src_gzip_zlib.c trace_src_zx_absent.c trace_ahead_none.c)
set(trace_codecs_device trace_src_gzip_zlib.c trace_src_zx_absent.c trace_ahead.c)
if(TLBSIM_WEB)
  set(trace_codecs ${trace_codecs_web})
  set(trace_codec_deps)
else()
  set(trace_codecs ${trace_codecs_native})
  set(trace_codec_deps PkgConfig::ZSTD PkgConfig::LZMA PkgConfig::ISAL Threads::Threads)
endif()
tlbsim_module(trace SOURCES trace.c trace_src.c ${trace_codecs} trace_native.c trace_lackey.c trace_din.c trace_bin.c
  trace_champsim.c trace_pinatrace.c trace_write.c
  DEPS tlbsim_base tlbsim_uvm_names PkgConfig::ZLIB ${trace_codec_deps})
