#pragma once
// tsserve.v1 ObserveRequest -> Observation (request/observation.h): the rules a request
// breaks on its own. What depends on the key's state (its model, names, step and last
// point) is the series store's to check (live/series_store.h).

#include "server/request/observation.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// INVALID_ARGUMENT naming the field and the expectation when a rule of ObserveRequest's
// comments is broken; fills *out otherwise.
Status decode_observe_request(const v1::ObserveRequest& request, Observation* out);

}  // namespace tsserve::server
