# Installs the build into a scratch prefix, then configures, builds and runs the consumer
# project against that prefix alone, as a program outside silt would use the library.
#
#   cmake -DSILT_SOURCE_DIR=... -DSILT_BUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=...
#         -DCXX_COMPILER=... -DGENERATOR=... -DNM=... -P install_and_consume.cmake

cmake_minimum_required(VERSION 3.24)

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${step} failed (${result}):\n${output}")
  endif()
  set(last_output "${output}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

run("cmake --install" ${CMAKE_COMMAND} --install ${SILT_BUILD_DIR} --prefix ${prefix})

# The layout: the tool, the public headers and nothing of src/, the package files.
file(GLOB_RECURSE config_files ${prefix}/*/siltConfig.cmake)
foreach(expected bin/silt include/silt/session.h include/silt/result.h
                 include/silt/data_frame.h include/silt/delta_table.h include/silt/error.h)
  if(NOT EXISTS ${prefix}/${expected})
    message(FATAL_ERROR "the install has no ${expected}")
  endif()
endforeach()
if(NOT config_files)
  message(FATAL_ERROR "the install has no siltConfig.cmake")
endif()
file(GLOB_RECURSE internal_headers RELATIVE ${prefix}/include ${prefix}/include/silt/*/*.h)
if(internal_headers)
  message(FATAL_ERROR "internal headers were installed: ${internal_headers}")
endif()

# libsilt exports the public classes and none of the engine's.
file(GLOB_RECURSE libraries ${prefix}/*/libsilt.so)
if(NOT libraries)
  message(FATAL_ERROR "the install has no libsilt.so")
endif()
run("listing the symbols of libsilt" ${NM} -D -C --defined-only ${libraries})
string(REGEX MATCHALL "silt::(Session|DataFrame|Result|Row|DeltaTable|Error|StreamingQuery|DataStreamReader|DataStreamWriter)::[A-Za-z]+"
       public_symbols "${last_output}")
string(REGEX MATCHALL "[^\n]*silt::(api|base|io|types|vector|parquet|log|expr|exec|sql|commands|stream)::[^\n]*"
       internal_symbols "${last_output}")
string(REGEX MATCHALL "[^\n]* silt::(Batch|Vector|Schema|DataType|TimeZone|StatementOutput)[^A-Za-z][^\n]*"
       internal_types "${last_output}")
if(NOT public_symbols)
  message(FATAL_ERROR "libsilt exports none of the public classes:\n${last_output}")
endif()
if(internal_symbols OR internal_types)
  message(FATAL_ERROR "libsilt exports internal symbols:\n${internal_symbols}\n${internal_types}")
endif()

# A copy outside the source tree, so that nothing but the prefix can supply silt.
file(COPY ${CONSUMER_DIR}/ DESTINATION ${WORK_DIR}/consumer)
# A sanitized libsilt needs its runtime loaded first: the consumer is then sanitized as well.
set(consumer_flags)
if(SANITIZE)
  set(consumer_flags "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined"
                     "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${WORK_DIR}/consumer -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${consumer_flags})
file(STRINGS ${WORK_DIR}/build/CMakeCache.txt found_at REGEX "^silt_DIR:")
if(NOT found_at MATCHES "=${prefix}/")
  message(FATAL_ERROR "find_package(silt) did not find the scratch install: ${found_at}")
endif()
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

file(READ ${WORK_DIR}/build/compile_commands.json commands)
foreach(source_path ${SILT_SOURCE_DIR}/include ${SILT_SOURCE_DIR}/src)
  string(FIND "${commands}" "${source_path}" position)
  if(NOT position EQUAL -1)
    message(FATAL_ERROR "the consumer was compiled with ${source_path}:\n${commands}")
  endif()
endforeach()

run("running the consumer" ${WORK_DIR}/build/consumer ${WORK_DIR}/warehouse)
message(STATUS "${last_output}")
