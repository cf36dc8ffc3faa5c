# SPDX-License-Identifier: MIT
# trawl_pkg_config(NAME LIB lib DESCRIPTION text
#                  [INSTALL_CFLAGS flags...] [BUILD_CFLAGS flags...]
#                  [INSTALL_LIBDIRS dirs...] [BUILD_LIBDIRS dirs...])
#
# Writes two pkg-config files for library `lib`, from cmake/trawl.pc.in:
#  - BUILD/lib/pkgconfig/NAME.pc, for programs built against the build tree
#    (PKG_CONFIG_PATH=BUILD/lib/pkgconfig): headers from the source tree's
#    include/, the library from BUILD/lib;
#  - the installed one, relocatable: its prefix is found from where the file
#    sits (${pcfiledir}), so a tree installed anywhere works as is.
# Flags may use ${includedir}; both default to -I${includedir}. LIBDIRS
# (which may use ${libdir}) come on the link path before ${libdir}.
function(trawl_pkg_config name)
  cmake_parse_arguments(P "" "LIB;DESCRIPTION" "INSTALL_CFLAGS;BUILD_CFLAGS;INSTALL_LIBDIRS;BUILD_LIBDIRS" ${ARGN})
  if(NOT P_INSTALL_CFLAGS)
    set(P_INSTALL_CFLAGS "-I\${includedir}")
  endif()
  if(NOT P_BUILD_CFLAGS)
    set(P_BUILD_CFLAGS "-I\${includedir}")
  endif()
  set(PC_NAME ${name})
  set(PC_LIB ${P_LIB})
  set(PC_DESCRIPTION "${P_DESCRIPTION}")

  set(PC_PREFIX ${CMAKE_BINARY_DIR})
  set(PC_LIBDIR ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  set(PC_INCLUDEDIR ${CMAKE_SOURCE_DIR}/include)
  list(JOIN P_BUILD_CFLAGS " " PC_CFLAGS)
  list(TRANSFORM P_BUILD_LIBDIRS PREPEND "-L")
  list(JOIN P_BUILD_LIBDIRS " " PC_LIBDIRS)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/trawl.pc.in
    ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/pkgconfig/${name}.pc @ONLY)

  file(RELATIVE_PATH _up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  set(PC_PREFIX "\${pcfiledir}/${_up}")
  set(PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  list(JOIN P_INSTALL_CFLAGS " " PC_CFLAGS)
  list(TRANSFORM P_INSTALL_LIBDIRS PREPEND "-L")
  list(JOIN P_INSTALL_LIBDIRS " " PC_LIBDIRS)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/trawl.pc.in
    ${CMAKE_BINARY_DIR}/pkgconfig-install/${name}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig-install/${name}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
