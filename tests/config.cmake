tlbsim_test(test_config SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c DEPS tlbsim_config tlbsim_phys)
# The browser build's INI syntax against libinih's (sim/src/config/config_ini.h).
tlbsim_test(test_config_ini SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_ini.c
  ${PROJECT_SOURCE_DIR}/sim/src/config/config_ini_web.c DEPS tlbsim_config)
set_source_files_properties(${PROJECT_SOURCE_DIR}/sim/src/config/config_ini_web.c PROPERTIES COMPILE_DEFINITIONS cfg_ini_parse=cfg_ini_parse_web)
