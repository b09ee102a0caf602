// TSLib's calendar features computed in C++ against TSLib's own functions (pandas, written
// after utils/timefeatures.py in tests/reference/tslib_timefeatures.py): every ETTh1 date
// and random instants 1900-2100, every frequency, bitwise in float32. And the errors.

#include "tsserve/model/time_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "reference_fixture.h"
#include "tsserve/model/model_error.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

std::vector<int64_t> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

void expect_features_equal_tslib(const std::string& case_name) {
  const ReferenceFixture fixture = load_reference_fixture(case_name);
  const std::vector<int64_t> seconds = to_vector(fixture.input("timestamps"));
  ASSERT_GT(seconds.size(), 1000u);
  for (const std::string freq : fixture.config["freqs"]) {
    const std::vector<TimeFeature> features = time_features_for_freq(freq);
    const at::Tensor expected = fixture.output(freq);  // [C, T]
    ASSERT_EQ(expected.size(0), static_cast<int64_t>(features.size())) << freq;
    const std::vector<float> rows = time_feature_rows(features, seconds, seconds.size());
    const float* want = expected.data_ptr<float>();
    for (size_t i = 0; i < rows.size(); ++i) {
      const size_t t = i % seconds.size();
      ASSERT_EQ(rows[i], want[i]) << "freq " << freq << ", "
                                  << time_feature_name(features[i / seconds.size()]) << " of "
                                  << seconds[t];
    }
  }
}

TEST(TimeFeatures, EveryEtth1DateEqualsTslib) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("calendar_etth1");  // made from ETTh1.csv's dates
  expect_features_equal_tslib("calendar_etth1");
}

TEST(TimeFeatures, RandomInstantsAndYearEdgesEqualTslib) {
  expect_features_equal_tslib("calendar_synthetic");
}

TEST(TimeFeatures, HourlyFeaturesAreTslibsFourInOrder) {
  std::vector<std::string> names;
  for (TimeFeature f : time_features_for_freq("h")) names.push_back(time_feature_name(f));
  EXPECT_THAT(names, ::testing::ElementsAre("HourOfDay", "DayOfWeek", "DayOfMonth", "DayOfYear"));
  // 2016-07-01 00:00 UTC (ETTh1's first row), a Friday, day 183 of a leap year.
  EXPECT_DOUBLE_EQ(time_feature_value(TimeFeature::kHourOfDay, 1467331200), -0.5);
  EXPECT_DOUBLE_EQ(time_feature_value(TimeFeature::kDayOfWeek, 1467331200), 4.0 / 6.0 - 0.5);
  EXPECT_DOUBLE_EQ(time_feature_value(TimeFeature::kDayOfYear, 1467331200), 182.0 / 365.0 - 0.5);
}

TEST(TimeFeatures, UnknownFrequencyNamesTheField) {
  try {
    time_features_for_freq("fortnight");
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'freq'"));
    EXPECT_THAT(e.what(), HasSubstr("\"fortnight\""));
  }
}

TEST(TimeFeatures, MissingTimestampsAreRefused) {
  EXPECT_THAT(timestamps_error({}, 96), HasSubstr("'timestamps' are required"));
  EXPECT_THAT(timestamps_error({1, 2, 3}, 96), HasSubstr("expected 96, got 3"));
  EXPECT_THROW(time_feature_rows(time_features_for_freq("h"), {}, 96), ModelError);
}

TEST(TimeFeatures, NonIncreasingTimestampsAreRefused) {
  EXPECT_THAT(timestamps_error({0, 3600, 3600}, 3),
              HasSubstr("'timestamps' must be strictly increasing: element 2 (3600) is not "
                        "after element 1 (3600)"));
  EXPECT_THAT(timestamps_error({7200, 3600, 10800}, 3), HasSubstr("element 1 (3600)"));
  EXPECT_EQ(timestamps_error({-3600, 0, 3600}, 3), "");
}

}  // namespace
}  // namespace tsserve::testing
