#include "response_common.h"
#include "tsserve/server/forecast_response_encoder.h"

#include <string>

#include "tsserve/server/tensor_codec.h"

namespace tsserve::server {
namespace {

void write_forecast(const ForecastInput& input, const ModelShape& model,
                    const std::vector<float>& forecast, v1::Tensor* out) {
  const int64_t variables = input.variables;
  const int64_t horizon = model.pred_len;
  if (!input.scaler_applied && input.variables_by_time) {
    write_tensor(forecast.data(), {variables, horizon}, input.raw_output, out);
    return;
  }
  unsigned char* dst = input.variables_by_time
                           ? prepare_tensor({variables, horizon}, input.raw_output, out)
                           : prepare_tensor({horizon, variables}, input.raw_output, out);
  for (int64_t v = 0; v < variables; ++v) {
    double mean = 0;
    double stdev = 1;
    if (input.scaler_applied) {
      const auto c = static_cast<std::size_t>(input.scaler_column[static_cast<std::size_t>(v)]);
      mean = model.scaler_mean[c];
      stdev = model.scaler_std[c];
    }
    const float* row = forecast.data() + v * horizon;
    // [N, F]: consecutive; [F, N]: variable v is column v.
    const int64_t first = input.variables_by_time ? v * horizon : v;
    const int64_t step = input.variables_by_time ? 1 : variables;
    for (int64_t f = 0; f < horizon; ++f) {
      const float value = input.scaler_applied
                              ? static_cast<float>(static_cast<double>(row[f]) * stdev + mean)
                              : row[f];
      store_float(dst, first + f * step, value);
    }
  }
}

}  // namespace

grpc::Status encode_forecast_response(const ForecastInput& input, const ModelShape& model,
                                      ForecastOutput&& result, v1::ForecastResponse* out) {
  const int64_t expected = input.variables * model.pred_len;
  if (static_cast<int64_t>(result.forecast.size()) != expected) {
    return {grpc::StatusCode::INTERNAL,
            "forecast: the model returned " + std::to_string(result.forecast.size()) +
                " values for " + std::to_string(input.variables) + " variables x " +
                std::to_string(model.pred_len) + " points"};
  }
  grpc::Status status = check_attention_blocks(result.attention, model.n_heads, model.patch_count);
  if (!status.ok()) return status;

  write_forecast(input, model, result.forecast, out->mutable_forecast());
  std::vector<float>().swap(result.forecast);
  fill_common_fields(model, std::move(result), input.raw_output, input.request_id, out);
  out->set_input_points_used(input.input_points_used);
  out->set_scaler_applied(input.scaler_applied);
  return grpc::Status::OK;
}

}  // namespace tsserve::server
