// The config file beside a checkpoint: defaults, choices, and messages naming the field.

#include "tsserve/model/model_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tsserve/model/model_error.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

const char kMinimal[] =
    R"({"seq_len": 96, "pred_len": 24, "d_model": 16, "n_heads": 4, "e_layers": 2, "d_ff": 32)";

std::string error_of(const std::string& text) {
  try {
    parse_model_config(text, "m.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfigParse, MinimalConfigTakesTslibDefaults) {
  const ModelConfig config = parse_model_config(std::string(kMinimal) + "}", "m.json");
  EXPECT_EQ(config.patch_len, 16);
  EXPECT_EQ(config.stride, 8);
  EXPECT_EQ(config.factor, 1);
  EXPECT_EQ(config.activation, Activation::kGelu);
  EXPECT_EQ(config.attention, AttentionKind::kFull);
  EXPECT_FALSE(config.norm.has_value());
  EXPECT_EQ(config.patch_count(), 12);
}

TEST(ModelConfigParse, ReadsEveryField) {
  const ModelConfig config = parse_model_config(
      std::string(kMinimal) +
          R"(, "patch_len": 12, "stride": 6, "factor": 5, "activation": "relu", "norm": "layer",
          "attention": "prob", "prob_layout": "tslib", "prob_seed": 42, "name": "m", "version": 3,
          "dropout": 0.1, "training": {"epochs": 3},
          "scaler": {"columns": ["a", "b"], "mean": [1, 2], "std": [0.5, 2]}})",
      "m.json");
  EXPECT_EQ(config.patch_len, 12);
  EXPECT_EQ(config.activation, Activation::kRelu);
  EXPECT_EQ(*config.norm, FinalNorm::kLayer);
  EXPECT_EQ(config.attention, AttentionKind::kProb);
  EXPECT_EQ(config.prob_layout, ProbLayout::kTslib);
  EXPECT_EQ(config.prob_seed, 42u);
  EXPECT_EQ(config.version, "3");
  ASSERT_TRUE(config.scaler.has_value());
  EXPECT_EQ(config.scaler->columns[1], "b");
  EXPECT_EQ(config.scaler->std[0], 0.5);
}

TEST(ModelConfigErrors, EachNamesTheFieldAndTheExpectation) {
  EXPECT_THAT(error_of("{"), HasSubstr("m.json: not valid JSON"));
  EXPECT_THAT(error_of("[1]"), HasSubstr("must be a JSON object"));
  EXPECT_THAT(error_of(R"({"seq_len": 96})"), HasSubstr("'pred_len' is required"));
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "stride": "8"})"),
              HasSubstr("'stride' must be an integer, got \"8\""));
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "attention": "sparse"})"),
              HasSubstr("'attention' must be one of \"full\", \"prob\", got \"sparse\""));
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "n_heads": 3})"),
              HasSubstr("'d_model' (16) must be a multiple of 'n_heads' (3)"));
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "d_ff": 0})"),
              HasSubstr("'d_ff' must be positive, got 0"));
  EXPECT_THAT(error_of(std::string(kMinimal) +
                       R"(, "scaler": {"columns": ["a"], "mean": [1, 2], "std": [1]}})"),
              HasSubstr("'scaler' needs as many mean and std values as columns (1)"));
}

TEST(ModelConfigErrors, SizesAreBoundedBeforeAnythingIsBuiltFromThem) {
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "seq_len": 4611686018427387904})"),
              HasSubstr("'seq_len' must be at most 2147483647, got 4611686018427387904"));
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "d_model": 18446744073709551615})"),
              HasSubstr("'d_model' must be at most 9223372036854775807"));
  // seq_len + stride would overflow int64 without the bound.
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "seq_len": 9223372036854775807})"),
              HasSubstr("'seq_len' must be at most 2147483647"));
  // The position table has 5000 rows: 40000 points in patches of 8 give 5001 patches.
  EXPECT_THAT(error_of(std::string(kMinimal) + R"(, "seq_len": 40000, "patch_len": 8})"),
              HasSubstr("seq_len 40000, patch_len 8 and stride 8 give 5001 patches; the position "
                        "embedding covers at most 5000"));
  EXPECT_EQ(error_of(std::string(kMinimal) + R"(, "seq_len": 39992, "patch_len": 8})"), "");
}

TEST(ModelConfigErrors, AValueNestedDeepIsRefusedByItsKindWithoutACrash) {
  // dump() of this value in the error message recursed 100,000 deep.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_model_config(R"({"seq_len": )" + deep + "}", "deep.json");
    FAIL() << "a nested array was taken for seq_len";
  } catch (const ModelError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("seq_len"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("got an array"));
  }
}

}  // namespace
}  // namespace tsserve::testing
