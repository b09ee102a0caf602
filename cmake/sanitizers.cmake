# TSSERVE_SANITIZE: build every target of this project with GCC/Clang sanitizers.
#   -DTSSERVE_SANITIZE="address;undefined"   AddressSanitizer (+ LeakSanitizer) and UBSan
#   -DTSSERVE_SANITIZE=thread                ThreadSanitizer
# Included by the top-level CMakeLists.txt before any target exists, so the directory-wide
# add_compile_options/add_link_options reach every library, executable and test. LibTorch,
# gRPC, protobuf and OpenBLAS stay uninstrumented system libraries; tests/sanitizers/run.sh
# sets the runtime options and the suppression files for them.
set(TSSERVE_SANITIZE "" CACHE STRING
    "Sanitizers for every target: empty (none), address;undefined, address, undefined or thread")
set_property(CACHE TSSERVE_SANITIZE PROPERTY STRINGS
             "" "address;undefined" "address" "undefined" "thread")

if(TSSERVE_SANITIZE)
  # Also accept the compiler's own comma form ("address,undefined").
  string(REPLACE "," ";" tsserve_sanitizers "${TSSERVE_SANITIZE}")
  list(REMOVE_DUPLICATES tsserve_sanitizers)
  foreach(sanitizer IN LISTS tsserve_sanitizers)
    if(NOT sanitizer MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "TSSERVE_SANITIZE: unknown sanitizer '${sanitizer}'; expected a "
                          "list of address, undefined and thread (e.g. \"address;undefined\" "
                          "or \"thread\")")
    endif()
  endforeach()
  # ASan and TSan each map the whole address space for their own shadow memory; the
  # compiler refuses the pair, so say so here, before a long configure.
  if("thread" IN_LIST tsserve_sanitizers AND "address" IN_LIST tsserve_sanitizers)
    message(FATAL_ERROR "TSSERVE_SANITIZE: 'thread' cannot be combined with 'address' (each "
                        "sanitizer owns the shadow memory); configure two build directories: "
                        "\"address;undefined\" and \"thread\"")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
    message(FATAL_ERROR "TSSERVE_SANITIZE needs GCC or Clang; the compiler is "
                        "${CMAKE_CXX_COMPILER_ID}")
  endif()
  # libFuzzer (TSSERVE_FUZZ) links its own ASan-compatible runtime; TSan is not one of them.
  if(TSSERVE_FUZZ AND "thread" IN_LIST tsserve_sanitizers)
    message(FATAL_ERROR "TSSERVE_SANITIZE=thread cannot be combined with TSSERVE_FUZZ "
                        "(libFuzzer runs with address/undefined only)")
  endif()

  list(JOIN tsserve_sanitizers "," tsserve_sanitizer_list)
  # Frame pointers give the fast unwinder whole stacks in reports (RelWithDebInfo keeps
  # line numbers).
  set(tsserve_sanitizer_flags -fsanitize=${tsserve_sanitizer_list} -fno-omit-frame-pointer)
  if("undefined" IN_LIST tsserve_sanitizers)
    # Undefined behaviour must fail the test that hits it, not print and carry on.
    list(APPEND tsserve_sanitizer_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${tsserve_sanitizer_flags})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's ASan instrumentation makes -Wmaybe-uninitialized fire inside libstdc++'s
    # <regex> (std::function moved in _NFA::_M_insert_*, client/src/npy_file.cpp): a false
    # positive in a system header that the normal build does not see. Still printed,
    # no longer fatal under TSSERVE_WERROR.
    add_compile_options(-Wno-error=maybe-uninitialized)
  endif()
  add_link_options(${tsserve_sanitizer_flags})
  message(STATUS "tsserve: sanitizers ${tsserve_sanitizer_list} (${tsserve_sanitizer_flags})")
endif()
