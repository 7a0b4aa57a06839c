# The tlbsim program: main.c dispatches to one cmd_<name>.c per subcommand.
file(GLOB cli_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
add_executable(tlbsim ${cli_sources})
get_property(all_modules GLOBAL PROPERTY TLBSIM_MODULES)
target_link_libraries(tlbsim PRIVATE ${all_modules} m)
target_compile_definitions(tlbsim PRIVATE
  TLBSIM_VERSION="${PROJECT_VERSION}")
install(TARGETS tlbsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/presets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tlbsim/presets)
