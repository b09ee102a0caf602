// Live series over gRPC on loopback with the bundled (calibrated) PatchTST: Observe's
// forecasts are bitwise those of Forecast calls sent the full window; each new point is
// flagged against the forecast made one step before it, checked here from that forecast's
// own response; bad input is refused naming the field and leaves the window as it was;
// the window survives a drain and a restart, and a corrupt snapshot is set aside.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "server_harness.h"
#include "server/grpc/observe_stream.h"

namespace tsserve::server::testing {
namespace {

constexpr int64_t kStart = 1'700'000'000;  // Unix seconds, an hour boundary
constexpr int64_t kHour = 3600;
constexpr int64_t kSeqLen = 336;
constexpr int64_t kVariables = 7;
const char* const kNames[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};

// A series of `points` hourly points of ETTh1's seven columns (a seeded random walk),
// [T, N] row-major, so the model's scaler and calibration apply by name.
struct Series {
  std::vector<float> values;  // [T, N]
  int64_t points = 0;
  int64_t time(int64_t t) const { return kStart + t * kHour; }
  float at(int64_t t, int64_t n) const { return values[static_cast<size_t>(t * kVariables + n)]; }
};

Series make_series(int64_t points, uint64_t seed) {
  const std::vector<float> by_variable =
      floats(forecast_request(kVariables, points, seed).series());
  Series series;
  series.points = points;
  series.values.resize(static_cast<size_t>(points * kVariables));
  for (int64_t n = 0; n < kVariables; ++n) {
    for (int64_t t = 0; t < points; ++t) {
      series.values[static_cast<size_t>(t * kVariables + n)] =
          by_variable[static_cast<size_t>(n * points + t)];
    }
  }
  return series;
}

// Points [begin, end) of `series` for `key`; names on every call (the first sets them).
v1::ObserveRequest observe_request(const std::string& key, const Series& series, int64_t begin,
                                   int64_t end, bool forecast) {
  v1::ObserveRequest request;
  request.set_series_key(key);
  for (const char* name : kNames) request.add_variable_names(name);
  for (int64_t t = begin; t < end; ++t) {
    request.add_timestamps(series.time(t));
    for (int64_t n = 0; n < kVariables; ++n) request.add_values(series.at(t, n));
  }
  request.set_forecast(forecast);
  return request;
}

grpc::Status observe(ServerHarness& harness, const v1::ObserveRequest& request,
                     v1::ObserveResponse* response) {
  grpc::ClientContext context;
  return harness.stub().Observe(&context, request, response);
}

v1::ObserveResponse observe_expecting_ok(ServerHarness& harness,
                                         const v1::ObserveRequest& request) {
  v1::ObserveResponse response;
  const grpc::Status status = observe(harness, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

// The Forecast a caller holding the whole window [end - 336, end) would send.
v1::ForecastRequest full_window_request(const Series& series, int64_t end) {
  v1::ForecastRequest request;  // the default layout, [N, T]
  request.mutable_series()->add_shape(kVariables);
  request.mutable_series()->add_shape(kSeqLen);
  for (int64_t n = 0; n < kVariables; ++n) {
    for (int64_t t = end - kSeqLen; t < end; ++t)
      request.mutable_series()->add_values(series.at(t, n));
  }
  for (int64_t t = end - kSeqLen; t < end; ++t) request.add_timestamps(series.time(t));
  for (const char* name : kNames) request.add_variable_names(name);
  for (const double level : {0.5, 0.8, 0.9, 0.95, 0.99}) request.add_interval_levels(level);
  return request;
}

void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << what;
}

void expect_same_forecast(const v1::ForecastResponse& observed, const v1::ForecastResponse& full) {
  expect_same_bits(floats(observed.forecast()), floats(full.forecast()), "forecast");
  ASSERT_EQ(observed.intervals_size(), full.intervals_size());
  for (int i = 0; i < full.intervals_size(); ++i) {
    EXPECT_EQ(observed.intervals(i).level(), full.intervals(i).level());
    expect_same_bits(floats(observed.intervals(i).lower()), floats(full.intervals(i).lower()),
                     "lower");
    expect_same_bits(floats(observed.intervals(i).upper()), floats(full.intervals(i).upper()),
                     "upper");
  }
  EXPECT_EQ(
      std::vector<int64_t>(observed.forecast_timestamps().begin(),
                           observed.forecast_timestamps().end()),
      std::vector<int64_t>(full.forecast_timestamps().begin(), full.forecast_timestamps().end()));
}

// Checks the flags of the points of `response` (one time step) against `previous`, the
// full-window forecast made one step before: its first column ([N, F] layout) is the
// forecast for this step, its intervals' first columns the bands.
void expect_flags_from(const v1::ObserveResponse& response, const v1::ForecastResponse& previous) {
  ASSERT_EQ(response.points_size(), kVariables);
  const std::vector<float> forecast = floats(previous.forecast());  // [7, 96]
  int64_t anomalies = 0;
  for (int n = 0; n < kVariables; ++n) {
    const v1::ObservedPoint& point = response.points(n);
    ASSERT_TRUE(point.scored()) << "variable " << n;
    EXPECT_EQ(point.variable(), n);
    EXPECT_EQ(point.step(), 1);
    const double expected = forecast[static_cast<size_t>(n * 96)];
    EXPECT_NEAR(point.forecast(), expected, 1e-5 * std::max(1.0, std::fabs(expected)));
    ASSERT_EQ(point.intervals_size(), previous.intervals_size());
    for (int i = 0; i < previous.intervals_size(); ++i) {
      const double lower = floats(previous.intervals(i).lower())[static_cast<size_t>(n * 96)];
      const double upper = floats(previous.intervals(i).upper())[static_cast<size_t>(n * 96)];
      const v1::IntervalFlag& flag = point.intervals(i);
      EXPECT_EQ(flag.level(), previous.intervals(i).level());
      EXPECT_NEAR(flag.lower(), lower, 1e-5 * std::max(1.0, std::fabs(lower)));
      EXPECT_NEAR(flag.upper(), upper, 1e-5 * std::max(1.0, std::fabs(upper)));
      EXPECT_EQ(flag.outside(), point.value() < lower || point.value() > upper)
          << "variable " << n << " level " << flag.level();
    }
    const double upper = point.intervals(point.intervals_size() - 1).upper();
    const double lower = point.intervals(point.intervals_size() - 1).lower();
    const double room = point.value() >= expected ? upper - expected : expected - lower;
    EXPECT_NEAR(point.score(), std::fabs(point.value() - expected) / room, 1e-4);
    EXPECT_EQ(point.anomaly(), point.intervals(point.intervals_size() - 1).outside());
    anomalies += point.anomaly() ? 1 : 0;
  }
  EXPECT_EQ(response.anomalies(), anomalies);
}

TEST(Observe, ForecastsEqualForecastCallsWithTheFullWindowBitwiseAndFlagAgainstThePreviousOne) {
  ServerHarness harness;
  const Series series = make_series(kSeqLen + 8, 11);
  v1::ObserveResponse first =
      observe_expecting_ok(harness, observe_request("meter-1", series, 0, kSeqLen, true));
  EXPECT_EQ(first.window_points(), kSeqLen);
  EXPECT_EQ(first.model_name(), "patchtst-etth1");
  EXPECT_EQ(first.forecast_code(), 0) << first.forecast_message();
  ASSERT_EQ(first.points_size(), kSeqLen * kVariables);
  EXPECT_FALSE(first.points(0).scored());  // nothing was forecast for these yet
  v1::ForecastResponse previous =
      forecast_expecting_ok(harness, full_window_request(series, kSeqLen));
  expect_same_forecast(first.forecast(), previous);
  EXPECT_TRUE(first.forecast().forecast_stored());
  for (int64_t t = kSeqLen; t < series.points; ++t) {
    const v1::ObserveResponse step =
        observe_expecting_ok(harness, observe_request("meter-1", series, t, t + 1, true));
    EXPECT_EQ(step.window_points(), kSeqLen);
    ASSERT_EQ(step.forecast_code(), 0) << step.forecast_message();
    expect_flags_from(step, previous);
    previous = forecast_expecting_ok(harness, full_window_request(series, t + 1));
    expect_same_forecast(step.forecast(), previous);
  }
}

TEST(Observe, AShortWindowAppendsAndSaysHowManyPointsAreMissing) {
  ServerHarness harness;
  const Series series = make_series(20, 3);
  const v1::ObserveResponse response =
      observe_expecting_ok(harness, observe_request("young", series, 0, 10, true));
  EXPECT_EQ(response.window_points(), 10);
  EXPECT_EQ(response.forecast_code(), static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION));
  EXPECT_NE(response.forecast_message().find("326 more"), std::string::npos)
      << response.forecast_message();
  EXPECT_FALSE(response.has_forecast());
  // Names may be left out once the key knows them.
  v1::ObserveRequest unnamed = observe_request("young", series, 10, 12, false);
  unnamed.clear_variable_names();
  EXPECT_EQ(observe_expecting_ok(harness, unnamed).window_points(), 12);
}

TEST(Observe, ASpikeIsFlaggedOutsideEveryIntervalAndCounted) {
  ServerHarness harness;
  const Series series = make_series(kSeqLen + 1, 5);
  const v1::ObserveResponse first =
      observe_expecting_ok(harness, observe_request("spiky", series, 0, kSeqLen, true));
  ASSERT_EQ(first.forecast_code(), 0) << first.forecast_message();
  const std::vector<float> forecast = floats(first.forecast().forecast());  // [7, 96]
  const int last = first.forecast().intervals_size() - 1;
  ASSERT_GE(last, 0);
  const double width = floats(first.forecast().intervals(last).upper())[0] -
                       floats(first.forecast().intervals(last).lower())[0];
  // Variable 0 jumps five widths of the 0.99 interval above its forecast; the others
  // come in exactly on it.
  v1::ObserveRequest next = observe_request("spiky", series, kSeqLen, kSeqLen + 1, false);
  next.set_values(0, forecast[0] + 5 * width);
  for (int n = 1; n < kVariables; ++n) next.set_values(n, forecast[static_cast<size_t>(n * 96)]);
  const v1::ObserveResponse flagged = observe_expecting_ok(harness, next);
  ASSERT_EQ(flagged.points_size(), kVariables);
  EXPECT_TRUE(flagged.points(0).anomaly());
  EXPECT_GT(flagged.points(0).score(), 9.0);  // 5 widths = 10 half-widths, less rounding
  for (const v1::IntervalFlag& interval : flagged.points(0).intervals()) {
    EXPECT_TRUE(interval.outside()) << interval.level();
  }
  for (int n = 1; n < kVariables; ++n) {
    EXPECT_FALSE(flagged.points(n).anomaly()) << n;
    EXPECT_LT(flagged.points(n).score(), 1e-3) << n;
  }
  EXPECT_EQ(flagged.anomalies(), 1);
  EXPECT_TRUE(metric_reaches(harness,
                             "tsserve_observed_outside_points_total{level=\"0.99\",model="
                             "\"patchtst-etth1\",version=\"1\"}",
                             1));
  EXPECT_TRUE(metric_reaches(harness,
                             "tsserve_observed_checked_points_total{level=\"0.99\",model="
                             "\"patchtst-etth1\",version=\"1\"}",
                             kVariables));
  EXPECT_TRUE(metric_reaches(
      harness, "tsserve_observed_points_total{model=\"patchtst-etth1\",version=\"1\"}",
      (kSeqLen + 1) * kVariables));
}

// Each bad request: refused with INVALID_ARGUMENT naming `field`.
void expect_refused(ServerHarness& harness, const v1::ObserveRequest& request,
                    const std::string& field, const std::string& words) {
  v1::ObserveResponse response;
  const grpc::Status status = observe(harness, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << field;
  EXPECT_EQ(status.error_message().rfind(field, 0), 0u) << status.error_message();
  EXPECT_NE(status.error_message().find(words), std::string::npos) << status.error_message();
}

TEST(Observe, BadInputIsRefusedNamingTheFieldAndTheWindowStaysAsItWas) {
  ServerHarness harness;
  const Series series = make_series(12, 9);
  ASSERT_EQ(
      observe_expecting_ok(harness, observe_request("k", series, 0, 5, false)).window_points(), 5);
  const v1::ObserveRequest next = observe_request("k", series, 5, 6, false);

  v1::ObserveRequest no_key = next;
  no_key.clear_series_key();
  expect_refused(harness, no_key, "series_key", "required");
  v1::ObserveRequest short_values = next;
  short_values.mutable_values()->RemoveLast();
  expect_refused(harness, short_values, "values", "T * N");
  v1::ObserveRequest wrong_names = next;
  wrong_names.set_variable_names(6, "oil");
  expect_refused(harness, wrong_names, "variable_names", "OT");
  v1::ObserveRequest repeated = observe_request("k", series, 4, 5, false);
  expect_refused(harness, repeated, "timestamps[0]", std::to_string(series.time(4)));
  v1::ObserveRequest gap = next;
  gap.set_timestamps(0, series.time(6));
  expect_refused(harness, gap, "timestamps[0]", std::to_string(series.time(5)));
  v1::ObserveRequest irregular = next;
  irregular.set_timestamps(0, series.time(4) + kHour / 2);
  expect_refused(harness, irregular, "timestamps[0]", std::to_string(series.time(5)));
  v1::ObserveRequest backwards = observe_request("k", series, 5, 7, false);
  backwards.set_timestamps(1, series.time(5));
  expect_refused(harness, backwards, "timestamps[1]", "increase");
  v1::ObserveRequest not_a_number = next;
  not_a_number.set_values(3, std::nan(""));
  expect_refused(harness, not_a_number, "values[3]", "finite");
  v1::ObserveRequest other_count = observe_request("k", series, 5, 6, false);
  other_count.clear_variable_names();
  other_count.mutable_values()->RemoveLast();  // 6 values, read as N = 6
  expect_refused(harness, other_count, "values", "7");
  v1::ObserveRequest other_model = next;
  other_model.set_model("nope");
  v1::ObserveResponse response;
  EXPECT_EQ(observe(harness, other_model, &response).error_code(), grpc::StatusCode::NOT_FOUND);

  // None of them took a point: the next one in line is accepted, the sixth in the window.
  EXPECT_EQ(observe_expecting_ok(harness, next).window_points(), 6);
}

// An observation's size is checked against the model before anything is kept: 2,000
// columns (more than a forecast from the window could carry, max_batch_rows) or more
// timestamps than seq_len + pred_len are refused, and neither key comes to exist.
TEST(Observe, TooManyColumnsOrTimestampsAreRefusedBeforeTheKeyIsKept) {
  ServerHarness harness;
  v1::ObserveRequest wide;
  wide.set_series_key("wide");
  for (int64_t t = 0; t < 100; ++t) {
    wide.add_timestamps(kStart + t * kHour);
    for (int n = 0; n < 2000; ++n) wide.add_values(1.0 + n % 7);
  }
  expect_refused(harness, wide, "values", "2000 columns");
  const Series series = make_series(kSeqLen + 800, 4);
  expect_refused(harness, observe_request("long", series, 0, kSeqLen + 800, false), "timestamps",
                 "at most");
  // A first call for either key is a new key's: 7 named columns, from its first point.
  EXPECT_EQ(
      observe_expecting_ok(harness, observe_request("wide", series, 0, 3, false)).window_points(),
      3);
  EXPECT_EQ(
      observe_expecting_ok(harness, observe_request("long", series, 0, 3, false)).window_points(),
      3);
}

TEST(Observe, AKeyLargerThanTheStoreIsRefusedNamingTheLimit) {
  ServerConfig config = test_config();
  config.live.series_store_max_bytes = 4096;
  ServerHarness harness(config);
  const Series series = make_series(200, 2);
  v1::ObserveResponse response;
  const grpc::Status status =
      observe(harness, observe_request("big", series, 0, 200, false), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message().rfind("values", 0), 0u) << status.error_message();
}

std::string temporary_folder() {
  char path[] = "/tmp/tsserve-series-XXXXXX";
  EXPECT_NE(mkdtemp(path), nullptr);
  return path;
}

TEST(Observe, TheWindowSurvivesADrainAndARestart) {
  const std::string folder = temporary_folder();
  ServerConfig config = test_config();
  config.live.series_store_dir = folder;
  const Series series = make_series(kSeqLen + 6, 21);
  {
    ServerHarness first(config);
    observe_expecting_ok(first, observe_request("durable", series, 0, kSeqLen + 5, false));
    ASSERT_TRUE(first.server().shutdown(std::chrono::seconds(10)));
  }
  ASSERT_TRUE(std::filesystem::exists(folder + "/series.snapshot"));
  ServerHarness second(config);
  // The last point taken before the restart is still the key's last.
  expect_refused(second, observe_request("durable", series, kSeqLen + 4, kSeqLen + 5, false),
                 "timestamps[0]", "repeats");
  const v1::ObserveResponse next = observe_expecting_ok(
      second, observe_request("durable", series, kSeqLen + 5, kSeqLen + 6, true));
  EXPECT_EQ(next.window_points(), kSeqLen);
  ASSERT_EQ(next.forecast_code(), 0) << next.forecast_message();
  expect_same_forecast(next.forecast(),
                       forecast_expecting_ok(second, full_window_request(series, kSeqLen + 6)));
  std::filesystem::remove_all(folder);
}

TEST(Observe, ACorruptSnapshotIsSetAsideAndTheServerStartsEmpty) {
  const std::string folder = temporary_folder();
  std::ofstream(folder + "/series.snapshot") << "TSSERIES but not really a snapshot";
  ServerConfig config = test_config();
  config.live.series_store_dir = folder;
  ServerHarness harness(config);
  bool set_aside = false;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    set_aside |= entry.path().filename().string().rfind("series.snapshot.corrupt-", 0) == 0;
  }
  EXPECT_TRUE(set_aside);
  EXPECT_FALSE(std::filesystem::exists(folder + "/series.snapshot"));
  const Series series = make_series(3, 1);
  EXPECT_EQ(
      observe_expecting_ok(harness, observe_request("fresh", series, 0, 3, false)).window_points(),
      3);
  std::filesystem::remove_all(folder);
}

// Round by round over one stream: each key's answers equal the unary call's for a twin key
// fed the same points (forecasts bitwise, flags alike), whatever order the stream answers in.
TEST(ObserveStream, AnswersEqualTheUnaryCallsForManyKeysOnOneStream) {
  ServerHarness harness;
  constexpr int kKeys = 4;
  std::vector<Series> series;
  for (int k = 0; k < kKeys; ++k) series.push_back(make_series(kSeqLen + 3, 40 + k));
  grpc::ClientContext context;
  auto stream = harness.stub().ObserveStream(&context);
  std::vector<std::pair<int64_t, int64_t>> rounds = {{0, kSeqLen}};
  for (int64_t t = kSeqLen; t < kSeqLen + 3; ++t) rounds.push_back({t, t + 1});
  for (const auto& [begin, end] : rounds) {
    for (int k = 0; k < kKeys; ++k) {
      ASSERT_TRUE(stream->Write(
          observe_request("stream-" + std::to_string(k), series[k], begin, end, true)));
    }
    std::map<std::string, v1::ObserveResponse> answers;
    for (int k = 0; k < kKeys; ++k) {
      v1::ObserveResponse answer;
      ASSERT_TRUE(stream->Read(&answer));
      EXPECT_EQ(answer.error_code(), 0) << answer.error_message();
      answers[answer.series_key()] = answer;
    }
    ASSERT_EQ(answers.size(), static_cast<size_t>(kKeys));
    for (int k = 0; k < kKeys; ++k) {
      const v1::ObserveResponse unary = observe_expecting_ok(
          harness, observe_request("unary-" + std::to_string(k), series[k], begin, end, true));
      const v1::ObserveResponse& streamed = answers["stream-" + std::to_string(k)];
      EXPECT_EQ(streamed.window_points(), unary.window_points());
      ASSERT_EQ(streamed.forecast_code(), 0) << streamed.forecast_message();
      expect_same_forecast(streamed.forecast(), unary.forecast());
      ASSERT_EQ(streamed.points_size(), unary.points_size());
      for (int i = 0; i < unary.points_size(); ++i) {
        EXPECT_EQ(streamed.points(i).scored(), unary.points(i).scored());
        EXPECT_EQ(streamed.points(i).forecast(), unary.points(i).forecast());
        EXPECT_EQ(streamed.points(i).anomaly(), unary.points(i).anomaly());
        EXPECT_EQ(streamed.points(i).score(), unary.points(i).score());
      }
    }
  }
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

// Far more requests than the stream keeps in work, written before any is read: every one
// is answered, one key's points are taken in order, and a bad one is answered with its
// refusal while the stream goes on.
TEST(ObserveStream, EveryRequestOfAFloodIsAnsweredInOrderPerKeyAndARefusalDoesNotEndIt) {
  ServerHarness harness;
  constexpr int kKeys = 5, kPoints = 60;  // 300 requests, against 64 in work at once
  const Series series = make_series(kPoints, 8);
  reset_observe_stream_peak_in_work();
  grpc::ClientContext context;
  auto stream = harness.stub().ObserveStream(&context);
  std::thread writer([&] {
    for (int64_t t = 0; t < kPoints; ++t) {
      for (int k = 0; k < kKeys; ++k) {
        v1::ObserveRequest request =
            observe_request("flood-" + std::to_string(k), series, t, t + 1, false);
        request.set_request_id("flood-" + std::to_string(k) + "-" + std::to_string(t));
        if (!stream->Write(request)) return;
        if (k == 0 && t == 7) {  // the same point again: refused, nothing taken
          request.set_request_id("flood-0-7-again");
          if (!stream->Write(request)) return;
        }
      }
    }
    stream->WritesDone();
  });
  std::map<std::string, int64_t> last_window;
  int answers = 0, refused = 0;
  for (v1::ObserveResponse answer; stream->Read(&answer); ++answers) {
    if (answer.error_code() != 0) {
      ++refused;
      EXPECT_EQ(answer.request_id(), "flood-0-7-again");
      EXPECT_EQ(answer.series_key(), "flood-0");
      EXPECT_EQ(answer.error_code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
      EXPECT_EQ(answer.error_message().rfind("timestamps[0]", 0), 0u) << answer.error_message();
      continue;
    }
    // A key's window grows one point per answer, in the order the points were sent.
    int64_t& last = last_window[answer.series_key()];
    EXPECT_GT(answer.window_points(), last) << answer.series_key();
    last = answer.window_points();
  }
  writer.join();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_LE(observe_stream_peak_in_work(), kMaxObservesInWork)
      << "requests of one stream in work at once (read, answer not yet written)";
  EXPECT_EQ(answers, kKeys * kPoints + 1);
  EXPECT_EQ(refused, 1);
  for (int k = 0; k < kKeys; ++k) EXPECT_EQ(last_window["flood-" + std::to_string(k)], kPoints);
}

// At most kMaxObservesInWork requests of a stream are in work at once. The batcher holds
// every forecast until its queue delay ends (the flood's rows are far below max_batch_rows),
// so a stream that read without the bound would take all 66 requests in before the first
// answer; this one stops reading at 64, answers them when the batch runs, then reads the
// rest. The peak is the stream's own count (observe_stream_peak_in_work), and reaching
// exactly the bound shows the flood did press against it.
TEST(ObserveStream, AtMost64RequestsOfAStreamAreInWorkAtOnce) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 4096;
  config.batching.max_queue_delay_ms = 3000;
  ServerHarness harness(config);
  constexpr int kKeys = kMaxObservesInWork + 2;
  const Series series = make_series(kSeqLen + 1, 9);
  // Each key's window full first (no forecast), so each request of the flood forecasts.
  for (int k = 0; k < kKeys; ++k) {
    observe_expecting_ok(harness,
                         observe_request("bound-" + std::to_string(k), series, 0, kSeqLen, false));
  }
  reset_observe_stream_peak_in_work();
  grpc::ClientContext context;
  auto stream = harness.stub().ObserveStream(&context);
  std::thread writer([&] {
    for (int k = 0; k < kKeys; ++k) {
      if (!stream->Write(observe_request("bound-" + std::to_string(k), series, kSeqLen,
                                         kSeqLen + 1, true))) {
        return;
      }
    }
    stream->WritesDone();
  });
  int answers = 0;
  for (v1::ObserveResponse answer; stream->Read(&answer); ++answers) {
    EXPECT_EQ(answer.error_code(), 0) << answer.series_key() << ": " << answer.error_message();
  }
  writer.join();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(answers, kKeys);
  EXPECT_EQ(observe_stream_peak_in_work(), kMaxObservesInWork)
      << "requests of one stream in work at once (read, answer not yet written)";
}

}  // namespace
}  // namespace tsserve::server::testing
