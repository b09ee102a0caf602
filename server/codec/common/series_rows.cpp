#include "server/codec/common/series_rows.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/codec/common/input_magnitude.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server {
namespace {

using model::ScalerColumn;

// The scaler applied to the float with these bits. Flags `bad` when the input is not
// finite or the result overflows float.
inline float scale_checked(uint32_t bits, const ScalerColumn& scaler, uint32_t* bad) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  const float y = scaler.scale(x);
  uint32_t y_bits;
  std::memcpy(&y_bits, &y, sizeof y_bits);
  *bad |=
      static_cast<uint32_t>(non_finite_bits(bits)) | static_cast<uint32_t>(non_finite_bits(y_bits));
  return y;
}

// One variable's contiguous points, scaled; false when one is not finite before or after
// scaling. Fixed blocks let GCC's -O2 vectoriser take the loop (as copy_finite does).
bool scale_finite(const unsigned char* src, int64_t count, const ScalerColumn& scaler, float* dst) {
  constexpr int64_t kBlock = 8;
  uint32_t bad = 0;
  int64_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    uint32_t block[kBlock];
    std::memcpy(block, src + 4 * i, sizeof block);
    for (int64_t j = 0; j < kBlock; ++j) dst[i + j] = scale_checked(block[j], scaler, &bad);
  }
  for (; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, sizeof bits);
    dst[i] = scale_checked(bits, scaler, &bad);
  }
  return bad == 0;
}

// One sample [N, T_in]: the last T points of input row n are contiguous and become row n.
// Every input is checked, the skipped ones too (the Tensor rule covers the whole tensor).
// False when some value is not finite (before or after scaling).
template <bool kScaled>
bool gather_by_variable(const unsigned char* data, const SeriesGeometry& g,
                        const ScalerColumn* scaler, float* rows) {
  for (int64_t v = 0; v < g.variables; ++v) {
    const unsigned char* row = data + 4 * v * g.points;
    const unsigned char* used = row + 4 * g.skipped();
    float* dst = rows + v * g.used;
    if (!all_finite(row, g.skipped())) return false;
    if constexpr (kScaled) {
      if (!scale_finite(used, g.used, scaler[v], dst)) return false;
    } else {
      if (!copy_finite(used, g.used, dst)) return false;
    }
  }
  return true;
}

// One sample [T_in, N]: input row s is time step s of every variable; transposed into
// [N, T].
template <bool kScaled>
bool gather_by_time(const unsigned char* data, const SeriesGeometry& g, const ScalerColumn* scaler,
                    float* rows) {
  if (!all_finite(data, g.skipped() * g.variables)) return false;
  uint32_t bad = 0;
  for (int64_t t = 0; t < g.used; ++t) {
    const unsigned char* step = data + 4 * (g.skipped() + t) * g.variables;
    for (int64_t v = 0; v < g.variables; ++v) {
      uint32_t bits;
      std::memcpy(&bits, step + 4 * v, sizeof bits);
      if constexpr (kScaled) {
        rows[v * g.used + t] = scale_checked(bits, scaler[v], &bad);
      } else {
        bad |= static_cast<uint32_t>(non_finite_bits(bits));
        std::memcpy(rows + v * g.used + t, &bits, sizeof bits);
      }
    }
  }
  return bad == 0;
}

// Every sample in turn: each is a block of N * T_in values and becomes N rows.
template <bool kScaled>
bool gather_samples(const unsigned char* data, const SeriesGeometry& g, const ScalerColumn* scaler,
                    float* rows) {
  const int64_t block = g.variables * g.points;
  for (int64_t b = 0; b < g.samples; ++b) {
    const unsigned char* src = data + 4 * b * block;
    float* dst = rows + b * g.variables * g.used;
    const bool finite = g.by_variable ? gather_by_variable<kScaled>(src, g, scaler, dst)
                                      : gather_by_time<kScaled>(src, g, scaler, dst);
    if (!finite) return false;
  }
  return true;
}

std::string variable_note(NameList names, const SeriesGeometry& g, int64_t row) {
  if (names.empty()) return {};
  return " (variable \"" + names[row % g.variables] + "\")";
}

// The cold path after a gather failed: finds the first offending value in row-major order
// of the series as sent and says what is wrong with it.
Status series_value_error(const TensorView& series, const SeriesGeometry& g,
                          const SeriesNames& names, NameList variable_names,
                          const ModelShape& model, const ScalerMatch& scaler) {
  const int64_t bad = find_non_finite(series.bytes(), series.size());
  if (bad < series.size()) {
    return non_finite_error(names.spec, series, bad,
                            variable_note(variable_names, g, g.row_of(bad)));
  }
  // Every input is finite, so scaling pushed one out of float range.
  for (int64_t i = 0; scaler.applied && i < series.size(); ++i) {
    if (g.point_of(i) < g.skipped()) continue;
    const int64_t row = g.row_of(i);
    const auto c =
        static_cast<std::size_t>(scaler.column[static_cast<std::size_t>(row % g.variables)]);
    uint32_t bits;
    std::memcpy(&bits, series.bytes() + 4 * i, sizeof bits);
    uint32_t overflow = 0;
    scale_checked(bits, {model.scaler_mean[c], model.scaler_std[c]}, &overflow);
    if (overflow == 0) continue;
    char value[32];
    char stats[80];
    std::snprintf(value, sizeof value, " is %g", static_cast<double>(series.at(i)));
    std::snprintf(stats, sizeof stats, "\" (mean %g, std %g)", model.scaler_mean[c],
                  model.scaler_std[c]);
    return invalid_argument(std::string(names.spec.field) + ": value at " +
                            format_index(series, i) + variable_note(variable_names, g, row) +
                            value + ", beyond float range once scaled by scaler column \"" +
                            model.scaler_columns[c] + stats +
                            "; send values in the data's units, or " + names.scaler_off);
  }
  return {StatusCode::kInternal, std::string(names.spec.field) +
                                     ": a value failed the finiteness check but none was found"};
}

}  // namespace

