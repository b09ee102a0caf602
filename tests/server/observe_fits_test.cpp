// check_observation_fits: an Observe call's columns and timestamps against the model that
// serves it, refused before any work naming the field and the bound, so an answer (one
// point per value) stays within (seq_len + pred_len) x the model's variables.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "server/codec/common/observation_rules.h"

namespace tsserve::server {
namespace {

using ::testing::StartsWith;

ModelShape patchtst_shape() {
  ModelShape model;
  model.name = "etth1";
  model.seq_len = 336;
  model.pred_len = 96;
  model.unit = SampleUnit::kVariableRow;
  model.enc_in = 7;
  return model;
}

ModelShape itransformer_shape() {
  ModelShape model = patchtst_shape();
  model.name = "itrans";
  model.family = "iTransformer";
  model.unit = SampleUnit::kSample;
  return model;
}

Observation observation_of(int64_t steps, int64_t variables) {
  Observation observation;
  observation.series_key = "k";
  observation.variables = variables;
  for (int64_t t = 0; t < steps; ++t) {
    observation.timestamps.push_back(1'700'000'000 + 3600 * t);
    for (int64_t n = 0; n < variables; ++n) observation.values.push_back(1.0);
  }
  return observation;
}

TEST(ObserveFits, ColumnsAreCheckedAgainstAModelOfAFixedVariableCount) {
  const RequestLimits limits;  // max_series_rows 448
  EXPECT_TRUE(check_observation_fits(observation_of(100, 7), itransformer_shape(), limits).ok());
  const Status wide =
      check_observation_fits(observation_of(100, 2000), itransformer_shape(), limits);
  EXPECT_EQ(wide.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(wide.message(), StartsWith("values: 2000 columns; model \"itrans\" takes exactly 7 "
                                         "variables"));
  EXPECT_FALSE(check_observation_fits(observation_of(1, 6), itransformer_shape(), limits).ok());

  ModelShape any_count = itransformer_shape();
  any_count.any_variable_count = true;
  EXPECT_TRUE(check_observation_fits(observation_of(1, 6), any_count, limits).ok());
}

TEST(ObserveFits, ColumnsAreCheckedAgainstTheRowsAForecastMayCarry) {
  RequestLimits limits;
  limits.max_series_rows = 448;
  EXPECT_TRUE(check_observation_fits(observation_of(100, 448), patchtst_shape(), limits).ok());
  const Status wide = check_observation_fits(observation_of(100, 2000), patchtst_shape(), limits);
  EXPECT_EQ(wide.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(wide.message(), StartsWith("values: 2000 columns; model \"etth1\" takes at most 448 "
                                         "variables (max_batch_rows in GetModelInfo"));
  EXPECT_FALSE(check_observation_fits(observation_of(1, 449), patchtst_shape(), limits).ok());
}

TEST(ObserveFits, TimestampsAreAtMostSeqLenPlusPredLen) {
  const RequestLimits limits;
  EXPECT_TRUE(check_observation_fits(observation_of(336 + 96, 7), patchtst_shape(), limits).ok());
  const Status long_call =
      check_observation_fits(observation_of(336 + 97, 7), patchtst_shape(), limits);
  EXPECT_EQ(long_call.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(long_call.message(),
            "timestamps: 433 points in one call; model \"etth1\" takes at most 432 (seq_len 336 "
            "+ pred_len 96); send more in several calls, oldest first");
}

}  // namespace
}  // namespace tsserve::server
