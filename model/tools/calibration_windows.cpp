#include "calibration_windows.h"

#include <cstdio>
#include <functional>
#include <stdexcept>

#include "tsserve/csv/csv_window.h"
#include "tsserve/csv/row_time.h"
#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::tools {

DatasetSplit parse_split(const std::string& text) {
  DatasetSplit split;
  long long a = 0, b = 0, c = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%lld/%lld/%lld%n", &a, &b, &c, &used) != 3 ||
      static_cast<size_t>(used) != text.size() || a <= 0 || b <= 0 || c <= 0) {
    throw std::invalid_argument("--split must be TRAIN/VALIDATION/TEST row counts, e.g. "
                                "8640/2880/2880 (ETTh1), got \"" + text + "\"");
  }
  split.train = a;
  split.validation = b;
  split.test = c;
  split.text = text;
  return split;
}

std::pair<int64_t, int64_t> split_rows(const DatasetSplit& split, SplitPart part,
                                       int64_t seq_len) {
  const int64_t begin = part == SplitPart::kValidation ? split.train
                                                        : split.train + split.validation;
  const int64_t size = part == SplitPart::kValidation ? split.validation : split.test;
  return {begin - seq_len, begin + size};
}

ScaledDataset read_scaled_dataset(const std::string& path, const model::ModelConfig& config) {
  if (!config.scaler) {
    throw std::invalid_argument("the model config has no 'scaler': calibration is per scaler "
                                "column, in its space");
  }
  const auto table = csv::read_csv_window(path, {config.scaler->columns, 0});
  const auto rows = static_cast<int64_t>(table.values.front().size());
  const auto columns = static_cast<int64_t>(table.columns.size());
  ScaledDataset data;
  data.values = at::empty({rows, columns}, at::kFloat);
  auto values = data.values.accessor<float, 2>();
  for (int64_t c = 0; c < columns; ++c) {
    const auto k = static_cast<size_t>(c);
    const model::ScalerColumn scaler{config.scaler->mean[k], config.scaler->std[k]};
    for (int64_t r = 0; r < rows; ++r) {
      values[r][c] = scaler.scale(table.values[k][static_cast<size_t>(r)]);
    }
  }
  const model::ModelFamilyRules* rules = model::find_model_family(config.family);
  if (rules != nullptr && rules->reads_timestamps != nullptr && rules->reads_timestamps(config)) {
    auto times = csv::parse_row_times(table.row_labels);
    if (!times) {
      throw std::invalid_argument(path + ": the '" + table.label_column +
                                  "' column must hold increasing dates (a " + config.family +
                                  " forecast reads its windows' dates)");
    }
    data.times = std::move(*times);
  }
  return data;
}

namespace {

constexpr int64_t kBatch = 64;  // windows per model call

// Forecasts of windows [first, first + count): [count, pred_len, C], scaled, by the
// family's own window forecast (family_loading.h), chosen once: window_forecaster.
using WindowForecaster = std::function<at::Tensor(int64_t first, int64_t count)>;

// The windows' series [count, C, T].
at::Tensor window_series(const ScaledDataset& data, int64_t T, int64_t first, int64_t count) {
  std::vector<at::Tensor> inputs;
  for (int64_t w = first; w < first + count; ++w) {
    inputs.push_back(data.values.slice(0, w, w + T).t());  // [C, T]
  }
  return at::stack(inputs).contiguous();
}

// The family's own window forecast (family_loading.h), fed each window's dates when the
// dataset has them.
WindowForecaster window_forecaster(const std::string& checkpoint, const model::ModelConfig& config,
                                   const ScaledDataset& data) {
  const model::WindowForecast forecast =
      model::family_loading(config.family).open_windows(checkpoint, config);
  const int64_t T = config.seq_len;
  const int64_t steps = T + config.pred_len;
  return [forecast, &data, T, steps](int64_t first, int64_t count) {
    std::vector<std::vector<int64_t>> timestamps;
    if (!data.times.empty()) {
      for (int64_t w = first; w < first + count; ++w) {
        const auto begin = data.times.begin() + w;
        timestamps.emplace_back(begin, begin + steps);
      }
    }
    return forecast(window_series(data, T, first, count), timestamps);
  };
}

}  // namespace

at::Tensor absolute_residuals(const std::string& checkpoint, const model::ModelConfig& config,
                              const ScaledDataset& data, std::pair<int64_t, int64_t> rows) {
  const int64_t T = config.seq_len, F = config.pred_len;
  const int64_t windows = rows.second - rows.first - T - F + 1;
  if (rows.first < 0 || rows.second > data.values.size(0) || windows < 1) {
    throw std::invalid_argument("the split's rows [" + std::to_string(rows.first) + ", " +
                                std::to_string(rows.second) + ") do not fit the dataset's " +
                                std::to_string(data.values.size(0)) + " rows with seq_len " +
                                std::to_string(T) + " and pred_len " + std::to_string(F));
  }
  WindowForecaster forecast_windows = window_forecaster(checkpoint, config, data);
  at::InferenceMode inference;
  // The forecast's columns: every one, or the target alone ("MS": the last column).
  const int64_t columns = data.values.size(1);
  const int64_t forecast_columns = config.calibrated_columns();
  at::Tensor residuals = at::empty({windows, F, forecast_columns}, at::kFloat);
  for (int64_t done = 0; done < windows; done += kBatch) {
    const int64_t count = std::min(kBatch, windows - done);
    const int64_t first = rows.first + done;
    const at::Tensor forecast = forecast_windows(first, count);
    std::vector<at::Tensor> actual;
    for (int64_t w = first; w < first + count; ++w) {
      actual.push_back(data.values.slice(0, w + T, w + T + F)
                           .slice(1, columns - forecast_columns, columns));  // [F, K]
    }
    residuals.slice(0, done, done + count).copy_((forecast - at::stack(actual)).abs());
  }
  return residuals;
}

}  // namespace tsserve::tools
