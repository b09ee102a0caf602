#pragma once
// Reads a model config's keys one at a time, naming the key and what it expects in every
// refusal ("model config <origin>: 'd_ff' must be an integer, got \"x\""). The shared keys
// (model_config.cpp) and each family's own (model_family_rules.h: read_keys) go through it.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tsserve/model/scaler_stats.h"

namespace tsserve::model {

class ConfigKeys {
 public:
  ConfigKeys(const nlohmann::json& root, std::string origin);

  bool contains(const char* key) const;
  // Throws ModelError "model config <origin>: '<key>' <expectation>".
  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const;

  // Each leaves `out` as it is when the key is absent (read_int fails then when required).
  void read_int(const char* key, int64_t& out, bool required) const;
  void read_bool(const char* key, bool& out) const;
  // true/false, or TSLib's integer flags 1/0 (its argparse writes `--use_norm 1`).
  void read_flag(const char* key, bool& out) const;
  // A string, or a number as written ("version": 2 -> "2").
  void read_string(const char* key, std::string& out) const;

  // One of `names`, as written.
  void read_one_of(const char* key, std::string& out, const std::vector<std::string>& names) const;

  // One of `choices`' texts, stored as its value.
  template <typename Enum>
  void read_choice(const char* key, Enum& out,
                   std::initializer_list<std::pair<const char*, Enum>> choices) const {
    const std::optional<std::string> text = string_value(key);
    if (!text && !contains(key)) return;
    std::string allowed;
    for (const auto& [name, value] : choices) {
      if (text && *text == name) {
        out = value;
        return;
      }
      allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    fail(key, "must be one of " + allowed + ", got " + shown(key));
  }

  std::optional<ScalerStats> read_scaler() const;

 private:
  // The key's value when it is a string; nullopt when absent or of another kind.
  std::optional<std::string> string_value(const char* key) const;
  // The key's value as a refusal shows it (arrays and objects by kind).
  std::string shown(const char* key) const;

  const nlohmann::json& root_;
  std::string origin_;
};

}  // namespace tsserve::model
