#include "tsserve/client/forecast_output.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <stdexcept>

namespace tsserve::client {
namespace {

std::string step_label(const ForecastResult& result, size_t step) {
  return step < result.step_labels.size() ? result.step_labels[step] : std::to_string(step + 1);
}

std::string step_header(const ForecastResult& result) {
  return result.step_labels.empty() ? "step" : "date";
}

std::string format_value(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

struct Column {
  std::string header;
  const std::vector<double>* values;
};

// Each variable's forecast, followed by its interval bounds when asked for: "OT",
// "OT lo80", "OT hi80", "OT lo95", ... (level in percent).
std::vector<Column> value_columns(const ForecastResult& result) {
  std::vector<Column> columns;
  for (size_t v = 0; v < result.variables.size(); ++v) {
    columns.push_back({result.variables[v], &result.forecast[v]});
    for (const IntervalData& interval : result.intervals) {
      char percent[32];
      std::snprintf(percent, sizeof percent, "%g", interval.level * 100);
      columns.push_back({result.variables[v] + " lo" + percent, &interval.lower[v]});
      columns.push_back({result.variables[v] + " hi" + percent, &interval.upper[v]});
    }
  }
  return columns;
}

void write_table(std::ostream& out, const ForecastResult& result) {
  const size_t label_width = result.step_labels.empty() ? 5 : 19;
  char cell[64];
  std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(label_width), step_header(result).c_str());
  out << cell;
  const std::vector<Column> columns = value_columns(result);
  for (const Column& column : columns) {
    std::snprintf(cell, sizeof cell, " %11s", column.header.c_str());
    out << cell;
  }
  out << "\n";
  const size_t steps = result.forecast.empty() ? 0 : result.forecast.front().size();
  for (size_t s = 0; s < steps; ++s) {
    std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(label_width),
                  step_label(result, s).c_str());
    out << cell;
    for (const Column& column : columns) {
      std::snprintf(cell, sizeof cell, " %11.4f", (*column.values)[s]);
      out << cell;
    }
    out << "\n";
  }
}

void write_csv(std::ostream& out, const ForecastResult& result) {
  out << step_header(result);
  const std::vector<Column> columns = value_columns(result);
  for (const Column& column : columns) out << "," << column.header;
  out << "\n";
  const size_t steps = result.forecast.empty() ? 0 : result.forecast.front().size();
  for (size_t s = 0; s < steps; ++s) {
    out << step_label(result, s);
    for (const Column& column : columns) out << "," << format_value((*column.values)[s]);
    out << "\n";
  }
}

void write_json(std::ostream& out, const ForecastResult& result) {
  nlohmann::ordered_json json;
  json["model"] = result.model_name;
  json["version"] = result.model_version;
  json["request_id"] = result.request_id;
  json["variables"] = result.variables;
  const size_t steps = result.forecast.empty() ? 0 : result.forecast.front().size();
  auto& labels = json["steps"] = nlohmann::ordered_json::array();
  for (size_t s = 0; s < steps; ++s) {
    if (result.step_labels.empty()) {
      labels.push_back(s + 1);
    } else {
      labels.push_back(result.step_labels[s]);
    }
  }
  auto& forecast = json["forecast"] = nlohmann::ordered_json::object();
  for (size_t v = 0; v < result.variables.size(); ++v) {
    forecast[result.variables[v]] = result.forecast[v];
  }
  if (!result.intervals.empty()) {
    auto& intervals = json["intervals"] = nlohmann::ordered_json::array();
    for (const IntervalData& interval : result.intervals) {
      nlohmann::ordered_json entry;
      entry["level"] = interval.level;
      for (size_t v = 0; v < result.variables.size(); ++v) {
        entry["lower"][result.variables[v]] = interval.lower[v];
        entry["upper"][result.variables[v]] = interval.upper[v];
      }
      intervals.push_back(std::move(entry));
    }
  }
  json["timing"] = {{"queue_seconds", result.timing.queue_seconds()},
                    {"compute_seconds", result.timing.compute_seconds()},
                    {"batch_rows", result.timing.batch_rows()}};
  json["scaler_applied"] = result.scaler_applied;
  json["input_points_used"] = result.input_points_used;
  out << json.dump(2) << "\n";
}

}  // namespace

OutputFormat parse_output_format(const std::string& text) {
  if (text == "table") return OutputFormat::kTable;
  if (text == "csv") return OutputFormat::kCsv;
  if (text == "json") return OutputFormat::kJson;
  throw std::invalid_argument("format: '" + text + "' is not one of table, csv, json");
}

OutputFormat output_format_for_path(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (extension == "csv") return OutputFormat::kCsv;
  if (extension == "json") return OutputFormat::kJson;
  throw std::invalid_argument("out: '" + path + "' should end in .csv or .json");
}

void write_forecast(std::ostream& out, const ForecastResult& result, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable: write_table(out, result); break;
    case OutputFormat::kCsv: write_csv(out, result); break;
    case OutputFormat::kJson: write_json(out, result); break;
  }
}

}  // namespace tsserve::client
