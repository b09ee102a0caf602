#include "server/codec/v1/forecast_request_decoder.h"

#include <string>
#include <vector>

#include "server/codec/common/forecast_request_view.h"
#include "server/codec/common/request_id.h"
#include "server/codec/v1/attention_options.h"
#include "server/codec/v1/scaler_mode_message.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                               const RequestLimits& limits, ForecastInput* out) {
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.request_id(), &out->request_id));
  if (!v1::SeriesLayout_IsValid(request.layout())) {
    return invalid_argument("layout: unknown value " + std::to_string(request.layout()) +
                            "; expected SERIES_LAYOUT_VARIABLES_BY_TIME (1) or "
                            "SERIES_LAYOUT_TIME_BY_VARIABLES (2)");
  }
  TSSERVE_RETURN_IF_ERROR(resolve_output_encoding(request.output_encoding(), &out->raw_output));

  ForecastRequestView view;
  view.by_variable = request.layout() != v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  ForecastFieldNames fields;
  fields.series = {{"series", 2, view.by_variable ? "[N, T_in]" : "[T_in, N]"},
                   view.by_variable ? "layout VARIABLES_BY_TIME" : "layout TIME_BY_VARIABLES",
                   "SCALER_MODE_NONE"};
  TSSERVE_RETURN_IF_ERROR(view_tensor(request.series(), fields.series.spec, &view.series));
  TSSERVE_RETURN_IF_ERROR(scaler_mode_of(request.scaler_mode(), &view.scaler_mode));
  view.variable_names = request.variable_names();
  view.timestamps = request.timestamps().data();
  view.timestamp_count = request.timestamps_size();
  view.series_key = &request.series_key();
  const AttentionRequest attention = attention_request_of(request.attention());
  view.attention = &attention;
  const std::vector<double> levels(request.interval_levels().begin(),
                                   request.interval_levels().end());
  view.interval_levels = &levels;
  return decode_forecast_view(view, fields, model, limits, out);
}

}  // namespace tsserve::server
