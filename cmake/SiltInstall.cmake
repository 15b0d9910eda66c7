# What `cmake --install` (and `make install PREFIX=...`) puts under the prefix:
#   bin/silt                          the command-line tool
#   lib/libsilt.so*                   the public API as one shared library
#   include/silt/*.h                  its headers (the only public ones)
#   lib/cmake/silt/                   the CMake package: find_package(silt) gives silt::silt
# Other files (documentation, shell completions, language bindings) add their own install()
# rules beside their sources. Components, for packages that split them: silt_runtime (the tool
# and the versioned library) and silt_development (the libsilt.so link, headers, CMake package).
include(CMakePackageConfigHelpers)

set(SILT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/silt)

install(TARGETS silt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT silt_runtime)
# The include directory comes with the target (its INSTALL_INTERFACE, src/silt/api/CMakeLists.txt).
install(TARGETS silt_library EXPORT siltTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT silt_runtime
          NAMELINK_COMPONENT silt_development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/silt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT silt_development FILES_MATCHING PATTERN "*.h")

install(EXPORT siltTargets NAMESPACE silt:: DESTINATION ${SILT_INSTALL_CMAKEDIR}
  COMPONENT silt_development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/siltConfig.cmake.in
  ${PROJECT_BINARY_DIR}/siltConfig.cmake
  INSTALL_DESTINATION ${SILT_INSTALL_CMAKEDIR})
# Before 1.0 a minor release may change the API; only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/siltConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/siltConfig.cmake ${PROJECT_BINARY_DIR}/siltConfigVersion.cmake
  DESTINATION ${SILT_INSTALL_CMAKEDIR} COMPONENT silt_development)
