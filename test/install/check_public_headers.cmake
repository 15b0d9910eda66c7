# Checks that the public headers stand alone: each header under include/silt/ includes only
# standard C++ headers and other headers of include/silt/, declares nothing outside the silt and
# silt::api namespaces, and compiles by itself as C++17 with only include/ on the include path.
#
#   cmake -DSILT_SOURCE_DIR=... -DCXX_COMPILER=... -DWORK_DIR=... -P check_public_headers.cmake

cmake_minimum_required(VERSION 3.24)

set(standard_headers
  algorithm any array atomic barrier bit bitset cassert cctype cerrno cfenv cfloat charconv
  chrono cinttypes climits clocale cmath codecvt compare complex concepts condition_variable
  coroutine csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib cstring ctime cuchar cwchar
  cwctype deque exception execution expected filesystem format forward_list fstream functional
  future initializer_list iomanip ios iosfwd iostream istream iterator latch limits list locale
  map memory memory_resource mutex new numbers numeric optional ostream queue random ranges
  ratio regex scoped_allocator semaphore set shared_mutex source_location span sstream stack
  stdexcept stop_token streambuf string string_view syncstream system_error thread tuple
  type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector
  version)

set(include_dir ${SILT_SOURCE_DIR}/include)
file(GLOB_RECURSE headers RELATIVE ${include_dir} ${include_dir}/*.h)
if(NOT headers)
  message(FATAL_ERROR "no public headers under ${include_dir}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(problems "")
foreach(header ${headers})
  file(STRINGS ${include_dir}/${header} lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
      set(included ${CMAKE_MATCH_2})
      if(CMAKE_MATCH_1 STREQUAL "<")
        if(NOT included IN_LIST standard_headers)
          string(APPEND problems "${header}: includes <${included}>, not a standard C++ header\n")
        endif()
      elseif(NOT included MATCHES "^silt/" OR NOT EXISTS ${include_dir}/${included})
        string(APPEND problems "${header}: includes \"${included}\", not a header of include/silt/\n")
      endif()
    elseif(line MATCHES "^[ \t]*#[ \t]*include")
      string(APPEND problems "${header}: an include this check cannot read: ${line}\n")
    endif()
    if(line MATCHES "^[ \t]*namespace[ \t]+([A-Za-z_:]+)")
      if(NOT CMAKE_MATCH_1 MATCHES "^(silt|api|silt::api)$")
        string(APPEND problems "${header}: opens namespace ${CMAKE_MATCH_1}\n")
      endif()
    endif()
  endforeach()

  # Compiled alone, and twice (include guards), without the source tree on the include path.
  string(MAKE_C_IDENTIFIER ${header} stem)
  set(source ${WORK_DIR}/${stem}.cc)
  file(WRITE ${source} "#include \"${header}\"\n#include \"${header}\"\n")
  execute_process(
    COMMAND ${CXX_COMPILER} -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I${include_dir}
            ${source}
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    string(APPEND problems "${header}: does not compile alone with only include/:\n${output}\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "public headers that do not stand alone:\n${problems}")
endif()
list(LENGTH headers count)
message(STATUS "${count} public headers stand alone")
