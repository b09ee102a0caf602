#pragma once
// A model's split-conformal calibration: the config's "calibration" block, written by
// tsserve-calibrate (model/tools/calibrate_main.cpp) and read by the server to turn a point
// forecast into prediction intervals.
//
// For each level a, horizon step h and scaler column c, quantile(a, h, c) is the
// ceil((n + 1) * a)-th smallest of the n absolute residuals |forecast - actual| of the
// calibration (validation) windows, in the scaler's (StandardScaler) space. The interval at
// level a is forecast +- quantile: under exchangeability of the calibration and future
// windows it holds the actual value with probability at least a (split conformal
// prediction, Vovk et al.; Lei et al. 2018), separately for every step and column.
//
// Plain C++ (no LibTorch, no JSON): the server's codecs read it through ModelShape.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::model {

struct Calibration {
  std::vector<double> levels;  // strictly increasing, each in (0, 1)
  int64_t pred_len = 0;        // F
  int64_t columns = 0;         // C: the scaler's columns, in its order
  // [levels][pred_len][columns] row-major, scaled space, each finite and >= 0.
  std::vector<double> quantiles;
  // Where they came from, reported as written: the dataset file, the split
  // ("8640/2880/2880"), the calibration rows [begin, end) and the windows (n).
  std::string dataset;
  std::string split;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  int64_t windows = 0;

  bool empty() const { return levels.empty(); }
  double quantile(size_t level, int64_t step, int64_t column) const {
    return quantiles[(level * static_cast<size_t>(pred_len) + static_cast<size_t>(step)) *
                         static_cast<size_t>(columns) +
                     static_cast<size_t>(column)];
  }
  // The index of `level` among `levels` (exact match), or -1.
  int level_index(double level) const;
  // "0.5, 0.8, 0.9" for messages.
  std::string levels_text() const;
};

// The rank split conformal prediction takes: ceil((n + 1) * level), 1-based. May exceed n
// (too few windows for that level); conformal_rank_error says so.
int64_t conformal_rank(int64_t n, double level);
// "" when level in (0, 1) and its rank is at most n, else a message naming both.
std::string conformal_rank_error(int64_t n, double level);

// "" when `c` is consistent (levels in (0, 1) strictly increasing, quantiles sized
// levels * pred_len * columns, finite, >= 0, not decreasing across levels in every cell:
// the rank grows with the level, so a larger level never has a smaller quantile), else
// the first problem, naming the key ("calibration.levels", "calibration.quantiles").
// Expected sizes: `pred_len` and `columns` of the model it belongs to.
std::string calibration_error(const Calibration& c, int64_t pred_len, int64_t columns);

// The shipped command that calibrates a model, for messages to whoever lacks one.
inline const char* calibrate_command() {
  return "tsserve-calibrate --model CHECKPOINT --data DATASET.csv --split 8640/2880/2880";
}

}  // namespace tsserve::model
