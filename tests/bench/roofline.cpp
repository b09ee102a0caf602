#include "roofline.h"

#include <immintrin.h>
#include <time.h>

#include <vector>

namespace tsserve::bench {
namespace {

// Enough independent accumulators to cover the FMA latency (4-5 cycles) on both ports.
constexpr int kChains = 12;
constexpr long kIterations = 20'000'000;

// Thread CPU time, not wall time: on a shared machine the loop is descheduled at times,
// and the peak is what the core does while it runs (model_bench's GFLOP/s counters are
// per CPU second too).
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double seconds_since(double start) { return thread_seconds() - start; }

__attribute__((target("avx512f"))) double fma_avx512() {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  const double start = thread_seconds();
  for (long n = 0; n < kIterations; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  const double elapsed = seconds_since(start);
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 16 * kChains * kIterations / elapsed / 1e9;
}

__attribute__((target("avx2,fma"))) double fma_avx2() {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  const double start = thread_seconds();
  for (long n = 0; n < kIterations; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  const double elapsed = seconds_since(start);
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 8 * kChains * kIterations / elapsed / 1e9;
}

__attribute__((target("avx2"))) double sum_floats(const float* data, std::size_t count) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  for (std::size_t i = 0; i + 32 <= count; i += 32) {
    for (int j = 0; j < 4; ++j) acc[j] = _mm256_add_ps(acc[j], _mm256_loadu_ps(data + i + 8 * j));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes,
                  _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
  return lanes[0];
}

}  // namespace

double measure_fma_peak_gflops(const char** name) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    *name = "avx512";
    return fma_avx512();
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    *name = "avx2";
    return fma_avx2();
  }
  *name = "none";
  return 0;
}

double measure_read_bandwidth_gbs(std::size_t bytes) {
  if (!__builtin_cpu_supports("avx2")) return 0;
  std::vector<float> data(bytes / sizeof(float), 1.0f);
  volatile double sink = sum_floats(data.data(), data.size());  // first touch, warm TLB
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    const double start = thread_seconds();
    sink = sum_floats(data.data(), data.size());
    const double rate = static_cast<double>(bytes) / seconds_since(start) / 1e9;
    if (rate > best) best = rate;
  }
  (void)sink;
  return best;
}

}  // namespace tsserve::bench
