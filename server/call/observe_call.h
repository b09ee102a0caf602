#pragma once
// One Observe call (forecast_service.proto), whatever its door: decoded by the door
// (codec/v1/observe_request_decoder.h, codec/v1_json/observe_json.h), append the new
// points to the key's window (live/series_store.h), score and flag them against the key's
// kept forecasts (accuracy_tracker.h, live/point_flags.h) and, when asked, forecast from
// the updated window through the version's normal Forecast batcher, kept under the key.
//
// The points are appended before the forecast runs, and stay appended whatever becomes of
// it: a forecast that fails (a full queue, a deadline) is reported in the answer
// (forecast_code), never as the call's error, so a caller never resends points that were
// taken (they would be refused as repeats).
//
// Lifetime: the answer is built in an object of the call's own and copied into `response`
// only by the end that wins (call_ending.h), so a caller that went away never has its
// response written after the door let go of it.

#include <memory>

#include "server/call/batched_call.h"
#include "server/call/call_ending.h"
#include "server/call/service_context.h"
#include "server/request/observation.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Serves `observation` once the door authenticated and decoded it; `forecast` is the
// service's Forecast method (its batcher and metrics). Ends `call`, now or when the
// forecast completes.
void serve_observe(const ServiceContext& service, const BatchedMethod& forecast,
                   std::shared_ptr<CallEnding> call, const Observation& observation,
                   v1::ObserveResponse* response);

}  // namespace tsserve::server
