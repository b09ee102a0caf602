#pragma once
// The rules an Observe request breaks on its own, whichever door carried it (tsserve.v1's
// ObserveRequest: codec/v1/observe_request_decoder.h; the JSON API's body:
// codec/v1_json/observe_json.h). What depends on the key's state (its model, names, step
// and last point) is the series store's to check (live/series_store.h).

#include "server/request/model_shape.h"
#include "server/request/observation.h"
#include "server/status/status.h"

namespace tsserve::server {

// How the door's client names the fields.
struct ObservationFields {
  const char* variable_names = "variable_names";
  const char* values = "values";
};

// `observation` holds the request's fields as sent (series_key and request_id unresolved,
// variables unset). INVALID_ARGUMENT naming the field as `fields` says and the expectation
// for: no series_key, an id that is not printable ASCII or too long, a name twice, no
// timestamps or ones not strictly increasing, values that are not T * N or not finite in
// float32. Otherwise resolves series_key, request_id (generated when empty) and variables
// (N, from the names, or from the values when there are none).
Status check_observation(const ObservationFields& fields, Observation* observation);

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
