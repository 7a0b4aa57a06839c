tlbsim_module(quiz SOURCES quiz.c quiz_pt.c quiz_tlb.c quiz_alloc.c DEPS tlbsim_machine PkgConfig::JSONC)
