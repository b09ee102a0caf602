#pragma once
// tsserve.v1 Forecast's codec for BatchedCall (batched_call.h): the v1 decoder and
// encoder, and, when the request has a series_key, the forecast kept for ReportActuals
// (accuracy/accuracy_tracker.h) once the answer is encoded.

#include <optional>

#include "server/accuracy/accuracy_tracker.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

struct KeepingForecastCodec {
  using Request = v1::ForecastRequest;
  using Response = v1::ForecastResponse;
  using Input = ForecastInput;
  using Output = ForecastOutput;

  // `accuracy` is not owned; null: nothing is kept.
  KeepingForecastCodec(AccuracyTracker* accuracy = nullptr)  // NOLINT: {tracker} at call sites
      : accuracy(accuracy) {}

  AccuracyTracker* accuracy;

  Status decode(const Request& request, const ModelShape& shape, const RequestLimits& limits,
                Input* input);
  // Begins keeping the answer under input.series_key (if any), so that the keeps of one
  // batch's answers go to a shared store together.
  void prepare(const Input& input, const ModelShape& shape, const Output& output);
  // Encodes the answer; then keeps it under input.series_key (if any; begun by prepare()
  // or now) and says so in response->forecast_stored. A keyed answer that a later size
  // check refuses, or whose call ends between prepare() and encode(), stays kept: its
  // actuals then score a forecast the caller never saw, which only happens for responses
  // over max_message_bytes, far larger than a keyed forecast's, or a call cancelled in
  // that instant.
  Status encode(const Input& input, const ModelShape& shape, Output&& output, Response* response);

 private:
  std::optional<AccuracyTracker::Keeping> keeping_;  // begun by prepare()
};

}  // namespace tsserve::server
