# The presets of sim/presets, compiled in (loader_presets.h).
file(GLOB tlbsim_preset_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/presets/*.ini)
set(tlbsim_presets_c ${CMAKE_CURRENT_BINARY_DIR}/loader_presets.c)
string(REPLACE ";" "|" tlbsim_preset_list "${tlbsim_preset_files}") # one argument
add_custom_command(OUTPUT ${tlbsim_presets_c}
  COMMAND ${CMAKE_COMMAND} -DOUT=${tlbsim_presets_c} "-DPRESETS=${tlbsim_preset_list}"
          -P ${CMAKE_CURRENT_LIST_DIR}/embed_presets.cmake
  DEPENDS ${tlbsim_preset_files} ${CMAKE_CURRENT_LIST_DIR}/embed_presets.cmake
  COMMENT "Compiling the presets in" VERBATIM)
tlbsim_module(loader SOURCES loader.c DEPS tlbsim_machine)
target_sources(tlbsim_loader PRIVATE ${tlbsim_presets_c})
target_include_directories(tlbsim_loader PRIVATE ${CMAKE_CURRENT_LIST_DIR})
