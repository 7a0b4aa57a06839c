# libtlbsim's facade (tlbsim/tlbsim.h); cmake/library.cmake builds the
# shared and static libraries around it. Presets are found as the CLI
# finds them.
tlbsim_module(api SOURCES api.c DEPS tlbsim_report tlbsim_report_alloc tlbsim_chase tlbsim_mrc tlbsim_machine tlbsim_config m)
target_compile_definitions(tlbsim_api PRIVATE
  TLBSIM_PRESET_SOURCE_DIR="${PROJECT_SOURCE_DIR}/sim/presets"
  TLBSIM_PRESET_INSTALL_DIR="${CMAKE_INSTALL_FULL_DATADIR}/tlbsim/presets"
  TLBSIM_VERSION="${PROJECT_VERSION}")
