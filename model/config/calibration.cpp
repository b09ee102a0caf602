#include "tsserve/model/calibration.h"

#include <cmath>
#include <sstream>

namespace tsserve::model {

int Calibration::level_index(double level) const {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

std::string Calibration::levels_text() const {
  std::ostringstream out;
  for (size_t i = 0; i < levels.size(); ++i) out << (i ? ", " : "") << levels[i];
  return out.str();
}

int64_t conformal_rank(int64_t n, double level) {
  // (n + 1) * level in long double, then ceil: 2786 * 0.9 must give 2508, not 2508.0000001
  // rounded up to 2509. The tolerance is far below 1 / (n + 1) for any n we meet.
  const long double exact = static_cast<long double>(n + 1) * static_cast<long double>(level);
  const long double nearest = std::round(exact);
  if (std::fabs(exact - nearest) < 1e-9L) return static_cast<int64_t>(nearest);
  return static_cast<int64_t>(std::ceil(exact));
}

std::string conformal_rank_error(int64_t n, double level) {
  if (!(level > 0 && level < 1)) {
    return "level " + std::to_string(level) + " must lie in (0, 1)";
  }
  const int64_t rank = conformal_rank(n, level);
  if (rank <= n) return "";
  std::ostringstream out;
  out << "level " << level << " needs the " << rank << "-th smallest of " << n
      << " residuals (ceil((n + 1) * level)); use more windows or a smaller level";
  return out.str();
}

std::string calibration_error(const Calibration& c, int64_t pred_len, int64_t columns) {
  if (c.levels.empty()) return "'calibration.levels' must hold at least one level";
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const double a = c.levels[i];
    if (!(a > 0 && a < 1)) {
      return "'calibration.levels' must lie in (0, 1), got " + std::to_string(a);
    }
    if (i > 0 && !(a > c.levels[i - 1])) {
      return "'calibration.levels' must be strictly increasing, got " + c.levels_text();
    }
  }
  if (c.pred_len != pred_len || c.columns != columns) {
    return "'calibration.quantiles' must be [levels][pred_len][columns] = [" +
           std::to_string(c.levels.size()) + "][" + std::to_string(pred_len) + "][" +
           std::to_string(columns) + "], got [.][" + std::to_string(c.pred_len) + "][" +
           std::to_string(c.columns) + "]";
  }
  if (c.quantiles.size() != c.levels.size() * static_cast<size_t>(pred_len * columns)) {
    return "'calibration.quantiles' must hold levels * pred_len * columns values";
  }
  for (size_t l = 0; l < c.levels.size(); ++l) {
    for (int64_t h = 0; h < pred_len; ++h) {
      for (int64_t v = 0; v < columns; ++v) {
        const double q = c.quantile(l, h, v);
        std::ostringstream where;
        where << "'calibration.quantiles'[" << l << "][" << h << "][" << v << "]";
        if (!std::isfinite(q) || q < 0) {
          return where.str() + " must be finite and >= 0, got " + std::to_string(q);
        }
        if (l > 0 && q < c.quantile(l - 1, h, v)) {
          return where.str() + " (level " + std::to_string(c.levels[l]) +
                 ") is smaller than the previous level's: quantiles must not decrease as the "
                 "level grows";
        }
      }
    }
  }
  if (c.windows < 0 || c.row_begin < 0 || c.row_end < c.row_begin) {
    return "'calibration.windows' and 'calibration.rows' must be non-negative, rows [begin, end)";
  }
  return "";
}

}  // namespace tsserve::model
