#include "tsserve/server/forecast_request_decoder.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tsserve/server/request_id.h"
#include "tsserve/server/scaler_matching.h"
#include "tsserve/server/tensor_codec.h"

namespace tsserve::server {
namespace {

grpc::Status invalid(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

// Where the series' numbers sit: [N, T_in] (by variable) or [T_in, N] (by time).
struct SeriesGeometry {
  bool by_variable;
  int64_t variables;  // N
  int64_t points;     // T_in
  int64_t used;       // T, the last `used` points of each variable reach the model

  int64_t skipped() const { return points - used; }
  int64_t variable_of(int64_t flat) const { return by_variable ? flat / points : flat % variables; }
  int64_t point_of(int64_t flat) const { return by_variable ? flat % points : flat / variables; }
};

grpc::Status check_variable_names(const google::protobuf::RepeatedPtrField<std::string>& names,
                                  int64_t variables) {
  if (names.empty()) return grpc::Status::OK;
  if (names.size() != variables) {
    return invalid("variable_names: " + std::to_string(names.size()) + " names for " +
                   std::to_string(variables) + " variables; give one per variable (N = " +
                   std::to_string(variables) + ") or none");
  }
  std::unordered_map<std::string_view, int> first;
  first.reserve(static_cast<std::size_t>(names.size()));
  for (int n = 0; n < names.size(); ++n) {
    const auto [it, inserted] = first.emplace(names.Get(n), n);
    if (!inserted) {
      return invalid("variable_names: \"" + names.Get(n) + "\" is repeated (variables " +
                     std::to_string(it->second) + " and " + std::to_string(n) +
                     "); names must be unique");
    }
  }
  return grpc::Status::OK;
}

grpc::Status check_timestamps(const google::protobuf::RepeatedField<int64_t>& timestamps,
                              const SeriesGeometry& g) {
  if (timestamps.empty()) return grpc::Status::OK;
  if (timestamps.size() != g.points) {
    return invalid("timestamps: " + std::to_string(timestamps.size()) + " entries for " +
                   std::to_string(g.points) + " input points; give one per point (T_in = " +
                   std::to_string(g.points) + ", all of them, before the cut to the last " +
                   std::to_string(g.used) + ") or none");
  }
  for (int i = 1; i < timestamps.size(); ++i) {
    if (timestamps.Get(i) <= timestamps.Get(i - 1)) {
      return invalid("timestamps: entry " + std::to_string(i) + " (" +
                     std::to_string(timestamps.Get(i)) + ") is not after entry " +
                     std::to_string(i - 1) + " (" + std::to_string(timestamps.Get(i - 1)) +
                     "); timestamps must be strictly increasing");
    }
  }
  return grpc::Status::OK;
}

// The scaler, x' = (x - mean) / std in double as the training pipeline computed it, then
// float. Flags `bad` when the input is not finite or the result overflows float.
inline float scale_checked(uint32_t bits, double mean, double stdev, uint32_t* bad) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  const float y = static_cast<float>((static_cast<double>(x) - mean) / stdev);
  uint32_t y_bits;
  std::memcpy(&y_bits, &y, sizeof y_bits);
  *bad |=
      static_cast<uint32_t>(non_finite_bits(bits)) | static_cast<uint32_t>(non_finite_bits(y_bits));
  return y;
}

// One variable's contiguous points, scaled; false when one is not finite before or after
// scaling. Fixed blocks let GCC's -O2 vectoriser take the loop (as copy_finite does).
bool scale_finite(const unsigned char* src, int64_t count, double mean, double stdev, float* dst) {
  constexpr int64_t kBlock = 8;
  uint32_t bad = 0;
  int64_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    uint32_t block[kBlock];
    std::memcpy(block, src + 4 * i, sizeof block);
    for (int64_t j = 0; j < kBlock; ++j) dst[i + j] = scale_checked(block[j], mean, stdev, &bad);
  }
  for (; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, sizeof bits);
    dst[i] = scale_checked(bits, mean, stdev, &bad);
  }
  return bad == 0;
}

