#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "server/codec/v1/attention_options.h"

namespace tsserve::server {
namespace {

using testing::invalid_argument;

v1::AttentionOptions enabled(std::vector<int32_t> layers, std::vector<int32_t> variables = {}) {
  v1::AttentionOptions options;
  options.set_enabled(true);
  options.mutable_layers()->Add(layers.begin(), layers.end());
  options.mutable_variables()->Add(variables.begin(), variables.end());
  return options;
}

TEST(AttentionSelectionTest, DisabledIgnoresEveryOtherField) {
  v1::AttentionOptions options = enabled({99, 99}, {-1});
  options.set_enabled(false);
  options.set_average_heads(true);
  AttentionSelection selection;
  selection.layers = {5};
  ASSERT_TRUE(resolve_forecast_attention(options, 3, 2, &selection).ok());
  EXPECT_FALSE(selection.enabled);
  EXPECT_TRUE(selection.layers.empty());
  EXPECT_TRUE(selection.variables.empty());
  ASSERT_TRUE(resolve_encode_attention(options, 3, &selection).ok());
  EXPECT_FALSE(selection.enabled);
}

TEST(AttentionSelectionTest, EmptyListsMeanEverything) {
  AttentionSelection selection;
  ASSERT_TRUE(resolve_forecast_attention(enabled({}), 3, 4, &selection).ok());
  EXPECT_TRUE(selection.enabled);
  EXPECT_FALSE(selection.average_heads);
  EXPECT_EQ(selection.layers, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(selection.variables, (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(AttentionSelectionTest, SortsWhateverTheRequestOrder) {
  v1::AttentionOptions options = enabled({2, 0}, {5, 1, 3});
  options.set_average_heads(true);
  AttentionSelection selection;
  ASSERT_TRUE(resolve_forecast_attention(options, 3, 6, &selection).ok());
  EXPECT_TRUE(selection.average_heads);
  EXPECT_EQ(selection.layers, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(selection.variables, (std::vector<int32_t>{1, 3, 5}));
}

TEST(AttentionSelectionTest, RejectsIndicesOutOfRange) {
  AttentionSelection selection;
  EXPECT_TRUE(invalid_argument(resolve_forecast_attention(enabled({0, 5}), 3, 2, &selection),
                               {"attention.layers: layer 5 is out of range 0..2"}));
  EXPECT_TRUE(invalid_argument(resolve_forecast_attention(enabled({-1}), 3, 2, &selection),
                               {"attention.layers: layer -1 is out of range 0..2"}));
  EXPECT_TRUE(invalid_argument(resolve_forecast_attention(enabled({}, {2}), 3, 2, &selection),
                               {"attention.variables: variable 2 is out of range 0..1"}));
  EXPECT_TRUE(invalid_argument(resolve_encode_attention(enabled({3}), 3, &selection),
                               {"attention.layers: layer 3 is out of range 0..2"}));
}

TEST(AttentionSelectionTest, RejectsRepeatedIndices) {
  AttentionSelection selection;
  EXPECT_TRUE(invalid_argument(resolve_forecast_attention(enabled({1, 0, 1}), 3, 2, &selection),
                               {"attention.layers: layer 1 is repeated"}));
  EXPECT_TRUE(invalid_argument(resolve_forecast_attention(enabled({}, {0, 0}), 3, 2, &selection),
                               {"attention.variables: variable 0 is repeated"}));
}

TEST(AttentionSelectionTest, EncodeTakesNoVariables) {
  AttentionSelection selection;
  EXPECT_TRUE(invalid_argument(resolve_encode_attention(enabled({}, {0}), 3, &selection),
                               {"attention.variables: must be empty in an Encode request"}));
  ASSERT_TRUE(resolve_encode_attention(enabled({1}), 3, &selection).ok());
  EXPECT_TRUE(selection.enabled);
  EXPECT_EQ(selection.layers, (std::vector<int32_t>{1}));
  EXPECT_EQ(selection.variables, (std::vector<int32_t>{0}));
}

}  // namespace
}  // namespace tsserve::server
