#include "server/codec/common/itransformer_request.h"

#include <vector>

#include "tsserve/model/time_features.h"

namespace tsserve::server {
namespace {

std::string feature_list(const ModelShape& model) {
  std::string list;
  for (model::TimeFeature feature : model.calendar) {
    list += (list.empty() ? "" : ", ") + model::time_feature_name(feature);
  }
  return list;
}

}  // namespace

Status check_itransformer_variables(const SeriesGeometry& g, const SeriesNames& names,
                                    const ModelShape& model) {
  if (model.any_variable_count || g.variables == model.enc_in) return Status();
  return invalid_argument(
      std::string(names.spec.field) + ": " + std::to_string(g.variables) + " variables (N in " +
      names.spec.dims + ", " + names.layout +
      "); this iTransformer takes exactly enc_in = " + std::to_string(model.enc_in) +
      " (the variables it was trained on, in training order; GetModelInfo enc_in)");
}

Status check_timestamps(const int64_t* timestamps, int64_t count, const SeriesGeometry& g,
                        const std::string& field) {
  if (count == 0) return Status();
  if (count != g.samples * g.points) {
    const std::string per =
        g.samples == 1 ? std::string() : std::to_string(g.samples) + " samples x ";
    return invalid_argument(
        field + ": " + std::to_string(count) + " entries for " + per + std::to_string(g.points) +
        " input points; give one per point (T_in = " + std::to_string(g.points) +
        ", all of them, before the cut to the last " + std::to_string(g.used) + ") or none");
  }
  for (int64_t i = 1; i < count; ++i) {
    if (i % g.points == 0) continue;  // a new sample starts its own sequence
    if (timestamps[i] <= timestamps[i - 1]) {
      return invalid_argument(field + ": entry " + std::to_string(i) + " (" +
                              std::to_string(timestamps[i]) + ") is not after entry " +
                              std::to_string(i - 1) + " (" + std::to_string(timestamps[i - 1]) +
                              "); timestamps must be strictly increasing");
    }
  }
  return Status();
}

Status gather_calendar(const int64_t* timestamps, int64_t count, const SeriesGeometry& g,
                       const ModelShape& model, const std::string& field, ForecastInput* out) {
  out->calendar.clear();
  if (model.calendar.empty()) return Status();
  if (count == 0) {
    return invalid_argument(
        field + ": required by this iTransformer, whose calendar tokens (" + feature_list(model) +
        ") come from the time of each input point; give " + std::to_string(g.points) +
        " Unix seconds (UTC) per sample, oldest first");
  }
  const auto used = static_cast<std::size_t>(g.used);
  out->calendar.reserve(static_cast<std::size_t>(g.samples) * model.calendar.size() * used);
  for (int64_t b = 0; b < g.samples; ++b) {
    const int64_t* last = timestamps + (b + 1) * g.points;
    const std::vector<int64_t> window(last - g.used, last);
    const std::vector<float> rows = model::time_feature_rows(model.calendar, window, used);
    out->calendar.insert(out->calendar.end(), rows.begin(), rows.end());
  }
  return Status();
}

Status resolve_itransformer_attention(
    const AttentionRequest& options, const SeriesGeometry& g, const ModelShape& model,
    const google::protobuf::RepeatedPtrField<std::string>& variable_names, ForecastInput* out,
    const AttentionFields& fields) {
  out->attention_token_names.clear();
  if (options.enabled && !options.variables.empty()) {
    return invalid_argument(
        std::string(fields.variables) +
        ": must be empty for an iTransformer: its tokens are the variables, so each "
        "layer has one map over all of them; got " +
        std::to_string(options.variables.size()) + " indices");
  }
  Status status = resolve_forecast_attention(options, model.e_layers, 1, &out->attention, fields);
  if (!status.ok() || !out->attention.enabled) return status;
  out->attention.variables.clear();
  for (int64_t b = 0; b < g.samples; ++b)
    out->attention.variables.push_back(static_cast<int32_t>(b));
  for (int64_t n = 0; n < g.variables; ++n) {
    out->attention_token_names.push_back(
        variable_names.empty() ? std::to_string(n) : variable_names.Get(static_cast<int>(n)));
  }
  for (model::TimeFeature feature : model.calendar) {
    out->attention_token_names.push_back(model::time_feature_name(feature));
  }
  return Status();
}

}  // namespace tsserve::server
