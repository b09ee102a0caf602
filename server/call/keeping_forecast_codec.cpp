#include "server/call/keeping_forecast_codec.h"

#include <optional>
#include <utility>

#include "server/accuracy/issued_forecast.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/v1/forecast_response_encoder.h"

namespace tsserve::server {

namespace {

// The answer as its key keeps it: the forecast and the bands the response carries, in the
// model's space, so the store scores interval coverage per level. Copied before the
// encoder unscales and releases the runtime's (model-space) values.
IssuedForecast issued_of(const ForecastInput& input, const ModelShape& shape,
                         const ForecastOutput& output) {
  IssuedForecast issued = issued_forecast_of(input, shape, output.forecast);
  for (const int32_t level_index : input.interval_levels) {
    std::vector<double> widths = interval_widths(input, shape, level_index);
    issued.bands.push_back(band_around(shape.calibration.levels[static_cast<size_t>(level_index)],
                                       issued.values, widths));
    issued.band_widths.push_back(std::move(widths));
  }
  return issued;
}

}  // namespace

void ForecastKeeping::prepare(const ForecastInput& input, const ModelShape& shape,
                              const ForecastOutput& output) {
  if (accuracy_ == nullptr || input.series_key.empty()) return;
  keeping_ = accuracy_->begin_keep(issued_of(input, shape, output));
}

Status ForecastKeeping::encode(const ForecastInput& input, const ModelShape& shape,
                               ForecastOutput&& output, v1::ForecastResponse* response) {
  if (!keeping_ && accuracy_ != nullptr && !input.series_key.empty()) {
    keeping_ = accuracy_->begin_keep(issued_of(input, shape, output));
  }
  Status encoded = encode_forecast_response(input, shape, std::move(output), response);
  if (!keeping_) return encoded;
  // Not kept is no failure of the forecast itself: the answer says why in its note.
  const Status kept = keeping_->wait();
  keeping_.reset();
  response->set_forecast_stored(kept.ok());
  if (!kept.ok() && response->forecast_timestamps_note().empty()) {
    response->set_forecast_timestamps_note(kept.message());
  }
  return encoded;
}

}  // namespace tsserve::server
