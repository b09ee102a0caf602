#pragma once
// Scaled dot-product attention over all keys (TSLib's FullAttention).

#include <optional>

#include "tsserve/model/inner_attention.h"

namespace tsserve::model {

class FullAttention final : public InnerAttention {
 public:
  // scale: multiplies the scores; 1/sqrt(E) when absent.
  explicit FullAttention(std::optional<double> scale = std::nullopt) : scale_(scale) {}

  AttentionOutput forward(const at::Tensor& queries, const at::Tensor& keys,
                          const at::Tensor& values, const AttentionMask& mask,
                          bool need_weights) const override;

 private:
  const std::optional<double> scale_;
};

}  // namespace tsserve::model
