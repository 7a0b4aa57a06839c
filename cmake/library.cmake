# libtlbsim: every module's objects as one shared library (soname
# libtlbsim.so.MAJOR, exporting only the tlbsim_* facade of
# sim/include/tlbsim/tlbsim.h: cmake/tlbsim.map) and one static library;
# installed with that header, tlbsim.pc and a CMake package (tlbsim::tlbsim,
# tlbsim::tlbsim_static).
include(CMakePackageConfigHelpers)

# The modules are sim/'s alone (the experiments tlbsim-gpu shares with the
# simulator are its exp module): nothing of gpu/ is in the library.
get_property(tlbsim_lib_modules GLOBAL PROPERTY TLBSIM_MODULES)
set(tlbsim_lib_objects)
foreach(m ${tlbsim_lib_modules})
  list(APPEND tlbsim_lib_objects $<TARGET_OBJECTS:${m}>)
endforeach()
set(tlbsim_lib_deps PkgConfig::INIH PkgConfig::JSONC PkgConfig::ZLIB PkgConfig::ZSTD PkgConfig::LZMA PkgConfig::ISAL Threads::Threads m)
set(tlbsim_lib_includes $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/sim/include>
                        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

add_library(tlbsim_shared SHARED ${tlbsim_lib_objects})
set_target_properties(tlbsim_shared PROPERTIES OUTPUT_NAME tlbsim EXPORT_NAME tlbsim
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/tlbsim.map)
target_link_libraries(tlbsim_shared PRIVATE ${tlbsim_lib_deps})
target_link_options(tlbsim_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/tlbsim.map)
target_include_directories(tlbsim_shared INTERFACE ${tlbsim_lib_includes})

add_library(tlbsim_static STATIC ${tlbsim_lib_objects})
set_target_properties(tlbsim_static PROPERTIES OUTPUT_NAME tlbsim EXPORT_NAME tlbsim_static)
# By library name, not the build's pkg-config targets: the installed
# package needs nothing of this build.
target_link_libraries(tlbsim_static INTERFACE ${INIH_LIBRARIES} ${JSONC_LIBRARIES} ${ZLIB_LIBRARIES}
  ${ZSTD_LIBRARIES} ${LZMA_LIBRARIES} ${ISAL_LIBRARIES} pthread m)
target_include_directories(tlbsim_static INTERFACE ${tlbsim_lib_includes})

install(TARGETS tlbsim_shared tlbsim_static EXPORT tlbsimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/sim/include/tlbsim/tlbsim.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tlbsim)
set(tlbsim_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tlbsim)
install(EXPORT tlbsimTargets NAMESPACE tlbsim:: DESTINATION ${tlbsim_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tlbsimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tlbsimConfig.cmake INSTALL_DESTINATION ${tlbsim_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tlbsimConfigVersion.cmake COMPATIBILITY SameMajorVersion)
# tlbsim.pc names its prefix relative to ${pcfiledir} (LIBDIR/pkgconfig), and
# LIBDIR and INCLUDEDIR relative to the prefix unless they are absolute.
file(RELATIVE_PATH tlbsim_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" tlbsim_pc_to_prefix "${tlbsim_pc_to_prefix}")
foreach(dir LIBDIR INCLUDEDIR)
  string(TOLOWER ${dir} name)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(tlbsim_pc_${name} "${CMAKE_INSTALL_${dir}}")
  else()
    set(tlbsim_pc_${name} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/tlbsim.pc.in ${PROJECT_BINARY_DIR}/tlbsim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tlbsimConfig.cmake ${PROJECT_BINARY_DIR}/tlbsimConfigVersion.cmake
  DESTINATION ${tlbsim_cmake_dir})
install(FILES ${PROJECT_BINARY_DIR}/tlbsim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
