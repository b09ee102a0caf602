#include "tsserve/model/config_keys.h"

#include <nlohmann/json.hpp>

#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

using nlohmann::json;

// A value as an error message shows it: scalars as written, arrays and objects by kind.
// dump() of a value nested 100,000 deep (what a hostile config.json can hold) recurses
// past the stack; a message needs no more than the kind.
std::string shown_value(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return value.dump();
}

}  // namespace

ConfigKeys::ConfigKeys(const json& root, std::string origin)
    : root_(root), origin_(std::move(origin)) {}

bool ConfigKeys::contains(const char* key) const { return root_.contains(key); }

void ConfigKeys::fail(const std::string& key, const std::string& expectation) const {
  throw ModelError("model config " + origin_ + ": '" + key + "' " + expectation);
}

void ConfigKeys::read_int(const char* key, int64_t& out, bool required) const {
  auto it = root_.find(key);
  if (it == root_.end()) {
    if (required) fail(key, "is required (an integer)");
    return;
  }
  if (!it->is_number_integer()) fail(key, "must be an integer, got " + shown_value(*it));
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}) {
    fail(key, "must be at most " + std::to_string(INT64_MAX) + ", got " + shown_value(*it));
  }
  out = it->get<int64_t>();
}

void ConfigKeys::read_bool(const char* key, bool& out) const {
  auto it = root_.find(key);
  if (it == root_.end()) return;
  if (!it->is_boolean()) fail(key, "must be true or false, got " + shown_value(*it));
  out = it->get<bool>();
}

void ConfigKeys::read_flag(const char* key, bool& out) const {
  auto it = root_.find(key);
  if (it == root_.end()) return;
  if (it->is_boolean()) {
    out = it->get<bool>();
  } else if (it->is_number_integer() && (it->get<int64_t>() == 0 || it->get<int64_t>() == 1)) {
    out = it->get<int64_t>() == 1;
  } else {
    fail(key, "must be true or false (or TSLib's 1 or 0), got " + shown_value(*it));
  }
}

void ConfigKeys::read_string(const char* key, std::string& out) const {
  auto it = root_.find(key);
  if (it == root_.end()) return;
  if (it->is_string()) {
    out = it->get<std::string>();
  } else if (it->is_number()) {
    out = it->dump();
  } else {
    fail(key, "must be a string, got " + shown_value(*it));
  }
}

void ConfigKeys::read_one_of(const char* key, std::string& out,
                             const std::vector<std::string>& names) const {
  if (!contains(key)) return;
  const std::optional<std::string> text = string_value(key);
  std::string allowed;
  for (const std::string& name : names) {
    if (text && *text == name) {
      out = name;
      return;
    }
    allowed += (allowed.empty() ? "\"" : ", \"") + name + "\"";
  }
  fail(key, "must be one of " + allowed + ", got " + shown(key));
}

std::optional<std::string> ConfigKeys::string_value(const char* key) const {
  auto it = root_.find(key);
  if (it == root_.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::string ConfigKeys::shown(const char* key) const {
  auto it = root_.find(key);
  return it == root_.end() ? "nothing" : shown_value(*it);
}

std::optional<ScalerStats> ConfigKeys::read_scaler() const {
  auto it = root_.find("scaler");
  if (it == root_.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) fail("scaler", "must be an object with columns, mean and std");
  ScalerStats stats;
  try {
    stats.columns = it->at("columns").get<std::vector<std::string>>();
    stats.mean = it->at("mean").get<std::vector<double>>();
    stats.std = it->at("std").get<std::vector<double>>();
  } catch (const json::exception&) {
    fail("scaler", "must hold 'columns' (strings), 'mean' and 'std' (numbers)");
  }
  if (stats.mean.size() != stats.columns.size() || stats.std.size() != stats.columns.size()) {
    fail("scaler", "needs as many mean and std values as columns (" +
                       std::to_string(stats.columns.size()) + ")");
  }
  for (double s : stats.std) {
    if (!(s > 0)) fail("scaler", "std values must be positive");
  }
  return stats;
}

}  // namespace tsserve::model
