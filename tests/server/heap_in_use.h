#pragma once
// Bytes of heap this process holds in use now (glibc's malloc: small blocks and mapped
// large ones, every arena), for tests that bound what a call keeps or builds: a count of
// memory, not a timing.

#include <malloc.h>

#include <cstddef>

namespace tsserve::server::testing {

inline std::size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

}  // namespace tsserve::server::testing
