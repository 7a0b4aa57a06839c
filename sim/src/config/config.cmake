# The INI syntax is libinih's; the browser build (TLBSIM_WEB), which has no
# libinih, has its own of the same rules (config_ini.h).
if(TLBSIM_WEB)
  tlbsim_module(config SOURCES config.c config_ini_web.c DEPS tlbsim_base)
else()
  tlbsim_module(config SOURCES config.c config_ini_inih.c DEPS tlbsim_base PkgConfig::INIH)
endif()
