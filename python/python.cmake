# The tlbsim Python package (pure Python over libtlbsim.so.0 via ctypes),
# installed where Debian's python3 looks: lib/python3/dist-packages under
# /usr, lib/python3.X/dist-packages under any other prefix (/usr/local).
find_program(TLBSIM_PYTHON3 python3 HINTS /usr/bin)
set(tlbsim_python_dir lib/python3/dist-packages)
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND TLBSIM_PYTHON3)
  execute_process(COMMAND ${TLBSIM_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE tlbsim_python_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(tlbsim_python_dir lib/python${tlbsim_python_version}/dist-packages)
endif()
install(FILES ${CMAKE_CURRENT_LIST_DIR}/tlbsim/__init__.py DESTINATION ${tlbsim_python_dir}/tlbsim)
