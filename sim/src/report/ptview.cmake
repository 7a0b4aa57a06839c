# Page tables in words: explain's walks and dump's tables (tlbsim/ptview.h).
tlbsim_module(ptview SOURCES ptview.c DEPS tlbsim_machine PkgConfig::JSONC)
