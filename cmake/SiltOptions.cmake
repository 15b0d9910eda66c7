# Compiler flags shared by every silt target.
add_library(silt_flags INTERFACE)
target_compile_options(silt_flags INTERFACE
  -Wall -Wextra -Wno-unused-parameter -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(SILT_WERROR)
  target_compile_options(silt_flags INTERFACE -Werror)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  # -O2 with assertions off, as the release preset promises.
  set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "" FORCE)
  set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "" FORCE)
endif()
if(SILT_SANITIZE)
  target_compile_options(silt_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
  target_link_options(silt_flags INTERFACE -fsanitize=address,undefined)
endif()
if(SILT_FUZZING)
  target_compile_options(silt_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-omit-frame-pointer)
  target_link_options(silt_flags INTERFACE -fsanitize=address,undefined)
endif()
target_compile_definitions(silt_flags INTERFACE SILT_VERSION="${PROJECT_VERSION}")
