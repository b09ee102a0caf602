// The config's "calibration" block: read with the model config, shapes and values checked
// against the model (each error naming the key; an "MS" model's is its target's column
// alone), the conformal rank, and a written block reading back to the same quantiles.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tsserve/model/calibration_json.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

using ::testing::HasSubstr;

// A 2-step, 2-column model with a scaler; `calibration` is the block's JSON.
std::string config_with(const std::string& calibration) {
  return R"({"seq_len": 8, "pred_len": 2, "d_model": 4, "n_heads": 1, "e_layers": 1, "d_ff": 4,
             "patch_len": 4, "stride": 4,
             "scaler": {"columns": ["a", "b"], "mean": [0, 1], "std": [1, 2]},
             "calibration": )" +
         calibration + "}";
}

std::string error_of(const std::string& text) {
  try {
    parse_model_config(text, "m.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

const char kGood[] =
    R"({"levels": [0.5, 0.9], "windows": 99, "rows": [10, 120], "split": "1/2/3",
        "dataset": "d.csv", "quantiles": [[[0.1, 0.2], [0.3, 0.4]], [[0.5, 0.6], [0.7, 0.8]]]})";

TEST(CalibrationConfig, ReadsLevelsQuantilesAndProvenance) {
  const ModelConfig config = parse_model_config(config_with(kGood), "m.json");
  ASSERT_TRUE(config.calibration);
  const Calibration& c = *config.calibration;
  EXPECT_EQ(c.levels, (std::vector<double>{0.5, 0.9}));
  EXPECT_EQ(c.quantile(0, 1, 0), 0.3);  // level 0, step 1, column "a"
  EXPECT_EQ(c.quantile(1, 0, 1), 0.6);
  EXPECT_EQ(c.windows, 99);
  EXPECT_EQ(c.row_begin, 10);
  EXPECT_EQ(c.row_end, 120);
  EXPECT_EQ(c.dataset, "d.csv");
  EXPECT_EQ(c.level_index(0.9), 1);
  EXPECT_EQ(c.level_index(0.8), -1);
  // Written and read back: the same block.
  const nlohmann::json written = nlohmann::json::parse(calibration_to_json(c).dump());
  const Calibration again = calibration_from_json(written, "again");
  EXPECT_EQ(again.quantiles, c.quantiles);
  EXPECT_EQ(again.levels, c.levels);
}

TEST(CalibrationConfig, EachBadBlockNamesTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"quantiles": []})", "'calibration.levels' is required"},
      {R"({"levels": [0.5, 1.0], "quantiles": [[[0,0],[0,0]], [[0,0],[0,0]]]})",
       "'calibration.levels' must lie in (0, 1)"},
      {R"({"levels": [0.9, 0.5], "quantiles": [[[0,0],[0,0]], [[0,0],[0,0]]]})",
       "strictly increasing"},
      {R"({"levels": [0.5], "quantiles": [[[0,0],[0,0]], [[0,0],[0,0]]]})",
       "'calibration.quantiles' is required: one [pred_len][columns] list per level (1 levels)"},
      // Three steps for a pred_len of 2.
      {R"({"levels": [0.5], "quantiles": [[[0,0],[0,0],[0,0]]]})",
       "must be [levels][pred_len][columns] = [1][2][2], got [.][3][2]"},
      {R"({"levels": [0.5], "quantiles": [[[0,0],[0]]]})",
       "'calibration.quantiles[0][1]' must have 2 values"},
      {R"({"levels": [0.5], "quantiles": [[[0,-1],[0,0]]]})",
       "'calibration.quantiles'[0][0][1] must be finite and >= 0"},
      // A wider level with a narrower quantile cannot come from one set of residuals.
      {R"({"levels": [0.5, 0.9], "quantiles": [[[0,1],[0,0]], [[0,0.5],[0,0]]]})",
       "'calibration.quantiles'[1][0][1] (level 0.900000) is smaller than the previous level's"},
  };
  for (const auto& [block, message] : cases) {
    EXPECT_THAT(error_of(config_with(block)), HasSubstr(message)) << block;
  }
  const std::string no_scaler =
      R"({"seq_len": 8, "pred_len": 2, "d_model": 4, "n_heads": 1, "e_layers": 1, "d_ff": 4,
          "patch_len": 4, "stride": 4, "calibration": )" + std::string(kGood) + "}";
  EXPECT_THAT(error_of(no_scaler), HasSubstr("'calibration' needs a 'scaler'"));
}

// An Informer with features "MS" forecasts its target alone (the scaler's last column), so
// its calibration has that one column.
std::string ms_config_with(const std::string& calibration) {
  return R"({"model": "Informer", "seq_len": 8, "label_len": 4, "pred_len": 2, "enc_in": 2,
             "c_out": 2, "features": "MS", "d_model": 4, "n_heads": 1, "e_layers": 1,
             "d_layers": 1, "d_ff": 4, "embed": "timeF", "freq": "h",
             "scaler": {"columns": ["a", "b"], "mean": [0, 1], "std": [1, 2]},
             "calibration": )" +
         calibration + "}";
}

TEST(CalibrationConfig, AnMSModelsCalibrationHasItsTargetsColumnAlone) {
  const ModelConfig config = parse_model_config(
      ms_config_with(R"({"levels": [0.5], "quantiles": [[[0.1], [0.3]]]})"), "ms.json");
  EXPECT_EQ(config.calibrated_columns(), 1);
  ASSERT_TRUE(config.calibration);
  EXPECT_EQ(config.calibration->quantile(0, 1, 0), 0.3);
  // A column per scaler column is the shape of an "M" model's: refused.
  EXPECT_THAT(error_of(ms_config_with(kGood)),
              HasSubstr("must be [levels][pred_len][columns] = [2][2][1], got [.][2][2]"));
}

TEST(ConformalRank, IsTheCeilingOfNPlusOneTimesTheLevelInExactDecimals) {
  EXPECT_EQ(conformal_rank(2785, 0.9), 2508);   // 2786 * 0.9 = 2507.4
  EXPECT_EQ(conformal_rank(2785, 0.5), 1393);   // exactly 1393, not 1394
  EXPECT_EQ(conformal_rank(99, 0.07), 7);       // 100 * 0.07 is 7 in decimals, 7.000000000000001 in doubles
  EXPECT_EQ(conformal_rank_error(9, 0.8), "");
  EXPECT_THAT(conformal_rank_error(9, 0.95), HasSubstr("needs the 10-th smallest of 9"));
  EXPECT_THAT(conformal_rank_error(100, 1.0), HasSubstr("(0, 1)"));
}

}  // namespace
}  // namespace tsserve::model
