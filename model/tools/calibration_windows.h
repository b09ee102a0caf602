#pragma once
// The dataset side of tsserve-calibrate: a CSV scaled with the model's StandardScaler, the
// standard split's row ranges, and the absolute residuals of every window in a range,
// computed with tsserve's own model of the config's family (LibTorch modules, eval mode).

#include <torch/torch.h>

#include <string>
#include <vector>

#include "tsserve/model/model_config.h"

namespace tsserve::tools {

// "8640/2880/2880": rows of train / validation / test, in file order.
struct DatasetSplit {
  int64_t train = 0;
  int64_t validation = 0;
  int64_t test = 0;
  std::string text;
};
// Throws std::invalid_argument naming '--split' and the expected form.
DatasetSplit parse_split(const std::string& text);

enum class SplitPart { kValidation, kTest };

// Rows [begin, end) whose windows forecast `part`: validation and test start seq_len rows
// early, so their first forecast starts at the boundary (TSLib's Dataset_ETT_hour).
std::pair<int64_t, int64_t> split_rows(const DatasetSplit& split, SplitPart part, int64_t seq_len);

struct ScaledDataset {
  at::Tensor values;            // [rows, C] float32, scaled by the config's scaler
  std::vector<int64_t> times;   // Unix seconds of each row (its date column)
};

// Reads the config's scaler columns from `path`. Throws naming the file when a column or
// date is missing.
ScaledDataset read_scaled_dataset(const std::string& path, const model::ModelConfig& config);

// |forecast - actual| for every window starting in [begin, end - seq_len - pred_len], in
// scaled space: [windows, pred_len, K], K = config.calibrated_columns() (every column, or an
// "MS" model's target alone). `checkpoint` is loaded as config.family says.
at::Tensor absolute_residuals(const std::string& checkpoint, const model::ModelConfig& config,
                              const ScaledDataset& data, std::pair<int64_t, int64_t> rows);

}  // namespace tsserve::tools
