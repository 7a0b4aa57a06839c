# libtlbsim's facade (tlbsim/tlbsim.h); cmake/library.cmake builds the
# shared and static libraries around it. Presets are found as the CLI
# finds them: the loader module's.
tlbsim_module(api SOURCES api.c DEPS tlbsim_report tlbsim_report_alloc tlbsim_chase tlbsim_mrc tlbsim_loader tlbsim_ptview
              tlbsim_tlblog tlbsim_quiz tlbsim_sweep m)
target_compile_definitions(tlbsim_api PRIVATE TLBSIM_VERSION="${PROJECT_VERSION}")
