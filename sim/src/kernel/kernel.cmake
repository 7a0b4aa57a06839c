# The kernel model (tlbsim/kmodel.h): a kernel's warps over the GPU device (tlbsim/gdev.h), whose
# memory path runs on a thread of its own where one can start (kpipe.c: never in the browser build,
# whose pthread_create fails).
find_package(Threads REQUIRED)
tlbsim_module(kmodel SOURCES kmodel.c kpipe.c DEPS tlbsim_gdev tlbsim_ktrace m Threads::Threads)
# The embed kernel's blocks in memory (tlbsim/kembed.h), built with the
# kernel-trace module's block builder.
tlbsim_module(kembed SOURCES kembed.c DEPS tlbsim_ktrace tlbsim_exp)
target_include_directories(tlbsim_kembed PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../ktrace ${CMAKE_CURRENT_LIST_DIR}/../trace)
# The suite's stream and latency-chase kernels' blocks in memory (tlbsim/kstream.h, kchase.h).
tlbsim_module(kmicro SOURCES kstream.c kchase.c DEPS tlbsim_ktrace tlbsim_exp)
target_include_directories(tlbsim_kmicro PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../ktrace ${CMAKE_CURRENT_LIST_DIR}/../trace)
