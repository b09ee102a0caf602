# nlohmann-json and GoogleTest. The system's CMake packages where they exist (Debian's
# nlohmann-json3-dev and libgtest-dev); on a machine that has only the json headers or
# the GoogleTest sources (a model-only build against another LibTorch, e.g. a CUDA one),
# the header directory or a build of the sources stands in.

find_package(nlohmann_json QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(TSSERVE_NLOHMANN_JSON_INCLUDE nlohmann/json.hpp)
  if(NOT TSSERVE_NLOHMANN_JSON_INCLUDE)
    message(FATAL_ERROR "nlohmann-json: no CMake package and no nlohmann/json.hpp found; "
                        "install nlohmann-json3-dev or set TSSERVE_NLOHMANN_JSON_INCLUDE")
  endif()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE
                             ${TSSERVE_NLOHMANN_JSON_INCLUDE})
endif()

if(NOT TSSERVE_BUILD_TESTS)
  return()
endif()

set(TSSERVE_GOOGLETEST_SOURCE "" CACHE PATH
    "Build GoogleTest from these sources (e.g. /usr/src/googletest) instead of using the installed package")
if(NOT TSSERVE_GOOGLETEST_SOURCE)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    if(NOT EXISTS /usr/src/googletest/CMakeLists.txt)
      message(FATAL_ERROR "GoogleTest: no CMake package and no sources in /usr/src/googletest; "
                          "install libgtest-dev or set TSSERVE_GOOGLETEST_SOURCE")
    endif()
    set(TSSERVE_GOOGLETEST_SOURCE /usr/src/googletest)
  endif()
endif()

# A function scope keeps the flags below to GoogleTest's own targets.
function(tsserve_add_googletest source)
  # The same C++ ABI (_GLIBCXX_USE_CXX11_ABI) as LibTorch, or std::string won't link.
  string(APPEND CMAKE_CXX_FLAGS " ${TORCH_CXX_FLAGS}")
  set(INSTALL_GTEST OFF)
  add_subdirectory(${source} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
endfunction()

if(TSSERVE_GOOGLETEST_SOURCE)
  tsserve_add_googletest(${TSSERVE_GOOGLETEST_SOURCE})
  foreach(lib gtest gtest_main gmock)
    if(NOT TARGET GTest::${lib})
      add_library(GTest::${lib} ALIAS ${lib})
    endif()
  endforeach()
endif()
