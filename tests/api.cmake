# libtlbsim's facade, linked against the shared library (tlbsim_* only).
tlbsim_test(test_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_api.c DEPS tlbsim_shared)
# Its allocation summaries are compared with the tlbsim program's.
target_compile_definitions(test_api PRIVATE TLBSIM_VERSION="${PROJECT_VERSION}" TLBSIM_PROGRAM="$<TARGET_FILE:tlbsim>")
add_dependencies(test_api tlbsim)
