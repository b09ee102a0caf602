// Fuzz target: a tsserve.v1 ObserveRequest through decode_observe_request, and what it
// accepts appended to a live series store (live/series_store.h) twice.
//
// Input: byte 0, bit 0: 0: the rest is a serialized ObserveRequest (what does not parse is
// skipped); 1: the rest drives the fields one by one (build_request).
// Invariants: a refusal is INVALID_ARGUMENT naming a field (an unknown scaler_mode is refused
// here, before any point is kept); an acceptance has T >= 1
// strictly increasing times, T * N finite float32 values copied as sent, names none or N;
// the store takes it on an empty store or refuses it naming a field (store unchanged), and
// refuses the same points a second time (they repeat the key's last time), unchanged.

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "request_builder.h"
#include "request_checks.h"
#include "server/codec/v1/observe_request_decoder.h"
#include "server/live/memory_series_store.h"

namespace tsserve::fuzz {
namespace {

v1::ObserveRequest build_request(FuzzInput& in) {
  v1::ObserveRequest request;
  if (in.byte() % 8 != 0) request.set_series_key(in.coin() ? "meter-1" : in.text(140));
  const int64_t steps = in.pick<int64_t>({1, 2, 3, 0, 5});
  const int64_t variables = in.pick<int64_t>({1, 7, 2, 0});
  int64_t time = in.pick<int64_t>({1'700'000'000, 0, -1, INT64_MAX - 2, INT64_MIN});
  const int64_t step = in.pick<int64_t>({3600, 1, 0, -60, INT64_MAX});
  for (int64_t t = 0; t < steps; ++t) {
    request.add_timestamps(time);
    // Wrapping (unsigned) addition: the builder itself must not overflow.
    if (in.byte() % 16 != 0) {
      time = static_cast<int64_t>(static_cast<uint64_t>(time) + static_cast<uint64_t>(step));
    }
  }
  if (in.coin()) {
    for (int64_t n = 0; n < variables; ++n) request.add_variable_names(variable_name(in, n));
  }
  int64_t values = steps * variables;
  if (in.byte() % 16 == 0) values += in.pick<int64_t>({1, -1, 7});
  for (int64_t i = 0; i < values; ++i) {
    switch (in.byte() % 16) {
      case 0:
        request.add_values(std::nan(""));
        break;
      case 1:
        request.add_values(1e300);
        break;
      case 2:
        request.add_values(static_cast<double>(FLT_MAX));
        break;
      default:
        request.add_values(static_cast<double>(in.f32()));
        break;
    }
  }
  for (int k = in.byte() % 3; k > 0; --k)
    request.add_interval_levels(in.pick<double>({0.9, 2, -1}));
  request.set_forecast(in.coin());
  request.set_request_id(request_id(in));
  return request;
}

void check_accepted(const v1::ObserveRequest& request, const server::Observation& observation) {
  FUZZ_CHECK(observation.steps() >= 1, "accepted no timestamps");
  for (int64_t t = 1; t < observation.steps(); ++t) {
    FUZZ_CHECK(observation.timestamps[static_cast<size_t>(t)] >
                   observation.timestamps[static_cast<size_t>(t - 1)],
               "accepted times that do not increase");
  }
  FUZZ_CHECK(observation.variables >= 1, "accepted N = " + std::to_string(observation.variables));
  FUZZ_CHECK(observation.variable_names.empty() ||
                 static_cast<int64_t>(observation.variable_names.size()) == observation.variables,
             "names and N disagree");
  FUZZ_CHECK(static_cast<int64_t>(observation.values.size()) ==
                 observation.steps() * observation.variables,
             "accepted " + std::to_string(observation.values.size()) + " values");
  for (std::size_t i = 0; i < observation.values.size(); ++i) {
    const double value = observation.values[i];
    FUZZ_CHECK(std::isfinite(value) && std::fabs(value) <= FLT_MAX,
               "accepted value " + std::to_string(i) + " beyond float32");
    FUZZ_CHECK(value == request.values(static_cast<int>(i)), "value changed");
  }
  FUZZ_CHECK(!observation.series_key.empty() && observation.series_key == request.series_key(),
             "series_key");
}

void check_store(const server::Observation& observation) {
  server::MemorySeriesStore store(server::SeriesStoreLimits{4, 1 << 20});
  server::SeriesAppend append;
  append.series_key = observation.series_key;
  append.binding.model = "m";
  append.binding.variable_names = observation.variable_names;
  append.binding.variables = observation.variables;
  append.timestamps = observation.timestamps;
  append.values.assign(observation.values.begin(), observation.values.end());
  append.keep_points = 4;
  server::Status status = store.append(append, nullptr, nullptr);
  if (!status.ok()) {
    check_refusal(status, {"timestamps", "values", "variable_names"});
    FUZZ_CHECK(store.keys() == 0, "a refused first append left a key");
    return;
  }
  FUZZ_CHECK(store.keys() == 1, "one append, " + std::to_string(store.keys()) + " keys");
  const std::vector<server::SeriesWindow> before = store.snapshot();
  status = store.append(append, nullptr, nullptr);
  FUZZ_CHECK(!status.ok(), "the same points were taken twice");
  check_refusal(status, {"timestamps"});
  const std::vector<server::SeriesWindow> after = store.snapshot();
  FUZZ_CHECK(after.size() == 1 && after[0].values == before[0].values &&
                 after[0].last_timestamp == before[0].last_timestamp,
             "a refused append changed the window");
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  v1::ObserveRequest request;
  if (!fuzz::request_from_bytes(data, size, fuzz::build_request, request)) return 0;
  server::Observation observation;
  const server::Status status = server::decode_observe_request(request, &observation);
  if (!status.ok()) {
    fuzz::check_refusal(status, {"series_key", "request_id", "variable_names", "timestamps",
                                 "values", "scaler_mode"});
    return 0;
  }
  fuzz::check_accepted(request, observation);
  fuzz::check_store(observation);
  return 0;
}
