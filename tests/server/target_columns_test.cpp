// A target and its covariates by name (codec/common/target_columns.h): a "MS" model's
// columns put in its scaler's order (the target last) whatever the request's order, the
// values moving with their columns; a target, covariate or extra column out of place
// refused naming the field; a model without a scaler moving the named target last; a model
// that forecasts every variable refusing a target.

#include "server/codec/common/target_columns.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace tsserve::server {
namespace {

ModelShape target_model(bool scaler) {
  ModelShape model;
  model.family = "TimeXer";
  model.features = "MS";
  model.forecast_variables = 1;
  if (scaler) {
    model.scaler_columns = {"HUFL", "HULL", "OT"};
    model.scaler_mean = {0, 0, 0};
    model.scaler_std = {1, 1, 1};
  }
  return model;
}

// Columns named `names`, column n's two points n and n + 0.5.
PlainForecastRequest request_of(const std::vector<std::string>& names) {
  PlainForecastRequest request;
  request.columns = names;
  for (std::size_t n = 0; n < names.size(); ++n) {
    request.values.push_back(static_cast<float>(n));
    request.values.push_back(static_cast<float>(n) + 0.5f);
  }
  request.shape[0] = static_cast<int64_t>(names.size());
  request.shape[1] = 2;
  return request;
}

std::string refusal(const std::optional<std::string>& target, const ModelShape& model,
                    const std::vector<std::string>& names) {
  PlainForecastRequest request = request_of(names);
  const Status status = arrange_target_columns(target, model, &request);
  EXPECT_EQ(request.columns, names) << "a refusal leaves the request as it was";
  return status.ok() ? "" : status.message();
}

TEST(TargetColumns, ColumnsInAnyOrderAreReadInTheScalersOrderWithTheirValues) {
  for (const std::optional<std::string>& target :
       {std::optional<std::string>(), std::optional<std::string>("OT")}) {
    PlainForecastRequest request = request_of({"OT", "HULL", "HUFL"});
    request.attention.variables = {0, 2};  // OT, HUFL
    std::vector<int32_t> request_index;
    ASSERT_TRUE(arrange_target_columns(target, target_model(true), &request, &request_index).ok());
    EXPECT_EQ(request.columns, (std::vector<std::string>{"HUFL", "HULL", "OT"}));
    EXPECT_EQ(request_index, (std::vector<int32_t>{2, 1, 0}));  // where each came from
    EXPECT_EQ(request.values, (std::vector<float>{2, 2.5f, 1, 1.5f, 0, 0.5f}));
    EXPECT_EQ(request.attention.variables, (std::vector<int32_t>{2, 0}));
  }
}

TEST(TargetColumns, AnythingButTheTrainedColumnsIsRefusedNamingTheField) {
  const ModelShape model = target_model(true);
  EXPECT_EQ(refusal(std::string("HUFL"), model, {"HUFL", "HULL", "OT"}),
            "target: \"HUFL\"; this TimeXer (features MS) was trained to forecast \"OT\", the "
            "last of its columns, and forecasts no other");
  EXPECT_EQ(refusal(std::nullopt, model, {"HUFL", "OT"}),
            "series: the covariate \"HULL\" is missing; this TimeXer (features MS) reads HUFL, "
            "HULL and the target OT");
  EXPECT_EQ(refusal(std::nullopt, model, {"HUFL", "HULL"}),
            "series: the target \"OT\" is missing; this TimeXer (features MS) reads HUFL, HULL "
            "and the target OT");
  EXPECT_EQ(refusal(std::nullopt, model, {"HUFL", "HULL", "OT", "LULL"}),
            "series: \"LULL\" is not a column of this TimeXer (features MS), which reads HUFL, "
            "HULL and the target OT");
  EXPECT_EQ(
      refusal(std::nullopt, model, {"HUFL", "hull", "OT"}).find("series: the covariate \"HULL\""),
      0u);  // misnamed: the one it lacks
}

TEST(TargetColumns, WithoutAScalerTheNamedTargetMovesLast) {
  PlainForecastRequest request = request_of({"load", "price", "temperature"});
  ASSERT_TRUE(arrange_target_columns(std::string("price"), target_model(false), &request).ok());
  EXPECT_EQ(request.columns, (std::vector<std::string>{"load", "temperature", "price"}));
  EXPECT_EQ(request.values, (std::vector<float>{0, 0.5f, 2, 2.5f, 1, 1.5f}));
  EXPECT_EQ(refusal(std::string("wind"), target_model(false), {"load", "price"}),
            "target: \"wind\" is not a column of series");
  PlainForecastRequest unchanged = request_of({"load", "price"});
  std::vector<int32_t> request_index = {7};
  ASSERT_TRUE(
      arrange_target_columns(std::nullopt, target_model(false), &unchanged, &request_index).ok());
  EXPECT_EQ(unchanged.columns, (std::vector<std::string>{"load", "price"}));
  EXPECT_TRUE(request_index.empty());  // nothing moved
}

TEST(TargetColumns, AModelForecastingEveryVariableRefusesATarget) {
  ModelShape model;
  model.family = "iTransformer";
  EXPECT_EQ(refusal(std::string("OT"), model, {"HUFL", "OT"}),
            "target: this iTransformer forecasts every variable it is sent (features M); send no "
            "target");
  EXPECT_EQ(refusal(std::nullopt, model, {"OT", "HUFL"}), "");
}

}  // namespace
}  // namespace tsserve::server
