# silt_add_test(NAME name SOURCES a_test.cc ... LIBS silt_x ...)
# Builds one GoogleTest binary and registers it with CTest. Tests find the test data (test/data)
# through SILT_TEST_DATA_DIR and the silt binary through SILT_BINARY.
function(silt_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main silt_flags)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  # Sanitized builds (make debug-test) run every suite several times slower.
  if(SILT_SANITIZE)
    math(EXPR T_TIMEOUT "${T_TIMEOUT} * 4")
  endif()
  # Tests beside the code are unit tests; tests under test/ are integration tests (DuckDB peer,
  # golden tables, processes, the CLI). make debug-test runs both under ASan/UBSan.
  string(FIND "${CMAKE_CURRENT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/src/" in_src)
  if(in_src EQUAL 0)
    set(T_LABEL unit)
  else()
    set(T_LABEL integration)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS ${T_LABEL}
    ENVIRONMENT "SILT_TEST_DATA_DIR=${SILT_TEST_DATA_DIR};SILT_BINARY=$<TARGET_FILE:silt>")
endfunction()

# silt_add_layer_tests(PREFIX silt_exec LIBS silt_exec [EXCLUDE a_test.cc ...])
# One test binary per *_test.cc file of the current folder (named PREFIX_<file stem>), so that
# each part of a layer owns its tests without editing a shared list.
function(silt_add_layer_tests)
  cmake_parse_arguments(T "" "PREFIX" "LIBS;EXCLUDE" ${ARGN})
  file(GLOB test_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  foreach(test_file ${test_files})
    get_filename_component(file_name ${test_file} NAME)
    if(file_name IN_LIST T_EXCLUDE)
      continue()
    endif()
    get_filename_component(stem ${test_file} NAME_WE)
    string(REGEX REPLACE "_test$" "" stem ${stem})
    silt_add_test(NAME ${T_PREFIX}_${stem}_test SOURCES ${test_file} LIBS ${T_LIBS})
  endforeach()
endfunction()
