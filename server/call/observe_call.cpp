#include "server/call/observe_call.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/call/keeping_forecast_codec.h"
#include "server/call/model_route.h"
#include "server/call/window_forecast_request.h"
#include "server/codec/common/observation_rules.h"
#include "server/live/point_flags.h"

namespace tsserve::server {
namespace {

using Answer = std::shared_ptr<v1::ObserveResponse>;

// Ends the Observe call with its answer, when that end wins.
void deliver_answer(CallEnding& call, const Answer& answer, v1::ObserveResponse* response) {
  call.end([&] {
    *response = std::move(*answer);
    return Status();
  });
}

// The forecast's own ending: its outcome goes into the answer, and the Observe call ends
// OK either way. Not counted in the metrics: the Observe call is.
class ForecastWithinObserve final : public CallEnding {
 public:
  ForecastWithinObserve(std::shared_ptr<CallEnding> observe, Answer answer,
                        v1::ObserveResponse* response)
      : CallEnding(nullptr, Transport::kGrpc, Method::kForecast, observe->deadline()),
        observe_(std::move(observe)),
        answer_(std::move(answer)),
        response_(response) {}

  v1::ForecastResponse* forecast() { return &forecast_; }

 private:
  void deliver(const Status& status) override {
    if (status.ok()) {
      answer_->mutable_forecast()->Swap(&forecast_);
    } else {
      answer_->set_forecast_code(static_cast<int>(status.code()));
      answer_->set_forecast_message(status.message());
    }
    deliver_answer(*observe_, answer_, response_);
  }

