#pragma once
// tsserve.v1 ObserveRequest -> Observation (request/observation.h), by the rules every
// door shares (codec/common/observation_rules.h).

#include "server/request/observation.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// INVALID_ARGUMENT naming the field and the expectation when a rule of ObserveRequest's
// comments is broken (check_observation's, or an unknown scaler_mode); fills *out otherwise.
Status decode_observe_request(const v1::ObserveRequest& request, Observation* out);

}  // namespace tsserve::server
