# The man pages, generated at build time by man/gen_man.sh from what they
# document (the programs' --help, the modules' key tables, traces/FORMAT.md) and installed under share/man.
# tlbsim-gpu's --help is printed by gpu/'s tlbsim_gpu_usage (tlbsim-gpu needs CUDA).
add_executable(man_source ${CMAKE_CURRENT_LIST_DIR}/man_source.c)
target_link_libraries(man_source PRIVATE tlbsim_loader)
set(man_dir ${PROJECT_BINARY_DIR}/man)
set(man_pages ${man_dir}/tlbsim.1 ${man_dir}/tlbsim-gpu.1 ${man_dir}/tlbsim.ini.5 ${man_dir}/tlbsim-trace.5)
add_custom_command(OUTPUT ${man_pages}
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/gen_man.sh ${man_dir} ${PROJECT_VERSION} $<TARGET_FILE:tlbsim>
          $<TARGET_FILE:man_source> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:tlbsim_gpu_usage>
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/gen_man.sh
          ${PROJECT_SOURCE_DIR}/traces/FORMAT.md tlbsim man_source tlbsim_gpu_usage
  COMMENT "Generating the man pages")
add_custom_target(man ALL DEPENDS ${man_pages})
install(FILES ${man_dir}/tlbsim.1 ${man_dir}/tlbsim-gpu.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${man_dir}/tlbsim.ini.5 ${man_dir}/tlbsim-trace.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
