#include "tsserve/model/model_config.h"

#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tsserve/model/calibration_json.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::model {
namespace {

using nlohmann::json;

// A value as an error message shows it: scalars as written, arrays and objects by kind.
// dump() of a value nested 100,000 deep (what a hostile config.json can hold) recurses
// past the stack; a message needs no more than the kind.
std::string shown(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return value.dump();
}

class ConfigReader {
 public:
  ConfigReader(const json& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& expectation) const {
    throw ModelError("model config " + origin_ + ": '" + key + "' " + expectation);
  }

  void read_int(const char* key, int64_t& out, bool required) const {
    auto it = root_.find(key);
    if (it == root_.end()) {
      if (required) fail(key, "is required (an integer)");
      return;
    }
    if (!it->is_number_integer()) fail(key, "must be an integer, got " + shown(*it));
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}) {
      fail(key, "must be at most " + std::to_string(INT64_MAX) + ", got " + shown(*it));
    }
    out = it->get<int64_t>();
  }

  template <typename Enum>
  void read_choice(const char* key, Enum& out,
                   std::initializer_list<std::pair<const char*, Enum>> choices) const {
    auto it = root_.find(key);
    if (it == root_.end()) return;
    std::string allowed;
    for (const auto& [text, value] : choices) {
      if (it->is_string() && it->get<std::string>() == text) {
        out = value;
        return;
      }
      allowed += (allowed.empty() ? "\"" : ", \"") + std::string(text) + "\"";
    }
    fail(key, "must be one of " + allowed + ", got " + shown(*it));
  }

  void read_bool(const char* key, bool& out) const {
    auto it = root_.find(key);
    if (it == root_.end()) return;
    if (!it->is_boolean()) fail(key, "must be true or false, got " + shown(*it));
    out = it->get<bool>();
  }

  void read_string(const char* key, std::string& out) const {
    auto it = root_.find(key);
    if (it == root_.end()) return;
    if (it->is_string()) {
      out = it->get<std::string>();
    } else if (it->is_number()) {
      out = it->dump();
    } else {
      fail(key, "must be a string, got " + shown(*it));
    }
  }

  std::optional<ScalerStats> read_scaler() const {
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

 private:
  const json& root_;
  std::string origin_;
};

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

std::string in_range_error(const char* key, int64_t value) {
  std::string error = positive_error(key, value);
  return error.empty() ? at_most_int32_error(key, value) : error;
}

// The Informer/Transformer rules (TSLib's long-term forecast with an encoder and a decoder).
std::string encoder_decoder_error(const ModelConfig& c) {
  const std::string model = to_string(c.family);
  if (c.enc_in < 1) {
    return "'enc_in' is required for an " + model + " (the input variables, >= 1), got " +
           std::to_string(c.enc_in);
  }
  for (const auto& [key, value] : {std::pair<const char*, int64_t>{"enc_in", c.enc_in},
                                   {"label_len", c.label_len},
                                   {"d_layers", c.d_layers},
                                   {"c_out", c.c_out}}) {
    std::string error = in_range_error(key, value);
    if (!error.empty()) return error + " (" + model + ")";
  }
  if (c.label_len > c.seq_len) {
    return "'label_len' (" + std::to_string(c.label_len) + ") must be at most 'seq_len' (" +
           std::to_string(c.seq_len) + "): the decoder starts from the last label_len input steps";
  }
  if (c.dec_in != c.enc_in) {
    return "'dec_in' (" + std::to_string(c.dec_in) + ") must equal 'enc_in' (" +
           std::to_string(c.enc_in) +
           "): the decoder's input is the encoder's last label_len steps (TSLib's x_dec)";
  }
  if (c.features == ForecastFeatures::kS && (c.enc_in != 1 || c.c_out != 1)) {
    return "'features' \"S\" forecasts one variable from itself: 'enc_in' and 'c_out' must be 1, "
           "got enc_in=" +
           std::to_string(c.enc_in) + " c_out=" + std::to_string(c.c_out);
  }
  if (c.norm && *c.norm != FinalNorm::kLayer) {
    return "'norm' must be \"layer\" for an " + model +
           " (TSLib's encoder and decoder end in a LayerNorm), got \"" + to_string(*c.norm) + "\"";
  }
  if (c.family == ModelFamily::kTransformer && c.distil) {
    return "'distil' must be false for a Transformer (TSLib's Transformer has no distilling "
           "layers; only Informer has)";
  }
  if (c.seq_len > kMaxPositions || c.label_len + c.pred_len > kMaxPositions) {
    return "'seq_len' (" + std::to_string(c.seq_len) + ") and label_len + pred_len (" +
           std::to_string(c.label_len + c.pred_len) + ") must each be at most " +
           std::to_string(kMaxPositions) + ", the steps the position embedding covers";
  }
  return mark_encoding_error(c.embed, c.freq);
}

}  // namespace

int64_t ModelConfig::mark_width() const { return tsserve::model::mark_width(embed, freq); }

