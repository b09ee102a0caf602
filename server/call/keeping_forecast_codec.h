#pragma once
// A Forecast's codec for BatchedCall (batched_call.h), whatever door decoded it: the
// door's decoder (tsserve.v1's message: decode_forecast_request; the JSON API's body:
// decode_forecast_json_request), the tsserve.v1 encoder, and, when the request has a
// series_key, the forecast kept for ReportActuals (accuracy/accuracy_tracker.h) once the
// answer is encoded.

#include <optional>

#include "server/accuracy/accuracy_tracker.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// The keeping half, the same for every door.
class ForecastKeeping {
 public:
  // `accuracy` is not owned; null: nothing is kept.
  explicit ForecastKeeping(AccuracyTracker* accuracy) : accuracy_(accuracy) {}

  // Begins keeping the answer under input.series_key (if any), so that the keeps of one
  // batch's answers go to a shared store together.
  void prepare(const ForecastInput& input, const ModelShape& shape, const ForecastOutput& output);
  // Encodes the answer; then keeps it under input.series_key (if any; begun by prepare()
  // or now) and says so in response->forecast_stored. A keyed answer that a later size
  // check refuses, or whose call ends between prepare() and encode(), stays kept: its
  // actuals then score a forecast the caller never saw, which only happens for responses
  // over max_message_bytes, far larger than a keyed forecast's, or a call cancelled in
  // that instant.
  Status encode(const ForecastInput& input, const ModelShape& shape, ForecastOutput&& output,
                v1::ForecastResponse* response);

 private:
  AccuracyTracker* accuracy_;
  std::optional<AccuracyTracker::Keeping> keeping_;  // begun by prepare()
};

// How a door's request becomes the batcher's input.
template <typename Message>
using ForecastDecoder = Status (*)(const Message&, const ModelShape&, const RequestLimits&,
                                   ForecastInput*);

template <typename Message, ForecastDecoder<Message> kDecode>
struct KeepingForecastCodec {
  using Request = Message;
  using Response = v1::ForecastResponse;
  using Input = ForecastInput;
  using Output = ForecastOutput;

  // `accuracy` is not owned; null: nothing is kept.
  KeepingForecastCodec(AccuracyTracker* accuracy = nullptr)  // NOLINT: {tracker} at call sites
      : keeping(accuracy) {}

  Status decode(const Request& request, const ModelShape& shape, const RequestLimits& limits,
                Input* input) {
    return kDecode(request, shape, limits, input);
  }
  void prepare(const Input& input, const ModelShape& shape, const Output& output) {
    keeping.prepare(input, shape, output);
  }
  Status encode(const Input& input, const ModelShape& shape, Output&& output, Response* response) {
    return keeping.encode(input, shape, std::move(output), response);
  }

  ForecastKeeping keeping;
};

}  // namespace tsserve::server
