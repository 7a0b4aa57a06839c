tlbsim_test(test_vas SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_vas.c DEPS tlbsim_vas)
# The tree and extent set are internal to the module: the test reaches them.
target_include_directories(test_vas PRIVATE ${PROJECT_SOURCE_DIR}/sim/src/alloc)
