# bash completion (completion/tlbsim.bash): it reads tlbsim's --help at
# completion time, so nothing is generated here.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/tlbsim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME tlbsim)
