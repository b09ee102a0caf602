// The bundled TimeXer (ETTh1, features "MS": OT the target, the six load columns its
// covariates, calibrated) fed ETTh1's whole test split point by point through Observe: every
// Observe forecast is bitwise the Forecast call sent the full window, and each new OT
// point is flagged against the forecast made one step before it (the covariates' points
// are not forecast, so not scored). Skipped without the dataset.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "raw_http_client.h"
#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

constexpr int64_t kTimeXerSeqLen = 96;
constexpr int64_t kTimeXerHorizon = 96;
constexpr int64_t kEtth1Variables = 7;
const char* const kEtth1Columns[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};

const std::string kEtth1Dataset = std::string(TSSERVE_SOURCE_DIR) + "/../shared/data/ETTh1.csv";

// ETTh1's rows from `first` on (the test split starts at 8640 + 2880 = 11520): Unix seconds
// (the dates, UTC) and the seven columns, [T, N] row-major.
struct Etth1Rows {
  std::vector<int64_t> times;
  std::vector<float> values;
  float at(int64_t t, int64_t n) const {
    return values[static_cast<size_t>(t * kEtth1Variables + n)];
  }
};

Etth1Rows read_etth1_rows(int64_t first, int64_t count) {
  std::ifstream file(kEtth1Dataset);
  std::string line;
  std::getline(file, line);  // the header: date,HUFL,...,OT
  Etth1Rows rows;
  for (int64_t index = 0; std::getline(file, line) && index < first + count; ++index) {
    if (index < first) continue;
    std::istringstream fields(line);
    std::string date;
    std::getline(fields, date, ',');
    std::tm tm{};
    std::istringstream(date) >> std::get_time(&tm, "%Y-%m-%d %H:%M:%S");
    rows.times.push_back(static_cast<int64_t>(timegm(&tm)));
    for (std::string cell; std::getline(fields, cell, ',');) rows.values.push_back(std::stof(cell));
  }
  return rows;
}

ServerConfig bundled_timexer_config() {
  ServerConfig config = test_config();
  config.model.model = std::string(TSSERVE_SOURCE_DIR) + "/model/default/timexer_etth1.pt";
  return config;
}

v1::ObserveRequest timexer_observe_request(const Etth1Rows& rows, int64_t begin, int64_t end) {
  v1::ObserveRequest request;
  request.set_series_key("transformer-1");
  for (const char* name : kEtth1Columns) request.add_variable_names(name);
  for (int64_t t = begin; t < end; ++t) {
    request.add_timestamps(rows.times[static_cast<size_t>(t)]);
    for (int64_t n = 0; n < kEtth1Variables; ++n) request.add_values(rows.at(t, n));
  }
  request.set_forecast(true);
  return request;
}

v1::ForecastRequest timexer_window_request(const Etth1Rows& rows, int64_t end) {
  v1::ForecastRequest request;  // [N, T]
  request.mutable_series()->add_shape(kEtth1Variables);
  request.mutable_series()->add_shape(kTimeXerSeqLen);
  for (int64_t n = 0; n < kEtth1Variables; ++n) {
    for (int64_t t = end - kTimeXerSeqLen; t < end; ++t)
      request.mutable_series()->add_values(rows.at(t, n));
  }
  for (int64_t t = end - kTimeXerSeqLen; t < end; ++t)
    request.add_timestamps(rows.times[static_cast<size_t>(t)]);
  for (const char* name : kEtth1Columns) request.add_variable_names(name);
  // The calibrated levels, as Observe's forecasts carry them.
  for (const double level : {0.5, 0.8, 0.9, 0.95, 0.99}) request.add_interval_levels(level);
  return request;
}

bool same_float_bits(const v1::Tensor& a, const v1::Tensor& b) {
  return a.values_size() == b.values_size() &&
         std::memcmp(a.values().data(), b.values().data(), sizeof(float) * a.values_size()) == 0;
}

