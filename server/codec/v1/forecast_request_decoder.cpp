#include "server/codec/v1/forecast_request_decoder.h"

#include <string>

#include "server/codec/common/attention_selection.h"
#include "server/codec/common/request_id.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_rows.h"
#include "server/codec/common/tensor_codec.h"

namespace tsserve::server {
namespace {

grpc::Status invalid(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

grpc::Status check_timestamps(const google::protobuf::RepeatedField<int64_t>& timestamps,
                              const SeriesGeometry& g) {
  if (timestamps.empty()) return grpc::Status::OK;
  if (timestamps.size() != g.points) {
    return invalid("timestamps: " + std::to_string(timestamps.size()) + " entries for " +
                   std::to_string(g.points) + " input points; give one per point (T_in = " +
                   std::to_string(g.points) + ", all of them, before the cut to the last " +
                   std::to_string(g.used) + ") or none");
  }
  for (int i = 1; i < timestamps.size(); ++i) {
    if (timestamps.Get(i) <= timestamps.Get(i - 1)) {
      return invalid("timestamps: entry " + std::to_string(i) + " (" +
                     std::to_string(timestamps.Get(i)) + ") is not after entry " +
                     std::to_string(i - 1) + " (" + std::to_string(timestamps.Get(i - 1)) +
                     "); timestamps must be strictly increasing");
    }
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                                     const RequestLimits& limits, ForecastInput* out) {
  grpc::Status status = resolve_request_id(request.request_id(), &out->request_id);
  if (!status.ok()) return status;
  if (!v1::SeriesLayout_IsValid(request.layout())) {
    return invalid("layout: unknown value " + std::to_string(request.layout()) +
                   "; expected SERIES_LAYOUT_VARIABLES_BY_TIME (1) or "
                   "SERIES_LAYOUT_TIME_BY_VARIABLES (2)");
  }
  status = resolve_output_encoding(request.output_encoding(), &out->raw_output);
  if (!status.ok()) return status;

  const bool by_variable = request.layout() != v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  const TensorSpec spec{"series", 2, by_variable ? "[N, T_in]" : "[T_in, N]"};
  TensorView series;
  status = view_tensor(request.series(), spec, &series);
  if (!status.ok()) return status;
  SeriesGeometry g;
  g.by_variable = by_variable;
  g.variables = series.dim(by_variable ? 0 : 1);
  g.points = series.dim(by_variable ? 1 : 0);
  g.used = model.seq_len;
  const SeriesNames names{spec,
                          by_variable ? "layout VARIABLES_BY_TIME" : "layout TIME_BY_VARIABLES",
                          "SCALER_MODE_NONE"};
  status = check_series_geometry(g, names, limits);
  if (!status.ok()) return status;
  status = check_variable_names(request.variable_names(), g.variables);
  if (!status.ok()) return status;
  status = check_timestamps(request.timestamps(), g);
  if (!status.ok()) return status;
  ScalerMatch scaler;
  status =
      match_scaler(request.scaler_mode(), request.variable_names(), g.variables, model, &scaler);
  if (!status.ok()) return status;
  status =
      resolve_forecast_attention(request.attention(), model.e_layers, g.variables, &out->attention);
  if (!status.ok()) return status;
  return gather_series(series, g, names, request.variable_names(), model, std::move(scaler), out);
}

}  // namespace tsserve::server
