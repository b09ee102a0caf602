#include "tsserve/model/model_config.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tsserve/model/calibration_json.h"
#include "tsserve/model/config_keys.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::model {
namespace {

using nlohmann::json;

// "" when value > 0, else the message.
std::string positive_error(const char* key, int64_t value) {
  if (value > 0) return "";
  return "'" + std::string(key) + "' must be positive, got " + std::to_string(value);
}

// Sizes travel as int32 (GetModelInfo) and are multiplied together to build the model; this
// bound, far above any real model, keeps both exact (and seq_len + stride from overflowing).
std::string at_most_int32_error(const char* key, int64_t value) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (value <= kMax) return "";
  return "'" + std::string(key) + "' must be at most " + std::to_string(kMax) + ", got " +
         std::to_string(value);
}

}  // namespace

std::string size_in_range_error(const char* key, int64_t value) {
  std::string error = positive_error(key, value);
  return error.empty() ? at_most_int32_error(key, value) : error;
}

void summarise_sizes(const ModelConfig& config, std::ostream& out, const std::string& after_seq_len,
                     const std::string& after_e_layers) {
  out << "seq_len=" << config.seq_len << after_seq_len << " pred_len=" << config.pred_len
      << " d_model=" << config.d_model << " n_heads=" << config.n_heads
      << " e_layers=" << config.e_layers << after_e_layers << " d_ff=" << config.d_ff;
}

int64_t ModelConfig::mark_width() const { return tsserve::model::mark_width(embed, freq); }

std::string ModelConfig::validation_error() const {
  const std::pair<const char*, int64_t> positives[] = {
      {"seq_len", seq_len},     {"pred_len", pred_len}, {"d_model", d_model},
      {"n_heads", n_heads},     {"e_layers", e_layers}, {"d_ff", d_ff},
      {"patch_len", patch_len}, {"stride", stride},     {"factor", factor}};
  for (const auto& [key, value] : positives) {
    std::string error = size_in_range_error(key, value);
    if (!error.empty()) return error;
  }
  const ModelFamilyRules* rules = find_model_family(family);
  if (rules == nullptr) {
    return "'model' \"" + family + "\" is no family this build serves (" +
           registered_family_names() + ")";
  }
  if (rules->check != nullptr) {
    std::string error = rules->check(*this);
    if (!error.empty()) return error;
  }
  if (d_model % n_heads != 0) {
    return "'d_model' (" + std::to_string(d_model) + ") must be a multiple of 'n_heads' (" +
           std::to_string(n_heads) + ")";
  }
  return "";
}

void ModelConfig::validate() const {
  const std::string error = validation_error();
  if (!error.empty()) throw ModelError("model config: " + error);
}

std::string ModelConfig::summary() const {
  std::ostringstream out;
  // The default family's line stays as it was before there were families (logs and tests
  // read it).
  if (family != kDefaultModelFamily) out << "model=" << family << " ";
  const ModelFamilyRules* rules = find_model_family(family);
  if (rules != nullptr && rules->summarise != nullptr) {
    rules->summarise(*this, out);
  } else {
    summarise_sizes(*this, out);
  }
  out << " attention=" << to_string(attention);
  if (attention == AttentionKind::kProb) {
    out << " factor=" << factor << " prob_layout=" << to_string(prob_layout)
        << " prob_seed=" << prob_seed;
  }
  if (norm) out << " norm=" << to_string(*norm);
  return out.str();
}

