#include "server/codec/common/sample_request.h"

#include <vector>

#include "server/codec/common/forecast_timestamps.h"
#include "tsserve/model/time_features.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::server {
namespace {

std::string feature_list(const ModelShape& model) {
  std::string list;
  for (model::TimeFeature feature : model.calendar) {
    list += (list.empty() ? "" : ", ") + model::time_feature_name(feature);
  }
  return list;
}

// "an iTransformer", "a Transformer".
std::string with_article(const std::string& name) {
  const bool vowel = !name.empty() && std::string("aeiouAEIOU").find(name[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + name;
}

}  // namespace

Status check_sample_variables(const SeriesGeometry& g, const SeriesNames& names,
                              const ModelShape& model) {
  if (!model.fixes_variable_count() || g.variables == model.enc_in) return Status();
  return invalid_argument(
      std::string(names.spec.field) + ": " + std::to_string(g.variables) + " variables (N in " +
      names.spec.dims + ", " + names.layout + "); this " + model.family +
      " takes exactly enc_in = " + std::to_string(model.enc_in) +
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

namespace {

// kStepMarks: each sample's last T timestamps, then the F forecast steps continued from
// them, as TSLib's marks [T + F, C].
Status gather_step_marks(const int64_t* timestamps, const SeriesGeometry& g,
                         const ModelShape& model, const std::string& field, ForecastInput* out) {
  const auto used = static_cast<std::size_t>(g.used);
  for (int64_t b = 0; b < g.samples; ++b) {
    const int64_t* last = timestamps + (b + 1) * g.points;
    ForecastTimestamps future = continue_timestamps(last - g.points, g.points, model.pred_len);
    if (future.times.empty()) {
      return invalid_argument(field + ": this " + model.family +
                              " reads the time marks of its forecast's steps too, continued "
                              "from the input's; " +
                              future.note);
    }
    std::vector<int64_t> steps(last - static_cast<std::ptrdiff_t>(used), last);
    steps.insert(steps.end(), future.times.begin(), future.times.end());
    const std::vector<float> marks = model::time_marks(model.mark_embed, model.mark_freq, steps);
    out->calendar.insert(out->calendar.end(), marks.begin(), marks.end());
  }
  return Status();
}

std::string time_inputs_text(const ModelShape& model) {
  if (model.time_inputs == TimeInputs::kFeatureTokens) {
    return "whose calendar tokens (" + feature_list(model) +
           ") come from the time of each input point";
  }
  return "whose time marks (embed \"" + model.mark_embed + "\", freq \"" + model.mark_freq +
         "\") come from the time of each input point and of the forecast's points after them";
}

}  // namespace

Status gather_time_inputs(const int64_t* timestamps, int64_t count, const SeriesGeometry& g,
                          const ModelShape& model, const std::string& field, ForecastInput* out) {
  out->calendar.clear();
  if (model.time_inputs == TimeInputs::kNone) return Status();
  if (count == 0) {
    return invalid_argument(field + ": required by this " + model.family + ", " +
                            time_inputs_text(model) + "; give " + std::to_string(g.points) +
                            " Unix seconds (UTC) per sample, oldest first");
  }
  if (model.time_inputs == TimeInputs::kStepMarks) {
    return gather_step_marks(timestamps, g, model, field, out);
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

Status check_decoder_maps(const AttentionRequest& options, const ModelShape& model,
                          const AttentionFields& fields) {
  if (!options.enabled || !options.decoder || model.d_layers > 0) return Status();
  return invalid_argument(std::string(fields.decoder) + ": this " + model.family +
                          " has no decoder (GetModelInfo d_layers 0); its maps are its "
                          "encoder's, which attention.layers selects");
}

Status resolve_sample_attention(const AttentionRequest& options, const SeriesGeometry& g,
                                const ModelShape& model, NameList variable_names,
                                ForecastInput* out, const AttentionFields& fields) {
  out->attention_token_names.clear();
  if (options.enabled && !options.variables.empty()) {
    return invalid_argument(
        std::string(fields.variables) + ": must be empty for " + with_article(model.family) +
        (model.covariate_maps
             ? ": each layer has the maps of its endogenous variables (the target's for "
               "features \"MS\"), each with its covariates' map"
         : model.map_sides.empty()
             ? ": its tokens are the variables, so each layer has one map over all of them"
             : ": its tokens are time steps of the whole sample, so each layer has one map per "
               "sample") +
        "; got " + std::to_string(options.variables.size()) + " indices");
  }
  Status status = resolve_forecast_attention(options, model.e_layers, 1, &out->attention, fields);
  if (!status.ok() || !out->attention.enabled) return status;
  TSSERVE_RETURN_IF_ERROR(check_decoder_maps(options, model, fields));
  out->attention.decoder = options.decoder;
  out->attention.variables.clear();
  for (int64_t b = 0; b < g.samples; ++b)
    out->attention.variables.push_back(static_cast<int32_t>(b));
  out->covariate_token_names.clear();
  if (model.covariate_maps) {
    for (int64_t n = 0; n < model.covariate_variables; ++n) {
      out->covariate_token_names.push_back(variable_names.empty() ? std::to_string(n)
                                                                  : variable_names[n]);
    }
    for (model::TimeFeature feature : model.calendar) {
      out->covariate_token_names.push_back(model::time_feature_name(feature));
    }
  }
  // The tokens are time steps or patches, in order (a TimeXer's: its patches, then its
  // global token).
  if (!model.map_sides.empty()) return Status();
  for (int64_t n = 0; n < g.variables; ++n) {
    out->attention_token_names.push_back(variable_names.empty() ? std::to_string(n)
                                                                : variable_names[n]);
  }
  for (model::TimeFeature feature : model.calendar) {
    out->attention_token_names.push_back(model::time_feature_name(feature));
  }
  return Status();
}

}  // namespace tsserve::server
