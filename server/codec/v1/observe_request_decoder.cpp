#include "server/codec/v1/observe_request_decoder.h"

#include <string>

#include "server/codec/common/observation_rules.h"
#include "server/codec/v1/scaler_mode_message.h"

namespace tsserve::server {
Status decode_observe_request(const v1::ObserveRequest& request, Observation* out) {
  out->series_key = request.series_key();
  out->request_id = request.request_id();
  out->model = request.model();
  out->model_version = request.model_version();
  out->variable_names.assign(request.variable_names().begin(), request.variable_names().end());
  out->timestamps.assign(request.timestamps().begin(), request.timestamps().end());
  out->values.assign(request.values().begin(), request.values().end());
  out->interval_levels.assign(request.interval_levels().begin(), request.interval_levels().end());
  out->forecast = request.forecast();
  TSSERVE_RETURN_IF_ERROR(check_observation(ObservationFields{}, out));
  return scaler_mode_of(request.scaler_mode(), &out->scaler_mode);
}

}  // namespace tsserve::server
