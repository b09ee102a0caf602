#include "tsserve/model/calibration_json.h"

#include <cstdio>
#include <cstdlib>

#include "tsserve/model/model_error.h"

namespace tsserve::model {

using nlohmann::json;

double round_to_float_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value);
  return std::strtod(text, nullptr);
}

std::string dump_config(const nlohmann::ordered_json& root) {
  const std::string text = root.dump(2);
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '[') {
      // Collapse "[ \n  1.5,\n  2 \n ]" when everything up to ']' is numbers and spaces.
      const size_t close = text.find_first_of("[]{}\"", i + 1);
      if (close != std::string::npos && text[close] == ']') {
        std::string inner;
        for (size_t k = i + 1; k < close; ++k) {
          if (text[k] == '\n') continue;
          if (text[k] == ' ' && (inner.empty() || inner.back() == ' ' || inner.back() == ',')) {
            if (!inner.empty() && inner.back() == ',') inner += ' ';
            continue;
          }
          inner += text[k];
        }
        while (!inner.empty() && inner.back() == ' ') inner.pop_back();
        out += "[" + inner + "]";
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out + "\n";
}

Calibration calibration_from_json(const json& block, const std::string& origin) {
  auto fail = [&origin](const std::string& key, const std::string& expectation) {
    throw ModelError("model config " + origin + ": 'calibration" + key + "' " + expectation);
  };
  if (!block.is_object()) fail("", "must be an object (levels, quantiles, ...)");
  Calibration c;
  try {
    c.levels = block.at("levels").get<std::vector<double>>();
  } catch (const json::exception&) {
    fail(".levels", "is required: a list of numbers in (0, 1)");
  }
  const json* quantiles = nullptr;
  if (auto it = block.find("quantiles"); it != block.end()) quantiles = &*it;
  if (quantiles == nullptr || !quantiles->is_array() ||
      quantiles->size() != c.levels.size()) {
    fail(".quantiles", "is required: one [pred_len][columns] list per level (" +
                           std::to_string(c.levels.size()) + " levels)");
  }
  for (size_t l = 0; l < quantiles->size(); ++l) {
    const json& per_level = (*quantiles)[l];
    if (!per_level.is_array() || per_level.empty()) {
      fail(".quantiles[" + std::to_string(l) + "]", "must be a [pred_len][columns] list");
    }
    if (l == 0) c.pred_len = static_cast<int64_t>(per_level.size());
    for (size_t h = 0; h < per_level.size(); ++h) {
      const std::string key = ".quantiles[" + std::to_string(l) + "][" + std::to_string(h) + "]";
      if (static_cast<int64_t>(per_level.size()) != c.pred_len) {
        fail(".quantiles[" + std::to_string(l) + "]", "must have as many steps as level 0's");
      }
      std::vector<double> row;
      try {
        row = per_level[h].get<std::vector<double>>();
      } catch (const json::exception&) {
        fail(key, "must be a list of numbers (one per column)");
      }
      if (l == 0 && h == 0) c.columns = static_cast<int64_t>(row.size());
      if (static_cast<int64_t>(row.size()) != c.columns) {
        fail(key, "must have " + std::to_string(c.columns) + " values, as every step");
      }
      c.quantiles.insert(c.quantiles.end(), row.begin(), row.end());
    }
  }
  try {
    c.dataset = block.value("dataset", "");
    c.split = block.value("split", "");
    c.windows = block.value("windows", int64_t{0});
    if (auto rows = block.find("rows"); rows != block.end()) {
      const auto bounds = rows->get<std::vector<int64_t>>();
      if (bounds.size() != 2) fail(".rows", "must be [begin, end)");
      c.row_begin = bounds[0];
      c.row_end = bounds[1];
    }
  } catch (const json::exception&) {
    fail("", "'dataset' and 'split' must be strings, 'windows' an integer, 'rows' [begin, end)");
  }
  return c;
}

nlohmann::ordered_json calibration_to_json(const Calibration& c) {
  nlohmann::ordered_json block;
  block["method"] = "split conformal: |residual| quantile, rank ceil((n+1)*level) of n";
  block["space"] = "scaled";
  block["dataset"] = c.dataset;
  block["split"] = c.split;
  block["rows"] = {c.row_begin, c.row_end};
  block["windows"] = c.windows;
  block["levels"] = c.levels;
  auto quantiles = nlohmann::ordered_json::array();
  for (size_t l = 0; l < c.levels.size(); ++l) {
    auto per_level = nlohmann::ordered_json::array();
    for (int64_t h = 0; h < c.pred_len; ++h) {
      auto row = nlohmann::ordered_json::array();
      for (int64_t v = 0; v < c.columns; ++v) row.push_back(round_to_float_digits(c.quantile(l, h, v)));
      per_level.push_back(std::move(row));
    }
    quantiles.push_back(std::move(per_level));
  }
  block["quantiles"] = std::move(quantiles);
  return block;
}

}  // namespace tsserve::model