Status check_series_geometry(const SeriesGeometry& g, const SeriesNames& names,
                             const RequestLimits& limits) {
  const std::string field = names.spec.field;
  if (g.samples == 0) {
    return invalid_argument(field + ": no samples (B = 0 in " + names.spec.dims +
                            "); send at least one");
  }
  if (g.variables == 0) {
    return invalid_argument(field + ": no variables (N = 0 in " + names.spec.dims + ", " +
                            names.layout + "); send at least one");
  }
  // B * N overflows for hostile shapes whose data is empty (T_in = 0, so any B and N fit
  // in no bytes); found by tests/fuzz.
  int64_t rows = 0;
  const bool overflow = __builtin_mul_overflow(g.samples, g.variables, &rows);
  if (overflow || rows > limits.max_series_rows) {
    const std::string count =
        g.samples == 1 ? std::to_string(g.variables) + " variables"
                       : std::to_string(g.samples) + " samples x " + std::to_string(g.variables) +
                             " variables = " +
                             (overflow ? std::string("more than 2^63") : std::to_string(rows)) +
                             " series rows";
    return invalid_argument(field + ": " + count + "; a request carries at most " +
                            std::to_string(limits.max_series_rows) +
                            " (max_batch_rows in GetModelInfo)");
  }
  if (g.points < g.used) {
    return invalid_argument(field + ": each variable has " + std::to_string(g.points) +
                            " points; the model needs at least " + std::to_string(g.used) +
                            " (seq_len; " + names.layout + ", " + names.spec.dims + ")");
  }
  return Status();
}

Status check_variable_names(NameList names, int64_t variables, const char* field) {
  if (names.empty()) return Status();
  if (names.size() != variables) {
    return invalid_argument(std::string(field) + ": " + std::to_string(names.size()) +
                            " names for " + std::to_string(variables) +
                            " variables; give one per variable (N = " + std::to_string(variables) +
                            ") or none");
  }
  std::unordered_map<std::string_view, int> first;
  first.reserve(static_cast<std::size_t>(names.size()));
  for (int n = 0; n < names.size(); ++n) {
    const auto [it, inserted] = first.emplace(names[n], n);
    if (!inserted) {
      return invalid_argument(std::string(field) + ": \"" + names[n] +
                              "\" is repeated (variables " + std::to_string(it->second) + " and " +
                              std::to_string(n) + "); names must be unique");
    }
  }
  return Status();
}

Status gather_series(const TensorView& series, const SeriesGeometry& g, const SeriesNames& names,
                     NameList variable_names, const ModelShape& model, ScalerMatch scaler,
                     ForecastInput* out) {
  out->rows.resize(static_cast<std::size_t>(g.rows() * g.used));
  bool finite;
  if (scaler.applied) {
    std::vector<ScalerColumn> columns(static_cast<std::size_t>(g.variables));
    for (std::size_t v = 0; v < columns.size(); ++v) {
      const auto c = static_cast<std::size_t>(scaler.column[v]);
      columns[v] = {model.scaler_mean[c], model.scaler_std[c]};
    }
    finite = gather_samples<true>(series.bytes(), g, columns.data(), out->rows.data());
  } else {
    finite = gather_samples<false>(series.bytes(), g, nullptr, out->rows.data());
  }
  if (!finite) return series_value_error(series, g, names, variable_names, model, scaler);
  TSSERVE_RETURN_IF_ERROR(
      check_input_magnitude(series, g, names, variable_names, model, scaler, out->rows.data()));

  out->series_rows = g.rows();
  out->samples = g.samples;
  out->input_points_used = static_cast<int32_t>(g.used);
  out->forecast_variables = std::min(model.forecast_variables, g.variables);
  out->scaler_applied = scaler.applied;
  out->scaler_column.clear();
  if (scaler.applied) {
    out->scaler_column.reserve(static_cast<std::size_t>(g.rows()));
    for (int64_t b = 0; b < g.samples; ++b) {
      out->scaler_column.insert(out->scaler_column.end(), scaler.column.begin(),
                                scaler.column.end());
    }
  }
  out->variables_by_time = g.by_variable;
  out->variable_names.clear();
  out->variable_names.reserve(static_cast<std::size_t>(variable_names.size()));
  for (int64_t n = 0; n < variable_names.size(); ++n) {
    out->variable_names.push_back(variable_names[n]);
  }
  return Status();
}

}  // namespace tsserve::server
