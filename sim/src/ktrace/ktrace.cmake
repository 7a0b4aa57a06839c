# Accel-Sim kernel traces (tlbsim/ktrace.h): read through the trace module's
# trace_src (plain, gzip, zstd, xz), whose header the ktrace files include.
# ktrace_ahead.c reads blocks on a thread when the trace module's fill
# thread would run (trace_ahead.h: natively, with the trace module's
# Threads::Threads; in the browser build never).
tlbsim_module(ktrace SOURCES ktrace.c ktrace_in.c ktrace_op.c ktrace_text.c ktrace_bin.c ktrace_write.c ktrace_tb.c
  ktrace_summary.c ktrace_ahead.c DEPS tlbsim_trace)
target_include_directories(tlbsim_ktrace PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../trace)
