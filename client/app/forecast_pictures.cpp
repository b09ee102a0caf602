#include "forecast_pictures.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "attention_labels.h"
#include "tsserve/plot/bar_plot.h"
#include "tsserve/plot/forecast_plot.h"
#include "tsserve/plot/heatmap_plot.h"

namespace tsserve::client::cli {

void draw_forecast_plot(const std::string& path, const csv::CsvWindow& window,
                        const ForecastResult& result, int history_points) {
  std::vector<plot::ForecastPanel> panels;
  for (size_t v = 0; v < result.variables.size(); ++v) {
    const auto& history = window.values[result.variable_columns[v]];
    const size_t shown = history_points > 0
                             ? std::min(history.size(), static_cast<size_t>(history_points))
                             : history.size();
    plot::ForecastPanel panel{result.variables[v],
                              std::vector<double>(history.end() - static_cast<long>(shown), history.end()),
                              result.forecast[v]};
    for (const IntervalData& interval : result.intervals) {
      panel.bands.push_back({interval.level, interval.lower[v], interval.upper[v]});
    }
    panels.push_back(std::move(panel));
  }
  plot::ForecastPlotOptions options;
  options.title = result.model_name + " v" + result.model_version + ": " +
                  std::to_string(result.forecast.empty() ? 0 : result.forecast.front().size()) +
                  "-step forecast after " +
                  (window.row_labels.empty() ? std::string("the last row") : window.row_labels.back());
  if (!result.step_labels.empty()) {
    // The server's forecast times put dates on the steps.
    options.x_label = "steps relative to the forecast start (negative: history); step 1 = " +
                      result.step_labels.front() + ", step " +
                      std::to_string(result.step_labels.size()) + " = " + result.step_labels.back();
  }
  if (!result.intervals.empty()) {
    options.title += "; shaded:";
    for (const IntervalData& interval : result.intervals) {
      char percent[32];
      std::snprintf(percent, sizeof percent, " %g%%", interval.level * 100);
      options.title += percent;
    }
    options.title += " intervals";
  }
  plot::write_forecast_png(path, panels, options);
}

std::string covariates_picture_path(const std::string& path) {
  const std::string suffix = ".png";
  const bool png = path.size() >= suffix.size() &&
                   path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (png ? path.substr(0, path.size() - suffix.size()) : path) + "-covariates.png";
}

namespace {

// A TimeXer's "covariates" maps as bars, a panel per layer and endogenous variable: how
// much its global token attended to each covariate (the mean of the heads returned),
// most first.
void draw_covariate_bars(const std::string& path, const std::vector<AttentionPanelData>& maps,
                         const ForecastResult& result) {
  std::map<std::pair<int, int>, std::vector<const AttentionPanelData*>> by_layer;
  for (const AttentionPanelData& map : maps) by_layer[{map.layer, map.variable}].push_back(&map);
  std::vector<plot::BarPanel> panels;
  for (const auto& [key, heads] : by_layer) {
    const AttentionPanelData& first = *heads.front();
    std::vector<std::pair<float, std::string>> ranked;
    for (int k = 0; k < first.keys; ++k) {
      double sum = 0;
      for (const AttentionPanelData* head : heads) sum += head->weights[static_cast<size_t>(k)];
      const std::string name = k < static_cast<int>(first.token_names.size())
                                   ? first.token_names[static_cast<size_t>(k)]
                                   : std::to_string(k);
      ranked.emplace_back(static_cast<float>(sum / static_cast<double>(heads.size())), name);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const auto named = std::find(result.variable_columns.begin(), result.variable_columns.end(),
                                 static_cast<size_t>(key.second));
    const std::string variable =
        named != result.variable_columns.end()
            ? result.variables[static_cast<size_t>(named - result.variable_columns.begin())]
            : std::to_string(key.second);
    plot::BarPanel panel{"layer " + std::to_string(key.first) + ", " + variable, {}, {}};
    for (const auto& [weight, name] : ranked) {
      panel.labels.push_back(name);
      panel.values.push_back(weight);
    }
    panels.push_back(std::move(panel));
  }
  plot::BarOptions options;
  options.title = result.model_name +
                  ": what the target listened to (attention over the "
                  "covariates, mean of heads)";
  plot::write_bar_png(path, panels, options);
}

}  // namespace

void draw_attention_heatmaps(const std::string& path, const ForecastResult& result,
                             const v1::ModelInfo& info, const csv::CsvWindow& window) {
  if (result.attention.empty()) {
    throw std::invalid_argument("attention: the server returned no attention maps");
  }
  std::vector<AttentionPanelData> covariates;
  for (const AttentionPanelData& map : result.attention) {
    if (map.stack == "covariates") covariates.push_back(map);
  }
  if (!covariates.empty()) {
    draw_covariate_bars(covariates_picture_path(path), covariates, result);
  }
  // Grid rows are layers; columns are variables (heads averaged) or heads.
  std::vector<plot::HeatmapPanel> panels;
  int columns = 0;
  // A grid row per stack and layer: encoder layers, then (an encoder-decoder's) decoder
  // self- and cross-attention.
  std::map<std::pair<int, int>, int> per_row;
  const auto stack_rank = [](const std::string& stack) {
    return stack == "decoder" ? 1 : stack == "cross" ? 2 : stack == "covariates" ? 3 : 0;
  };
  // The server orders maps by variable, then stack and layer; a grid row per layer wants
  // the layer first.
  std::vector<AttentionPanelData> maps;
  for (const AttentionPanelData& map : result.attention) {
    if (map.stack != "covariates") maps.push_back(map);
  }
  const std::vector<std::string> patches = patch_labels(info, window.row_labels);
  const bool per_sample = info.maps_per_sample();
  std::stable_sort(maps.begin(), maps.end(), [&](const auto& a, const auto& b) {
    return std::make_tuple(stack_rank(a.stack), a.layer, a.variable, a.head) <
           std::make_tuple(stack_rank(b.stack), b.layer, b.variable, b.head);
  });
  const auto step_labels = [](const std::vector<int>& steps) {
    std::vector<std::string> labels;
    for (int step : steps) labels.push_back(std::to_string(step));
    return labels;
  };
  for (const auto& map : maps) {
    // A map per sample spans every variable: its `variable` is the sample, 0 (a TimeXer's
    // are its endogenous variables', named).
    const bool whole_sample = per_sample && info.covariate_tokens() == 0;
    // `variable` indexes the request's variables; a forecast variable's column says which.
    const auto named = std::find(result.variable_columns.begin(), result.variable_columns.end(),
                                 static_cast<size_t>(map.variable));
    const std::string variable =
        whole_sample ? std::string("all variables")
        : named != result.variable_columns.end()
            ? result.variables[static_cast<size_t>(named - result.variable_columns.begin())]
            : std::to_string(map.variable);
    const std::string stack = map.stack == "encoder" ? "" : map.stack + " ";
    std::string title = stack + "layer " + std::to_string(map.layer) + ", " + variable;
    title += map.head < 0 ? "" : ", head " + std::to_string(map.head);
    std::vector<std::string> rows = map.token_names.empty() ? patches : map.token_names;
    std::vector<std::string> keys = rows;
    if (!map.row_steps.empty()) {
      rows = step_labels(map.row_steps);
      keys = step_labels(map.column_steps);
    }
    if (rows.size() != static_cast<size_t>(map.queries)) rows = {};
    if (keys.size() != static_cast<size_t>(map.keys)) keys = {};
    panels.push_back({title, map.queries, map.keys, map.weights, rows, keys});
    columns = std::max(columns, ++per_row[{stack_rank(map.stack), map.layer}]);
  }
  plot::HeatmapOptions options;
  options.columns = columns;
  const bool averaged = result.attention.front().head < 0;
  // Time-step tokens (an encoder-decoder's) are labelled by step, 0 = the first forecast step.
  const bool steps = !result.attention.front().row_steps.empty();
  options.title = result.model_name + " attention " +
                  (averaged ? "(averaged over heads)" : "(per head)") +
                  (steps        ? ": rows = stacks and layers, query step vs key step"
                   : per_sample ? ": rows = layers, query token vs key token"
                                : ": rows = layers, query patch vs key patch");
  if (steps) {
    options.x_label = "key step (0 = first forecast step)";
    options.y_label = "query step";
  } else if (per_sample) {
    options.x_label = "key token";
    options.y_label = "query token";
  } else if (!patches.empty()) {
    options.x_label = window.row_labels.empty() ? "key patch (steps before the forecast)"
                                                : "key patch (first row)";
  }
  plot::write_heatmap_png(path, panels, options);
}

}  // namespace tsserve::client::cli