TEST(TimeXerObserve, TestSplitForecastsEqualFullWindowCallsBitwiseAndFlagTheTarget) {
  if (!std::filesystem::exists(kEtth1Dataset)) GTEST_SKIP() << kEtth1Dataset << " is missing";
  ServerHarness harness(bundled_timexer_config());
  // The 96 rows before the test split fill the window; then every row of the split
  // (TSLib's borders: 11520 .. 14400) is observed one by one, each forecast checked
  // against a Forecast of its full window.
  const int64_t observed = 2880;
  const Etth1Rows rows = read_etth1_rows(11520 - kTimeXerSeqLen, kTimeXerSeqLen + observed);
  v1::ObserveResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub()
                    .Observe(&context, timexer_observe_request(rows, 0, kTimeXerSeqLen), &response)
                    .ok());
  }
  ASSERT_EQ(response.forecast_code(), 0) << response.forecast_message();
  v1::ForecastResponse previous =
      forecast_expecting_ok(harness, timexer_window_request(rows, kTimeXerSeqLen));
  ASSERT_EQ(previous.forecast_variables_size(), 1);
  EXPECT_EQ(previous.forecast_variables(0), kEtth1Variables - 1);  // OT
  EXPECT_EQ(previous.forecast().values_size(), kTimeXerHorizon);
  ASSERT_EQ(previous.intervals_size(), 5);  // the bundled model is calibrated
  EXPECT_TRUE(same_float_bits(response.forecast().forecast(), previous.forecast()));
  int64_t flagged = 0;
  for (int64_t t = kTimeXerSeqLen; t < kTimeXerSeqLen + observed; ++t) {
    grpc::ClientContext context;
    ASSERT_TRUE(
        harness.stub().Observe(&context, timexer_observe_request(rows, t, t + 1), &response).ok());
    ASSERT_EQ(response.forecast_code(), 0) << response.forecast_message();
    ASSERT_EQ(response.points_size(), kEtth1Variables);
    for (int64_t n = 0; n + 1 < kEtth1Variables; ++n) {
      EXPECT_FALSE(response.points(static_cast<int>(n)).scored()) << "covariate " << n;
    }
    const v1::ObservedPoint& target = response.points(kEtth1Variables - 1);
    ASSERT_TRUE(target.scored()) << "row " << t;
    EXPECT_EQ(target.step(), 1);
    const double expected = previous.forecast().values(0);
    EXPECT_NEAR(target.forecast(), expected, 1e-5 * std::max(1.0, std::fabs(expected)));
    const double lower = previous.intervals(4).lower().values(0);  // 0.99, the highest level
    const double upper = previous.intervals(4).upper().values(0);
    EXPECT_EQ(target.anomaly(), target.value() < lower || target.value() > upper) << "row " << t;
    flagged += target.anomaly() ? 1 : 0;

    previous = forecast_expecting_ok(harness, timexer_window_request(rows, t + 1));
    EXPECT_TRUE(same_float_bits(response.forecast().forecast(), previous.forecast()))
        << "row " << t;
    ASSERT_EQ(response.forecast().intervals_size(), previous.intervals_size());
    for (int i = 0; i < previous.intervals_size(); ++i) {
      EXPECT_TRUE(
          same_float_bits(response.forecast().intervals(i).lower(), previous.intervals(i).lower()));
      EXPECT_TRUE(
          same_float_bits(response.forecast().intervals(i).upper(), previous.intervals(i).upper()));
    }
  }
  EXPECT_EQ(response.anomalies(), response.points(kEtth1Variables - 1).anomaly() ? 1 : 0);
  // The 99 % band (calibrated on the validation split) holds the target nearly always: at
  // most 5 % of the test split is flagged.
  EXPECT_LT(flagged, observed / 20);
}

