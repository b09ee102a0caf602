#include "server/codec/common/input_magnitude.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tsserve/model/normalisation_limit.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server {
namespace {

// Whether one of `count` finite floats has a magnitude above `limit`. Finite floats order
// as their sign-cleared bits do as integers, so this is one branch-free integer pass that
// GCC's -O2 vectoriser takes (a float max reduction it would not, NaN rules in the way).
bool any_beyond(const float* values, int64_t count, float limit) {
  uint32_t limit_bits;
  std::memcpy(&limit_bits, &limit, sizeof limit_bits);
  uint32_t beyond = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    beyond |= static_cast<uint32_t>((bits & 0x7fffffffu) > limit_bits);
  }
  return beyond != 0;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// "variable \"OT\"" when the request names its variables, else "variable 6".
std::string variable_label(NameList names, int64_t variable) {
  if (names.empty()) return "variable " + std::to_string(variable);
  return "variable \"" + names[variable] + "\"";
}

}  // namespace

Status check_input_magnitude(const TensorView& series, const SeriesGeometry& g,
                             const SeriesNames& names, NameList variable_names,
                             const ModelShape& model, const ScalerMatch& scaler,
                             const float* rows) {
  const float limit = model::largest_normalisable_magnitude(g.used);
  if (!any_beyond(rows, g.rows() * g.used, limit)) return Status();

  // The cold path: the first such value in the order of the series as sent.
  for (int64_t i = 0; i < series.size(); ++i) {
    if (g.point_of(i) < g.skipped()) continue;  // never reaches the model
    const int64_t variable = g.row_of(i) % g.variables;
    const float sent = series.at(i);
    float seen = sent;
    model::ScalerColumn column;
    std::size_t c = 0;
    if (scaler.applied) {
      c = static_cast<std::size_t>(scaler.column[static_cast<std::size_t>(variable)]);
      column = {model.scaler_mean[c], model.scaler_std[c]};
      seen = column.scale(sent);  // as gather_series computed the row
    }
    if (!(std::fabs(seen) > limit)) continue;
    std::string message = std::string(names.spec.field) + ": value at " + format_index(series, i) +
                          " (" + variable_label(variable_names, variable) + ") is " + number(sent);
    if (scaler.applied) {
      message += ", " + number(seen) + " once scaled by scaler column \"" +
                 model.scaler_columns[c] + "\" (mean " + number(column.mean) + ", std " +
                 number(column.std) + ")";
    }
    message += "; the model (seq_len " + std::to_string(g.used) + ") takes magnitudes up to " +
               number(limit);
    if (scaler.applied) {
      const double reach = static_cast<double>(limit) * column.std;
      message += " once scaled, values from " + number(column.mean - reach) + " to " +
                 number(column.mean + reach) + " in the data's units";
    }
    message +=
        ": beyond that its instance normalisation overflows float32. Send the series in "
        "smaller numbers (larger units)";
    // Unscaled it would pass (the scaler's std is below 1): say so.
    if (scaler.applied && !(std::fabs(sent) > limit)) {
      message += std::string(", or ") + names.scaler_off;
    }
    return invalid_argument(message);
  }
  return {StatusCode::kInternal, std::string(names.spec.field) +
                                     ": a value failed the magnitude check but none was found"};
}

}  // namespace tsserve::server