std::string ModelConfig::validation_error() const {
  const std::pair<const char*, int64_t> positives[] = {
      {"seq_len", seq_len},     {"pred_len", pred_len}, {"d_model", d_model},
      {"n_heads", n_heads},     {"e_layers", e_layers}, {"d_ff", d_ff},
      {"patch_len", patch_len}, {"stride", stride},     {"factor", factor}};
  for (const auto& [key, value] : positives) {
    std::string error = positive_error(key, value);
    if (error.empty()) error = at_most_int32_error(key, value);
    if (!error.empty()) return error;
  }
  if (is_encoder_decoder()) {
    std::string error = encoder_decoder_error(*this);
    if (!error.empty()) return error;
  }
  if (family == ModelFamily::kITransformer) {
    if (norm && *norm != FinalNorm::kLayer) {
      return "'norm' must be \"layer\" for an iTransformer (TSLib's final LayerNorm), got \"" +
             to_string(*norm) + "\"";
    }
    if (calendar_tokens && embed != "timeF") {
      return "'embed' must be \"timeF\" for an iTransformer with calendar tokens (TSLib's scaled "
             "time features), got \"" +
             embed + "\"";
    }
    try {
      time_features_for_freq(freq);
    } catch (const ModelError& e) {
      return e.what();
    }
  }
  if (d_model % n_heads != 0) {
    return "'d_model' (" + std::to_string(d_model) + ") must be a multiple of 'n_heads' (" +
           std::to_string(n_heads) + ")";
  }
  if (family != ModelFamily::kPatchTST) return "";
  if (seq_len + stride < patch_len) {
    return "'patch_len' (" + std::to_string(patch_len) + ") must be at most seq_len + stride (" +
           std::to_string(seq_len + stride) + ")";
  }
  // Checked here, not first at the first forecast (or the warm-up): the table is part of
  // the weights, so such a config describes no model that can run.
  if (patch_count() > kMaxPositions) {
    return "seq_len " + std::to_string(seq_len) + ", patch_len " + std::to_string(patch_len) +
           " and stride " + std::to_string(stride) + " give " + std::to_string(patch_count()) +
           " patches; the position embedding covers at most " + std::to_string(kMaxPositions);
  }
  return "";
}

std::vector<TimeFeature> ModelConfig::calendar_features() const {
  if (family != ModelFamily::kITransformer || !calendar_tokens) return {};
  return time_features_for_freq(freq);
}

void ModelConfig::validate() const {
  const std::string error = validation_error();
  if (!error.empty()) throw ModelError("model config: " + error);
}

std::string ModelConfig::summary() const {
  std::ostringstream out;
  // PatchTST's line stays as it was before there were families (logs and tests read it).
  if (family != ModelFamily::kPatchTST) out << "model=" << to_string(family) << " ";
  out << "seq_len=" << seq_len;
  if (is_encoder_decoder()) out << " label_len=" << label_len;
  out << " pred_len=" << pred_len << " d_model=" << d_model << " n_heads=" << n_heads
      << " e_layers=" << e_layers;
  if (is_encoder_decoder()) out << " d_layers=" << d_layers;
  out << " d_ff=" << d_ff;
  if (is_encoder_decoder()) {
    out << " enc_in=" << enc_in << " dec_in=" << dec_in << " c_out=" << c_out
        << " features=" << to_string(features) << " embed=" << embed << " freq=" << freq;
    if (mark_encoding_error(embed, freq).empty()) out << " (" << mark_width() << " mark columns)";
    out << " distil=" << (distil ? "true" : "false");
  } else if (family == ModelFamily::kPatchTST) {
    out << " patch_len=" << patch_len << " stride=" << stride << " (P=" << patch_count() << ")";
  } else if (calendar_tokens) {
    out << " embed=" << embed << " freq=" << freq << " (" << calendar_features().size()
        << " calendar tokens)";
  } else {
    out << " calendar_tokens=false";
  }
  if (family == ModelFamily::kITransformer) {
    out << (any_variable_count ? " variables=any" : " enc_in=" + std::to_string(enc_in));
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

  const ConfigReader reader(root, origin);
  ModelConfig config;
  reader.read_choice("model", config.family,
                     {{"PatchTST", ModelFamily::kPatchTST},
                      {"iTransformer", ModelFamily::kITransformer},
                      {"Informer", ModelFamily::kInformer},
                      {"Transformer", ModelFamily::kTransformer}});
  // Per-family defaults, before the keys that override them are read.
  if (config.family == ModelFamily::kInformer) {
    config.attention = AttentionKind::kProb;
    config.prob_layout = ProbLayout::kTslib;
    config.distil = true;
  }
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
  if (config.is_encoder_decoder()) {
    reader.read_int("label_len", config.label_len, true);
    reader.read_int("d_layers", config.d_layers, false);
    config.dec_in = config.enc_in;
    config.c_out = config.enc_in;
    reader.read_int("dec_in", config.dec_in, false);
    reader.read_int("c_out", config.c_out, false);
    reader.read_bool("distil", config.distil);
    reader.read_choice(
        "features", config.features,
        {{"M", ForecastFeatures::kM}, {"S", ForecastFeatures::kS}, {"MS", ForecastFeatures::kMS}});
  }
  if ((config.family == ModelFamily::kITransformer || config.is_encoder_decoder()) &&
      !config.norm) {
    config.norm = FinalNorm::kLayer;
  }
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

std::string to_string(ModelFamily family) {
  switch (family) {
    case ModelFamily::kPatchTST:
      return "PatchTST";
    case ModelFamily::kITransformer:
      return "iTransformer";
    case ModelFamily::kInformer:
      return "Informer";
    case ModelFamily::kTransformer:
      return "Transformer";
  }
  return "unknown";
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
