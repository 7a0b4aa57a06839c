# A Debian package of everything `cmake --install` puts in place (programs,
# libtlbsim, tlbsim.h, tlbsim.pc, the CMake package, presets, man pages,
# bash completion): `cpack -G DEB` in the build dir. It installs under
# CMAKE_INSTALL_PREFIX, the prefix the programs were built to find their
# presets in: configure with -DCMAKE_INSTALL_PREFIX=/usr for a distribution
# package. Depends are read from the binaries by dpkg-shlibdeps where it is.
set(CPACK_PACKAGE_NAME tlbsim)
set(CPACK_PACKAGE_VENDOR tlbsim)
set(CPACK_PACKAGE_CONTACT "tlbsim developers <tlbsim@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "page-table and TLB simulator, library and GPU measurement suite")
set(CPACK_PACKAGE_DESCRIPTION "tlbsim replays memory traces through configurable page tables, TLB levels,
page-walk caches and allocator policies; libtlbsim embeds the engine in C programs and Python notebooks.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
find_program(TLBSIM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TLBSIM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libinih1, libjson-c5, zlib1g, libzstd1, liblzma5, libisal2")
endif()
include(CPack)