// [N, T_in]: the last T points of input row n are contiguous and become row n. Every input
// is checked, the skipped ones too (the Tensor rule covers the whole tensor). False when
// some value is not finite (before or after scaling).
template <bool kScaled>
bool gather_by_variable(const unsigned char* data, const SeriesGeometry& g, const double* mean,
                        const double* stdev, float* rows) {
  for (int64_t v = 0; v < g.variables; ++v) {
    const unsigned char* row = data + 4 * v * g.points;
    const unsigned char* used = row + 4 * g.skipped();
    float* dst = rows + v * g.used;
    if (!all_finite(row, g.skipped())) return false;
    if constexpr (kScaled) {
      if (!scale_finite(used, g.used, mean[v], stdev[v], dst)) return false;
    } else {
      if (!copy_finite(used, g.used, dst)) return false;
    }
  }
  return true;
}

// [T_in, N]: input row s is time step s of every variable; transposed into [N, T].
template <bool kScaled>
bool gather_by_time(const unsigned char* data, const SeriesGeometry& g, const double* mean,
                    const double* stdev, float* rows) {
  if (!all_finite(data, g.skipped() * g.variables)) return false;
  uint32_t bad = 0;
  for (int64_t t = 0; t < g.used; ++t) {
    const unsigned char* step = data + 4 * (g.skipped() + t) * g.variables;
    for (int64_t v = 0; v < g.variables; ++v) {
      uint32_t bits;
      std::memcpy(&bits, step + 4 * v, sizeof bits);
      if constexpr (kScaled) {
        rows[v * g.used + t] = scale_checked(bits, mean[v], stdev[v], &bad);
      } else {
        bad |= static_cast<uint32_t>(non_finite_bits(bits));
        std::memcpy(rows + v * g.used + t, &bits, sizeof bits);
      }
    }
  }
  return bad == 0;
}

std::string variable_note(const google::protobuf::RepeatedPtrField<std::string>& names,
                          int64_t variable) {
  if (names.empty()) return {};
  return " (variable \"" + names.Get(static_cast<int>(variable)) + "\")";
}

// The cold path after a gather failed: finds the first offending value in row-major order
// of the series as sent and says what is wrong with it.
grpc::Status series_value_error(const TensorSpec& spec, const TensorView& series,
                                const SeriesGeometry& g, const v1::ForecastRequest& request,
                                const ModelShape& model, const ScalerMatch& scaler) {
  const int64_t bad = find_non_finite(series.bytes(), series.size());
  if (bad < series.size()) {
    return non_finite_error(spec, series, bad,
                            variable_note(request.variable_names(), g.variable_of(bad)));
  }
  // Every input is finite, so scaling pushed one out of float range.
  for (int64_t i = 0; scaler.applied && i < series.size(); ++i) {
    if (g.point_of(i) < g.skipped()) continue;
    const int64_t v = g.variable_of(i);
    const auto c = static_cast<std::size_t>(scaler.column[static_cast<std::size_t>(v)]);
    uint32_t bits;
    std::memcpy(&bits, series.bytes() + 4 * i, sizeof bits);
    uint32_t overflow = 0;
    scale_checked(bits, model.scaler_mean[c], model.scaler_std[c], &overflow);
    if (overflow == 0) continue;
    char value[32];
    char stats[80];
    std::snprintf(value, sizeof value, " is %g", static_cast<double>(series.at(i)));
    std::snprintf(stats, sizeof stats, "\" (mean %g, std %g)", model.scaler_mean[c],
                  model.scaler_std[c]);
    return invalid(
        "series: value at " + format_index(series, i) + variable_note(request.variable_names(), v) +
        value + ", beyond float range once scaled by scaler column \"" + model.scaler_columns[c] +
        stats + "; send values in the data's units, or SCALER_MODE_NONE");
  }
  return {grpc::StatusCode::INTERNAL,
          "series: a value failed the finiteness check but none was found"};
}

}  // namespace

