#pragma once
// The forecast command's pictures: history + forecast per variable, and attention
// heatmaps, drawn with tsserve_plot.

#include <string>

#include "tsserve/client/forecast_call.h"
#include "tsserve/csv/csv_window.h"

namespace tsserve::client::cli {

// One panel per variable: the window's history (its last `history_points`, 0 = all) and
// the forecast after it.
void draw_forecast_plot(const std::string& path, const csv::CsvWindow& window,
                        const ForecastResult& result, int history_points);

// One heatmap per returned map: layers x variables when heads are averaged, layers x
// heads otherwise. Both axes are labelled by token: the maps' own token names (an
// iTransformer's variables and calendar features), else the time range of each patch
// (attention_labels.h) for the model `info` describes and the window's rows. A TimeXer's
// "covariates" maps go to a second picture (covariates_picture_path): a bar chart per
// layer of what the target listened to, covariates ranked.
// PATH.png -> PATH-covariates.png (another name: "-covariates.png" appended).
std::string covariates_picture_path(const std::string& path);

void draw_attention_heatmaps(const std::string& path, const ForecastResult& result,
                             const v1::ModelInfo& info, const csv::CsvWindow& window);

}  // namespace tsserve::client::cli
