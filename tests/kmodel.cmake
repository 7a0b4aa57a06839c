# The kernel model's parts (coalescing, caches, DRAM rows, the engine's band) and its scoreboard.
tlbsim_test(test_kmodel SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kmodel.c DEPS tlbsim_loader tlbsim_kmodel)
