#include "sampled_dot.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <vector>

namespace tsserve::model {
namespace {

// Eight independent partial sums let the compiler use SIMD lanes without reassociating
// (no -ffast-math): the summation order is the one written here, on every machine.
constexpr int64_t kLanes = 8;

float dot(const float* a, const float* b, int64_t width) {
  float lane[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t e = 0;
  for (; e + kLanes <= width; e += kLanes) {
    for (int64_t t = 0; t < kLanes; ++t) lane[t] += a[e + t] * b[e + t];
  }
  float tail = 0;
  for (; e < width; ++e) tail += a[e] * b[e];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])) +
         tail;
}

at::Tensor sampled_dot_cpu(const at::Tensor& q, const at::Tensor& k, const at::Tensor& index) {
  const int64_t query_length = q.size(2);
  const int64_t key_length = k.size(2);
  const int64_t width = q.size(3);
  const int64_t samples = index.size(1);
  const at::Tensor qc = q.contiguous();
  const at::Tensor kc = k.contiguous();
  const at::Tensor ic = index.contiguous();
  at::Tensor out = at::empty({q.size(0), q.size(1), query_length, samples}, q.options());

  const float* qp = qc.data_ptr<float>();
  const float* kp = kc.data_ptr<float>();
  const int64_t* ip = ic.data_ptr<int64_t>();
  float* op = out.data_ptr<float>();
  const int64_t rows = q.size(0) * q.size(1) * query_length;  // one (b, h, l) each
  // Each output is computed alone, so how the range is split cannot change any value.
  at::parallel_for(0, rows, 256, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t head = r / query_length;
      const int64_t l = r % query_length;
      const float* query = qp + r * width;
      const float* keys = kp + head * key_length * width;
      const int64_t* picked = ip + l * samples;
      float* scores = op + r * samples;
      for (int64_t j = 0; j < samples; ++j) scores[j] = dot(query, keys + picked[j] * width, width);
    }
  });
  return out;
}

// Per-row budget for the gathered keys, in elements; it depends on the row shape only,
// never on B, so the chunking (and every bit of the result) is the same in any batch.
constexpr int64_t kGatherBudgetPerRow = int64_t{1} << 20;

at::Tensor sampled_dot_chunked(const at::Tensor& q, const at::Tensor& k, const at::Tensor& index) {
  const int64_t heads = q.size(1);
  const int64_t query_length = q.size(2);
  const int64_t width = q.size(3);
  const int64_t samples = index.size(1);
  const int64_t chunk =
      std::clamp<int64_t>(kGatherBudgetPerRow / (heads * query_length * width), 1, samples);
  std::vector<at::Tensor> parts;
  for (int64_t first = 0; first < samples; first += chunk) {
    const int64_t count = std::min(chunk, samples - first);
    const at::Tensor columns = index.narrow(1, first, count).reshape({-1});
    const at::Tensor sampled_keys =
        k.index_select(2, columns).view({q.size(0), heads, query_length, count, width});
    parts.push_back((q.unsqueeze(3) * sampled_keys).sum(-1));
  }
  return parts.size() == 1 ? parts.front() : at::cat(parts, -1);
}

}  // namespace

at::Tensor sampled_dot(const at::Tensor& q, const at::Tensor& k, const at::Tensor& index) {
  if (q.device().is_cpu() && q.scalar_type() == at::kFloat && k.scalar_type() == at::kFloat) {
    return sampled_dot_cpu(q, k, index);
  }
  return sampled_dot_chunked(q, k, index);
}

}  // namespace tsserve::model