// The JSON API names the target and its covariates: the columns in any order forecast
// exactly what the training order does (the server puts them in the scaler's order), and a
// target or covariate out of place is refused naming the field.
TEST(TimeXerTarget, JsonColumnsInAnyOrderForecastTheTrainedTargetBitwise) {
  if (!std::filesystem::exists(kEtth1Dataset)) GTEST_SKIP() << kEtth1Dataset << " is missing";
  ServerHarness harness(bundled_timexer_config());
  const Etth1Rows rows = read_etth1_rows(11520 - kTimeXerSeqLen, kTimeXerSeqLen);
  const auto body = [&](const std::vector<int64_t>& order, const std::string& target) {
    nlohmann::ordered_json series = nlohmann::ordered_json::object();
    for (int64_t n : order) {
      std::vector<double> column;
      for (int64_t t = 0; t < kTimeXerSeqLen; ++t) column.push_back(rows.at(t, n));
      series[kEtth1Columns[n]] = column;
    }
    nlohmann::ordered_json request = {{"series", series}, {"timestamps", rows.times}};
    if (!target.empty()) request["target"] = target;
    return request.dump();
  };
  const auto forecast = [&](const std::string& text) {
    return tsserve::testing::http_call(harness.server().http_port(), "POST",
                                       "/v1/models/timexer-etth1/forecast", text,
                                       {{"Content-Type", "application/json"}});
  };
  const tsserve::testing::HttpReply trained = forecast(body({0, 1, 2, 3, 4, 5, 6}, ""));
  ASSERT_EQ(trained.status, 200) << trained.body;
  const nlohmann::json expected = nlohmann::json::parse(trained.body)["forecast"];
  ASSERT_EQ(expected.size(), 1u);  // OT alone
  ASSERT_TRUE(expected.contains("OT"));
  for (const std::string& target : {std::string(), std::string("OT")}) {
    const tsserve::testing::HttpReply shuffled = forecast(body({6, 3, 0, 5, 1, 4, 2}, target));
    ASSERT_EQ(shuffled.status, 200) << shuffled.body;
    EXPECT_EQ(nlohmann::json::parse(shuffled.body)["forecast"], expected) << "target " << target;
  }
  const tsserve::testing::HttpReply other = forecast(body({0, 1, 2, 3, 4, 5, 6}, "HUFL"));
  EXPECT_EQ(other.status, 400);
  EXPECT_EQ(nlohmann::json::parse(other.body)["error"].get<std::string>().rfind(
                "target: \"HUFL\"; this TimeXer (features MS) was trained to forecast \"OT\"", 0),
            0u)
      << other.body;
  const tsserve::testing::HttpReply missing = forecast(body({0, 1, 2, 4, 5, 6}, ""));
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(nlohmann::json::parse(missing.body)["error"].get<std::string>().rfind(
                "series: the covariate \"MULL\" is missing", 0),
            0u)
      << missing.body;
  // A covariate twice, and a covariate shorter than the target: refused as they are read.
  std::string twice = body({0, 1, 2, 3, 4, 5, 6}, "");
  twice.replace(twice.find("\"HULL\""), 6, "\"HUFL\"");
  const tsserve::testing::HttpReply repeated = forecast(twice);
  EXPECT_EQ(repeated.status, 400);
  EXPECT_NE(repeated.body.find("HUFL"), std::string::npos) << repeated.body;
  nlohmann::ordered_json short_covariate =
      nlohmann::ordered_json::parse(body({0, 1, 2, 3, 4, 5, 6}, ""));
  short_covariate["series"]["LUFL"].erase(0);
  const tsserve::testing::HttpReply shorter = forecast(short_covariate.dump());
  EXPECT_EQ(shorter.status, 400);
  EXPECT_EQ(nlohmann::json::parse(shorter.body)["error"].get<std::string>().rfind(
                "series.LUFL: 95 points where series.HUFL has 96", 0),
            0u)
      << shorter.body;
}

}  // namespace
}  // namespace tsserve::server::testing
