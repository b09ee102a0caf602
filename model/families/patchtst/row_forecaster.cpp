#include "tsserve/model/row_forecaster.h"

#include <ATen/ATen.h>

#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

// One request per row, each naming layers the model has: checked before either path runs.
void check_row_map_requests(const std::vector<RowMapRequest>& requests, int64_t rows,
                            int64_t layers) {
  if (static_cast<int64_t>(requests.size()) != rows) {
    throw ModelError("attention maps: " + std::to_string(requests.size()) + " row requests for " +
                     std::to_string(rows) + " series rows");
  }
  for (size_t row = 0; row < requests.size(); ++row) {
    for (int32_t layer : requests[row].layers) {
      if (layer < 0 || layer >= layers) {
        throw ModelError("attention maps of row " + std::to_string(row) + ": layer " +
                         std::to_string(layer) + " is not in [0, " + std::to_string(layers) + ")");
      }
    }
  }
}

}  // namespace

RowForecaster::RowForecaster(PatchTST model, CpuKernels kernels) : model_(std::move(model)) {
  if (kernels != CpuKernels::kFused) return;
  fallback_reason_ = fused_unsupported_reason(model_->config());
  if (fallback_reason_.empty() && !model_->head->linear->weight.device().is_cpu()) {
    fallback_reason_ = "the fused kernels run on the CPU and the model is on " +
                       model_->head->linear->weight.device().str();
  }
  if (fallback_reason_.empty()) fused_.emplace(*model_);
}

bool RowForecaster::runs_fused(const at::Tensor& series) const {
  return fused_ && series.device().is_cpu() && series.scalar_type() == at::kFloat;
}

RowForecast RowForecaster::forecast_rows(const at::Tensor& series, bool need_attention) const {
  if (!runs_fused(series)) {
    // The module has no mutable state in eval mode (patchtst.h), so const callers may share it.
    return model_.ptr()->forecast_rows(series, need_attention);
  }
  RowForecast out;
  if (!need_attention) {
    out.forecast = fused_->forecast_rows(series);
    return out;
  }
  // Every layer's per-head map of every row, written [R][L][H][P][P] in one pass.
  const FusedWeights& w = fused_->weights();
  const int64_t rows = series.dim() == 2 ? series.size(0) : 0;
  const auto layers = static_cast<int32_t>(w.layers.size());
  std::vector<int32_t> every_layer(static_cast<size_t>(layers));
  for (int32_t i = 0; i < layers; ++i) every_layer[static_cast<size_t>(i)] = i;
  const at::Tensor maps = at::empty({rows, layers, w.n_heads, w.patches, w.patches}, at::kFloat);
  std::vector<FusedRowMaps> requests(static_cast<size_t>(rows));
  for (int64_t row = 0; row < rows; ++row) {
    requests[static_cast<size_t>(row)] = {maps[row].data_ptr<float>(), every_layer.data(), layers,
                                          false};
  }
  out.forecast = fused_->forecast_rows(series, requests.data());
  for (int32_t i = 0; i < layers; ++i) out.attention.push_back(maps.select(1, i).contiguous());
  return out;
}

ForecastWithRowMaps RowForecaster::forecast_rows_with_maps(
    const at::Tensor& series, const std::vector<RowMapRequest>& requests) const {
  if (series.dim() != 2) {
    throw ModelError("forecast_rows_with_maps expects series [rows, " +
                     std::to_string(model_->config().seq_len) + "], got " +
                     c10::str(series.sizes()));
  }
  check_row_map_requests(requests, series.size(0), model_->config().e_layers);
  if (runs_fused(series)) return fused_->forecast_rows_with_maps(series, requests);
  return module_forecast_with_maps(series, requests);
}

ForecastWithRowMaps RowForecaster::module_forecast_with_maps(
    const at::Tensor& series, const std::vector<RowMapRequest>& requests) const {
  PatchTSTImpl& model = *model_.ptr();
  ForecastWithRowMaps out;
  out.forecast = model.forecast_rows(series, false).forecast;
  out.maps.resize(requests.size());
  std::vector<int64_t> asking;
  for (size_t row = 0; row < requests.size(); ++row) {
    if (!requests[row].layers.empty()) asking.push_back(static_cast<int64_t>(row));
  }
  if (asking.empty()) return out;
  const at::Tensor index = at::tensor(asking, at::kLong).to(series.device());
  const std::vector<at::Tensor> attention =
      model.forecast_rows(series.index_select(0, index), true).attention;  // [A, H, P, P]
  for (size_t i = 0; i < asking.size(); ++i) {
    const RowMapRequest& request = requests[static_cast<size_t>(asking[i])];
    std::vector<at::Tensor> layers;
    for (int32_t layer : request.layers) {
      layers.push_back(attention[static_cast<size_t>(layer)][static_cast<int64_t>(i)]);
    }
    at::Tensor maps = at::stack(layers);  // [n, H, P, P]
    out.maps[static_cast<size_t>(asking[i])] = request.average_heads ? maps.mean(1) : maps;
  }
  return out;
}

}  // namespace tsserve::model