  const std::shared_ptr<CallEnding> observe_;
  const Answer answer_;
  v1::ObserveResponse* const response_;  // the door's; written only by observe_'s end
  v1::ForecastResponse forecast_;        // written by the forecast's encode
};

// The report that scores the new points, its variables named as the forecast store names
// those of the key's forecasts.
ActualsReport report_of(const Observation& observation, const SeriesWindow& window) {
  ActualsReport report;
  report.series_key = observation.series_key;
  report.variable_names =
      stored_variable_names(window.binding.variable_names, window.binding.variables);
  report.timestamps = observation.timestamps;
  report.values = observation.values;
  return report;
}

void write_point(const Observation& observation, std::size_t index, const PointFlag& flag,
                 v1::ObservedPoint* point) {
  const auto variables = static_cast<std::size_t>(observation.variables);
  point->set_timestamp(observation.timestamps[index / variables]);
  point->set_variable(static_cast<int32_t>(index % variables));
  point->set_value(observation.values[index]);
  point->set_scored(flag.scored);
  if (!flag.scored) return;
  point->set_forecast(flag.forecast);
  point->set_step(static_cast<int32_t>(flag.step));
  for (const IntervalFlagValue& interval : flag.intervals) {
    v1::IntervalFlag* out = point->add_intervals();
    out->set_level(interval.level);
    out->set_lower(interval.lower);
    out->set_upper(interval.upper);
    out->set_outside(interval.outside);
  }
  point->set_score(flag.score);
  point->set_anomaly(flag.anomaly);
}

// Appends the observation to its key's window; *window receives the window after it.
Status append_points(const ServiceContext& service, const Observation& observation,
                     const ModelShape& shape, SeriesWindow* window) {
  SeriesAppend append;
  append.series_key = observation.series_key;
  append.binding.model = shape.name;
  append.binding.pinned_version = observation.model_version;
  append.binding.variable_names = observation.variable_names;
  append.binding.variables = observation.variables;
  append.timestamps = observation.timestamps;
  append.values.assign(observation.values.begin(), observation.values.end());
  append.keep_points = shape.seq_len;
  append.scored_values = &observation.values;  // flag_points scores them next
  append.variable_names_field = observation.variable_names_field;
  SeriesDrops drops;
  TSSERVE_RETURN_IF_ERROR(service.series->append(append, window, &drops));
  if (service.live_metrics) {
    service.live_metrics->record_evicted(drops.evicted);
    if (const auto size = service.series->size()) {
      service.live_metrics->set_store(size->keys, size->bytes);
    }
    service.live_metrics->record_observed(shape.name, shape.version,
                                          static_cast<int64_t>(observation.values.size()));
  }
  return Status();
}

// Scores and flags the new points into the answer.
void flag_points(const ServiceContext& service, const Observation& observation,
                 const SeriesWindow& window, v1::ObserveResponse* answer) {
  PointFlagger flagger(observation.values.size());
  ActualsOutcome outcome;
  // The points are in the window already: a store that fails to score them (counted in
  // its metrics) leaves them unflagged rather than failing the call that kept them.
  static_cast<void>(service.accuracy->report(
      report_of(observation, window), &outcome,
      [&flagger](const ScoredPoint& scored) { flagger.offer(scored); }));
  std::vector<PointFlag> flags;
  flags.reserve(observation.values.size());
  int64_t anomalies = 0;
  for (std::size_t i = 0; i < observation.values.size(); ++i) {
    flags.push_back(flagger.flag(i));
    anomalies += flags.back().anomaly ? 1 : 0;
    write_point(observation, i, flags.back(), answer->add_points());
  }
  if (service.live_metrics) service.live_metrics->record_flags(flags);
  answer->set_anomalies(anomalies);
}

}  // namespace

void serve_observe(const ServiceContext& service, const BatchedMethod& forecast,
                   std::shared_ptr<CallEnding> call, const Observation& observation,
                   v1::ObserveResponse* response) {
  call->set_request_id(observation.request_id);
  if (service.series == nullptr || service.accuracy == nullptr) {
    call->end({StatusCode::kUnimplemented, "Observe: this server keeps no series"});
    return;
  }
  // A known key's model and pin stand in for those the call leaves empty.
  std::string model = observation.model, version = observation.model_version;
  std::optional<SeriesBinding> binding;
  if (const Status read = service.series->binding(observation.series_key, &binding); !read.ok()) {
    call->end(read);
    return;
  }
  if (binding) {
    if (model.empty()) model = binding->model;
    if (version.empty()) version = binding->pinned_version;
  }
  ModelRoute route = route_call(service, Status(), model, version);
  if (!route.status.ok()) {
    call->end(route.status);
    return;
  }
  const ModelShape& shape = route.lease->shape();
  call->set_model(shape.name);
  // Its size against the model before anything is kept, flagged or forecast.
  if (const Status fits = check_observation_fits(observation, shape, route.lease->limits());
      !fits.ok()) {
    call->end(fits);
    return;
  }
  SeriesWindow window;
  if (const Status appended = append_points(service, observation, shape, &window); !appended.ok()) {
    call->end(appended);
    return;
  }
  auto answer = std::make_shared<v1::ObserveResponse>();
  answer->set_series_key(observation.series_key);
  answer->set_model_name(shape.name);
  answer->set_model_version(shape.version);
  answer->set_request_id(observation.request_id);
  answer->set_window_points(window.points());
  flag_points(service, observation, window, answer.get());
  if (!observation.forecast) {
    deliver_answer(*call, answer, response);
    return;
  }
  if (window.points() < shape.seq_len) {
    answer->set_forecast_code(static_cast<int>(StatusCode::kFailedPrecondition));
    answer->set_forecast_message("window: the key holds " + std::to_string(window.points()) +
                                 " of the " + std::to_string(shape.seq_len) +
                                 " points (seq_len) a forecast needs; " +
                                 std::to_string(shape.seq_len - window.points()) + " more");
    deliver_answer(*call, answer, response);
    return;
  }
  const PlainForecastRequest forecast_request = window_forecast_request(window, observation, shape);
  auto ending = std::make_shared<ForecastWithinObserve>(call, answer, response);
  v1::ForecastResponse* forecast_response = ending->forecast();
  using Codec = KeepingForecastCodec<PlainForecastRequest, decode_window_forecast>;
  BatchedCall<Codec>::start(forecast, std::move(ending), forecast_request, forecast_response,
                            std::move(route), Codec{service.accuracy});
}

}  // namespace tsserve::server
