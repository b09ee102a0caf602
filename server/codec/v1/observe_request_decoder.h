#pragma once
// tsserve.v1 ObserveRequest -> Observation (request/observation.h): the rules a request
// breaks on its own. What depends on the key's state (its model, names, step and last
// point) is the series store's to check (live/series_store.h).

#include "server/request/model_shape.h"
#include "server/request/observation.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// INVALID_ARGUMENT naming the field and the expectation when a rule of ObserveRequest's
// comments is broken; fills *out otherwise.
Status decode_observe_request(const v1::ObserveRequest& request, Observation* out);

// The decoded observation against the model version that serves it, before any work (the
// window, the flags, the forecast); INVALID_ARGUMENT naming the field and the bound when
//  - N (values' columns) is not the model's enc_in, for a model that takes a fixed count,
//    or is above limits.max_series_rows: a forecast from the key's window takes one row
//    per variable, and one with more rows would be refused after the points were kept;
//  - T (timestamps) is above seq_len + pred_len: the history a first call needs and the
//    horizon the key's latest forecast covers. More points go in several calls.
// So an answer (one point per value) holds at most (seq_len + pred_len) x N points.
Status check_observation_fits(const Observation& observation, const ModelShape& model,
                              const RequestLimits& limits);

}  // namespace tsserve::server
