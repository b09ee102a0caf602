#include "server/codec/common/scaler_matching.h"

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "server/codec/v1/scaler_mode_message.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {
namespace {

using testing::has_status;
using testing::invalid_argument;
using testing::small_model;
using testing::small_model_without_scaler;

google::protobuf::RepeatedPtrField<std::string> variable_names_of(std::vector<std::string> list) {
  return {list.begin(), list.end()};
}

// The shared match (scaler_matching.h) of a tsserve.v1 ScalerMode as sent, as the v1
// decoder takes it: scaler_mode_of, then match_scaler; not applied for an unknown mode.
Status match_v1_scaler(int scaler_mode,
                       const google::protobuf::RepeatedPtrField<std::string>& variable_names,
                       int64_t variables, const ModelShape& model, ScalerMatch* out) {
  ScalerMode mode = ScalerMode::kAuto;
  const Status known = scaler_mode_of(scaler_mode, &mode);
  if (!known.ok()) {
    *out = ScalerMatch{};
    return known;
  }
  return match_scaler(mode, variable_names, variables, model, out);
}

TEST(ScalerMatchingTest, AutoMatchesByNameInTheNamesOrder) {
  ScalerMatch match;
  ASSERT_TRUE(match_v1_scaler(v1::SCALER_MODE_UNSPECIFIED, variable_names_of({"b", "c"}), 2,
                              small_model(), &match)
                  .ok());
  EXPECT_TRUE(match.applied);
  EXPECT_EQ(match.column, (std::vector<int32_t>{1, 2}));
}

TEST(ScalerMatchingTest, AutoMatchesByPositionOnlyWithoutNames) {
  ScalerMatch match;
  ASSERT_TRUE(
      match_v1_scaler(v1::SCALER_MODE_UNSPECIFIED, variable_names_of({}), 3, small_model(), &match)
          .ok());
  EXPECT_TRUE(match.applied);
  EXPECT_EQ(match.column, (std::vector<int32_t>{0, 1, 2}));
  ASSERT_TRUE(match_v1_scaler(v1::SCALER_MODE_UNSPECIFIED, variable_names_of({"c", "b", "A"}), 3,
                              small_model(), &match)
                  .ok());
  EXPECT_FALSE(match.applied);  // names are case-sensitive; no positional fallback
  EXPECT_TRUE(match.column.empty());
  ASSERT_TRUE(
      match_v1_scaler(v1::SCALER_MODE_UNSPECIFIED, variable_names_of({}), 4, small_model(), &match)
          .ok());
  EXPECT_FALSE(match.applied);
}

TEST(ScalerMatchingTest, NoneNeverApplies) {
  ScalerMatch match;
  ASSERT_TRUE(
      match_v1_scaler(v1::SCALER_MODE_NONE, variable_names_of({"a"}), 1, small_model(), &match)
          .ok());
  EXPECT_FALSE(match.applied);
  ASSERT_TRUE(match_v1_scaler(v1::SCALER_MODE_NONE, variable_names_of({}), 3,
                              small_model_without_scaler(), &match)
                  .ok());
  EXPECT_FALSE(match.applied);
}

TEST(ScalerMatchingTest, RequiredRejectsWhatAutoWouldLeaveUnscaled) {
  ScalerMatch match;
  EXPECT_TRUE(has_status(match_v1_scaler(v1::SCALER_MODE_REQUIRED, variable_names_of({}), 3,
                                         small_model_without_scaler(), &match),
                         StatusCode::kFailedPrecondition, {"has no dataset scaler"}));
  EXPECT_TRUE(
      invalid_argument(match_v1_scaler(v1::SCALER_MODE_REQUIRED, variable_names_of({"a", "q", "r"}),
                                       3, small_model(), &match),
                       {"variable_names: \"q\" (variable 1) is not a column", "(3 columns)"}));
  EXPECT_TRUE(invalid_argument(
      match_v1_scaler(v1::SCALER_MODE_REQUIRED, variable_names_of({}), 5, small_model(), &match),
      {"series: 5 unnamed variables", "exactly 3 variables"}));
  ASSERT_TRUE(
      match_v1_scaler(v1::SCALER_MODE_REQUIRED, variable_names_of({"c"}), 1, small_model(), &match)
          .ok());
  EXPECT_TRUE(match.applied);
  EXPECT_EQ(match.column, (std::vector<int32_t>{2}));
}

TEST(ScalerMatchingTest, RejectsUnknownModes) {
  ScalerMatch match;
  EXPECT_TRUE(invalid_argument(match_v1_scaler(3, variable_names_of({}), 3, small_model(), &match),
                               {"scaler_mode: unknown value 3"}));
}

TEST(ScalerMatchingTest, ListsABoundedNumberOfColumns) {
  ModelShape model = small_model();
  model.scaler_columns.clear();
  for (int c = 0; c < 40; ++c) model.scaler_columns.push_back("col" + std::to_string(c));
  model.scaler_mean.assign(40, 0.0);
  model.scaler_std.assign(40, 1.0);
  ScalerMatch match;
  const Status status =
      match_v1_scaler(v1::SCALER_MODE_REQUIRED, variable_names_of({"nope"}), 1, model, &match);
  EXPECT_TRUE(invalid_argument(status, {"\"col11\", ...", "(40 columns)"}));
  EXPECT_EQ(status.message().find("col12"), std::string::npos);
}

}  // namespace
}  // namespace tsserve::server