grpc::Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                                     const RequestLimits& limits, ForecastInput* out) {
  grpc::Status status = resolve_request_id(request.request_id(), &out->request_id);
  if (!status.ok()) return status;
  if (!v1::SeriesLayout_IsValid(request.layout())) {
    return invalid("layout: unknown value " + std::to_string(request.layout()) +
                   "; expected SERIES_LAYOUT_VARIABLES_BY_TIME (1) or "
                   "SERIES_LAYOUT_TIME_BY_VARIABLES (2)");
  }
  status = resolve_output_encoding(request.output_encoding(), &out->raw_output);
  if (!status.ok()) return status;

  const bool by_variable = request.layout() != v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  const TensorSpec spec{"series", 2, by_variable ? "[N, T_in]" : "[T_in, N]"};
  TensorView series;
  status = view_tensor(request.series(), spec, &series);
  if (!status.ok()) return status;
  const SeriesGeometry g{by_variable, series.dim(by_variable ? 0 : 1),
                         series.dim(by_variable ? 1 : 0), model.seq_len};
  const char* layout_name = by_variable ? "VARIABLES_BY_TIME" : "TIME_BY_VARIABLES";
  if (g.variables == 0) {
    return invalid(std::string("series: no variables (N = 0 in ") + spec.dims + ", layout " +
                   layout_name + "); send at least one");
  }
  if (g.variables > limits.max_variables) {
    return invalid("series: " + std::to_string(g.variables) +
                   " variables; a request carries at most " + std::to_string(limits.max_variables) +
                   " (max_batch_rows in GetModelInfo)");
  }
  if (g.points < g.used) {
    return invalid("series: each variable has " + std::to_string(g.points) +
                   " points; the model needs at least " + std::to_string(g.used) +
                   " (seq_len; layout " + layout_name + ", " + spec.dims + ")");
  }
  status = check_variable_names(request.variable_names(), g.variables);
  if (!status.ok()) return status;
  status = check_timestamps(request.timestamps(), g);
  if (!status.ok()) return status;
  ScalerMatch scaler;
  status =
      match_scaler(request.scaler_mode(), request.variable_names(), g.variables, model, &scaler);
  if (!status.ok()) return status;
  status =
      resolve_forecast_attention(request.attention(), model.e_layers, g.variables, &out->attention);
  if (!status.ok()) return status;

  out->rows.resize(static_cast<std::size_t>(g.variables * g.used));
  bool finite;
  if (scaler.applied) {
    std::vector<double> mean(static_cast<std::size_t>(g.variables));
    std::vector<double> stdev(static_cast<std::size_t>(g.variables));
    for (std::size_t v = 0; v < mean.size(); ++v) {
      mean[v] = model.scaler_mean[static_cast<std::size_t>(scaler.column[v])];
      stdev[v] = model.scaler_std[static_cast<std::size_t>(scaler.column[v])];
    }
    finite = by_variable ? gather_by_variable<true>(series.bytes(), g, mean.data(), stdev.data(),
                                                    out->rows.data())
                         : gather_by_time<true>(series.bytes(), g, mean.data(), stdev.data(),
                                                out->rows.data());
  } else {
    finite = by_variable
                 ? gather_by_variable<false>(series.bytes(), g, nullptr, nullptr, out->rows.data())
                 : gather_by_time<false>(series.bytes(), g, nullptr, nullptr, out->rows.data());
  }
  if (!finite) return series_value_error(spec, series, g, request, model, scaler);

  out->variables = g.variables;
  out->input_points_used = static_cast<int32_t>(g.used);
  out->scaler_applied = scaler.applied;
  out->scaler_column = std::move(scaler.column);
  out->variables_by_time = by_variable;
  return grpc::Status::OK;
}

}  // namespace tsserve::server
