#include "server/codec/v1/forecast_response_encoder.h"

#include "response_common.h"
#include "server/codec/common/finite_answer.h"
#include "server/codec/common/forecast_values.h"
#include "server/codec/common/tensor_codec.h"

namespace tsserve::server {

grpc::Status encode_forecast_response(const ForecastInput& input, const ModelShape& model,
                                      ForecastOutput&& result, v1::ForecastResponse* out) {
  grpc::Status status = check_forecast_output(input, model, result);
  if (!status.ok()) return status;
  status = check_forecast_finite(input, model, result);
  if (!status.ok()) return status;

  store_forecast(
      input, model, result.forecast,
      prepare_tensor(forecast_shape(input, model), input.raw_output, out->mutable_forecast()));
  std::vector<float>().swap(result.forecast);
  fill_common_fields(model, std::move(result), input.raw_output, input.request_id, out);
  // An iTransformer's maps index named tokens (variables, then calendar features).
  for (v1::AttentionMap& map : *out->mutable_attention()) {
    for (const std::string& name : input.attention_token_names) map.add_token_names(name);
  }
  out->set_input_points_used(input.input_points_used);
  out->set_scaler_applied(input.scaler_applied);
  out->mutable_forecast_timestamps()->Assign(input.forecast_timestamps.begin(),
                                             input.forecast_timestamps.end());
  out->set_forecast_timestamps_note(input.forecast_timestamps_note);
  return grpc::Status::OK;
}

}  // namespace tsserve::server
