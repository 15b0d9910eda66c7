# What installs beside the silt binary: the manual page and shell completions (printed by the
# binary from its own command definitions, so they cannot drift from --help), the Python
# package, and the Debian package (`make deb`, CPack's DEB generator).
include(GNUInstallDirs)

# --- Manual page and completions, laid out in the build tree as they install -----------------
set(SILT_MAN_PAGE ${PROJECT_BINARY_DIR}/share/man/man1/silt.1)
set(SILT_BASH_COMPLETION ${PROJECT_BINARY_DIR}/share/bash-completion/completions/silt)
set(SILT_ZSH_COMPLETION ${PROJECT_BINARY_DIR}/share/zsh/vendor-completions/_silt)

function(silt_generate_from_binary output arguments)
  get_filename_component(folder ${output} DIRECTORY)
  file(MAKE_DIRECTORY ${folder})
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:silt> -DARGUMENTS=${arguments}
            -DOUTPUT=${output} -P ${PROJECT_SOURCE_DIR}/cmake/SiltWriteCommandOutput.cmake
    DEPENDS silt ${PROJECT_SOURCE_DIR}/cmake/SiltWriteCommandOutput.cmake
    COMMENT "Writing ${output} from silt's command definitions"
    VERBATIM)
endfunction()
silt_generate_from_binary(${SILT_MAN_PAGE} "--help-man")
silt_generate_from_binary(${SILT_BASH_COMPLETION} "--completion,bash")
silt_generate_from_binary(${SILT_ZSH_COMPLETION} "--completion,zsh")
# Installed compressed, as Debian ships manual pages (gzip -9n: no name or time stamp inside).
find_program(SILT_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${SILT_MAN_PAGE}.gz
  COMMAND ${SILT_GZIP} -9nkf ${SILT_MAN_PAGE}
  DEPENDS ${SILT_MAN_PAGE}
  VERBATIM)
add_custom_target(silt_reference ALL
  DEPENDS ${SILT_MAN_PAGE} ${SILT_MAN_PAGE}.gz ${SILT_BASH_COMPLETION} ${SILT_ZSH_COMPLETION})

# (The binary, libsilt, headers and the CMake package: cmake/SiltInstall.cmake.)
install(FILES ${SILT_MAN_PAGE}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${SILT_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${SILT_ZSH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# --- Python package ----------------------------------------------------------------------------
# Debian's layout: its python3 imports /usr/lib/python3/dist-packages, so an install under
# /usr needs nothing more; an install under another prefix needs
# PYTHONPATH=<prefix>/lib/python3/dist-packages.
set(SILT_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where the Python package silt installs, relative to the prefix")
if(TARGET silt_python)
  install(TARGETS silt_python LIBRARY DESTINATION ${SILT_PYTHON_INSTALL_DIR}/silt)
  install(DIRECTORY ${SILT_PYTHON_SOURCE_DIR}/ DESTINATION ${SILT_PYTHON_INSTALL_DIR}/silt
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()

# --- Debian package: `make deb` or `cpack -G DEB` in the build folder --------------------------
set(SILT_DEB_MAINTAINER "silt developers" CACHE STRING
    "The Maintainer field of the Debian package (\"Name <email>\")")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME silt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "native engine for Delta Lake tables")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SILT_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION database)
# CPack puts the summary above this text.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "silt reads and writes Delta Lake tables (the same transaction log and Parquet files as
Spark's Delta Lake and delta-rs) with Spark SQL, without a JVM: the silt command, its
manual page and shell completions, and the Python module silt.")
# The shared libraries the binary and the Python module link, as dpkg-shlibdeps finds them, and
# the three they open when first needed (src/silt/base/shared_library.h), which it cannot see:
# libcurl and libcrypto (libssl3) for object storage, libpq for the PostgreSQL change data source.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4, libpq5, libssl3")
if(TARGET silt_python)
  # The extension is built for one CPython ABI.
  math(EXPR silt_python_next_minor "${SILT_PYTHON_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
      ", python3 (>= ${SILT_PYTHON_VERSION}), python3 (<< ${SILT_PYTHON_VERSION_MAJOR}.${silt_python_next_minor})")
endif()
include(CPack)
