#include "tsserve/model/flatten_head.h"

namespace tsserve::model {

FlattenHeadImpl::FlattenHeadImpl(int64_t inputs, int64_t pred_len) {
  linear = register_module("linear", torch::nn::Linear(inputs, pred_len));
}

}  // namespace tsserve::model