ModelConfig parse_model_config(const std::string& json_text, const std::string& origin) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw ModelError("model config " + origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!root.is_object()) throw ModelError("model config " + origin + ": must be a JSON object");

  const ConfigKeys reader(root, origin);
  ModelConfig config;
  std::vector<std::string> families;
  for (const ModelFamilyRules* rules : model_family_rules()) families.push_back(rules->name);
  reader.read_one_of("model", config.family, families);
  const ModelFamilyRules* rules = find_model_family(config.family);
  if (rules == nullptr) {  // no "model", and this build serves no default family
    reader.fail("model", "is required: this build serves " + registered_family_names() +
                             ", not the default \"" + kDefaultModelFamily + "\"");
  }
  if (rules->apply_defaults != nullptr) rules->apply_defaults(config);
  reader.read_string("name", config.name);
  reader.read_string("version", config.version);
  reader.read_int("seq_len", config.seq_len, true);
  reader.read_int("pred_len", config.pred_len, true);
  reader.read_int("enc_in", config.enc_in, false);
  reader.read_int("d_model", config.d_model, true);
  reader.read_int("n_heads", config.n_heads, true);
  reader.read_int("e_layers", config.e_layers, true);
  reader.read_int("d_ff", config.d_ff, true);
  reader.read_int("patch_len", config.patch_len, false);
  reader.read_int("stride", config.stride, false);
  reader.read_int("factor", config.factor, false);
  int64_t seed = 0;
  reader.read_int("prob_seed", seed, false);
  if (seed < 0) reader.fail("prob_seed", "must be a non-negative integer");
  config.prob_seed = static_cast<uint64_t>(seed);
  reader.read_choice("activation", config.activation,
                     {{"gelu", Activation::kGelu}, {"relu", Activation::kRelu}});
  reader.read_choice("attention", config.attention,
                     {{"full", AttentionKind::kFull}, {"prob", AttentionKind::kProb}});
  reader.read_choice("prob_layout", config.prob_layout,
                     {{"canonical", ProbLayout::kCanonical}, {"tslib", ProbLayout::kTslib}});
  if (root.contains("norm")) {
    FinalNorm norm = FinalNorm::kBatch;
    reader.read_choice("norm", norm, {{"batch", FinalNorm::kBatch}, {"layer", FinalNorm::kLayer}});
    config.norm = norm;
  }
  reader.read_bool("batch_invariant", config.batch_invariant);
  config.scaler = reader.read_scaler();
  reader.read_string("embed", config.embed);
  reader.read_string("freq", config.freq);
  reader.read_bool("calendar_tokens", config.calendar_tokens);
  reader.read_bool("any_variable_count", config.any_variable_count);
  if (rules->read_keys != nullptr) rules->read_keys(reader, config);
  if (auto block = root.find("calibration"); block != root.end() && !block->is_null()) {
    if (!config.scaler) {
      reader.fail("calibration",
                  "needs a 'scaler': its quantiles are per scaler column, in "
                  "the scaler's space");
    }
    Calibration calibration = calibration_from_json(*block, origin);
    const std::string error =
        calibration_error(calibration, config.pred_len, config.calibrated_columns());
    if (!error.empty()) throw ModelError("model config " + origin + ": " + error);
    config.calibration = std::move(calibration);
  }
  const std::string error = config.validation_error();
  if (!error.empty()) throw ModelError("model config " + origin + ": " + error);
  return config;
}

std::string config_path_for(const std::string& checkpoint_path) {
  const auto slash = checkpoint_path.find_last_of('/');
  const auto dot = checkpoint_path.find_last_of('.');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_extension ? checkpoint_path.substr(0, dot) : checkpoint_path) + ".json";
}

ModelConfig load_model_config(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ModelError("model config " + path + ": cannot be opened");
  std::stringstream text;
  text << file.rdbuf();
  return parse_model_config(text.str(), path);
}

std::string to_string(ForecastFeatures features) {
  switch (features) {
    case ForecastFeatures::kM:
      return "M";
    case ForecastFeatures::kS:
      return "S";
    case ForecastFeatures::kMS:
      return "MS";
  }
  return "unknown";
}
namespace {

// The value of `values` whose to_string is `name`.
template <typename Enum>
Enum named(const std::string& name, std::initializer_list<Enum> values, const char* option) {
  std::string choices;
  for (Enum value : values) {
    if (to_string(value) == name) return value;
    choices += (choices.empty() ? "" : " | ") + to_string(value);
  }
  throw ModelError(std::string(option) + " \"" + name + "\": expected " + choices);
}

}  // namespace

AttentionKind attention_kind_named(const std::string& name, const char* option) {
  return named(name, {AttentionKind::kFull, AttentionKind::kProb}, option);
}

ProbLayout prob_layout_named(const std::string& name, const char* option) {
  return named(name, {ProbLayout::kCanonical, ProbLayout::kTslib}, option);
}

std::string to_string(AttentionKind kind) { return kind == AttentionKind::kFull ? "full" : "prob"; }
std::string to_string(ProbLayout layout) {
  return layout == ProbLayout::kCanonical ? "canonical" : "tslib";
}
std::string to_string(FinalNorm norm) {
  switch (norm) {
    case FinalNorm::kBatch:
      return "batch";
    case FinalNorm::kLayer:
      return "layer";
    case FinalNorm::kNone:
      break;
  }
  return "none";
}
std::string to_string(Activation activation) {
  return activation == Activation::kGelu ? "gelu" : "relu";
}

}  // namespace tsserve::model
