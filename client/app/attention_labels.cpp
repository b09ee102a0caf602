#include "attention_labels.h"

#include <algorithm>

namespace tsserve::client::cli {

std::vector<std::string> patch_labels(const v1::ModelInfo& info,
                                      const std::vector<std::string>& row_labels) {
  const int64_t T = info.seq_len();
  if (info.patch_count() <= 0 || info.stride() <= 0 || info.patch_len() <= 0 || T <= 0) return {};
  const bool dated = row_labels.size() >= static_cast<size_t>(T);
  const size_t first_row = dated ? row_labels.size() - static_cast<size_t>(T) : 0;
  std::vector<std::string> labels;
  for (int64_t p = 0; p < info.patch_count(); ++p) {
    const int64_t start = p * info.stride();  // index into the T steps the model reads
    const int64_t end = start + info.patch_len() - 1;
    if (dated) {
      labels.push_back(row_labels[first_row + static_cast<size_t>(std::min(start, T - 1))]);
      continue;
    }
    labels.push_back(std::to_string(start - T) + ".." + std::to_string(std::min(end, T - 1) - T) +
                     (end >= T ? "+pad" : ""));
  }
  return labels;
}

}  // namespace tsserve::client::cli
