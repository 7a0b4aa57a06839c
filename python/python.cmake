# The tlbsim Python package (pure Python over libtlbsim.so.0 via ctypes),
# installed where Debian's python3 looks: lib/python3/dist-packages under
# /usr, lib/python3.X/dist-packages under any other prefix (/usr/local).
# Each copy knows where its library is (tlbsim/_where.py, read by
# __init__.py): the build tree's copy (build/python/tlbsim, for
# PYTHONPATH=build/python) the build directory, the installed one the
# install's lib directory, relative to itself (a moved install still finds it).
find_program(TLBSIM_PYTHON3 python3 HINTS /usr/bin)
set(tlbsim_python_dir lib/python3/dist-packages)
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND TLBSIM_PYTHON3)
  execute_process(COMMAND ${TLBSIM_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE tlbsim_python_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(tlbsim_python_dir lib/python${tlbsim_python_version}/dist-packages)
endif()
set(tlbsim_python_src ${CMAKE_CURRENT_LIST_DIR}/tlbsim/__init__.py)
set(tlbsim_python_build ${PROJECT_BINARY_DIR}/python/tlbsim)

# The installed copy's _where.py: the lib directory relative to the package.
file(RELATIVE_PATH tlbsim_python_to_lib ${CMAKE_INSTALL_PREFIX}/${tlbsim_python_dir}/tlbsim
  ${CMAKE_INSTALL_FULL_LIBDIR})
file(WRITE ${PROJECT_BINARY_DIR}/python-install/_where.py
  "# Written by python/python.cmake: where the installed libtlbsim is, from this package.\n"
  "LIBRARY_DIRS = [\"${tlbsim_python_to_lib}\"]\n")
install(FILES ${tlbsim_python_src} ${PROJECT_BINARY_DIR}/python-install/_where.py
  DESTINATION ${tlbsim_python_dir}/tlbsim)

# The build tree's copy: the package, and a _where.py naming the build directory.
add_custom_command(OUTPUT ${tlbsim_python_build}/__init__.py
  COMMAND ${CMAKE_COMMAND} -E copy ${tlbsim_python_src} ${tlbsim_python_build}/__init__.py
  DEPENDS ${tlbsim_python_src} VERBATIM)
file(GENERATE OUTPUT ${tlbsim_python_build}/_where.py CONTENT
  "# Written by python/python.cmake: the build tree's libtlbsim.\nLIBRARY_DIRS = [\"$<TARGET_FILE_DIR:tlbsim_shared>\"]\n")
add_custom_target(python_package ALL DEPENDS ${tlbsim_python_build}/__init__.py)
