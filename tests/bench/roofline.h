#pragma once
// The machine's own limits, measured (not taken from a data sheet): one core's peak
// single-precision FMA rate and its streaming read bandwidth from memory.

#include <cstddef>

namespace tsserve::bench {

// GFLOP/s (per second of thread CPU time) of independent vector FMAs on the calling thread, with
// the widest of AVX-512 / AVX2+FMA this CPU has (0 when it has neither). `name` gets the ISA used.
double measure_fma_peak_gflops(const char** name);

// GB/s (per second of thread CPU time) read by one thread summing a buffer of `bytes` (far larger
// than the caches).
double measure_read_bandwidth_gbs(std::size_t bytes);

}  // namespace tsserve::bench
