// The encoder-decoder families' part in configs and loading (TSLib's Informer and
// Transformer), registered with the model library (model_family_rules.h, family_loading.h).
#include <ATen/ATen.h>

#include <tuple>

#include "tsserve/model/encoder_decoder_checkpoint.h"
#include "tsserve/model/encoder_decoder_family.h"
#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::model {
namespace {

// The embedding both families share: a Conv1d over the decoder's input.
const char kEncoderDecoderMarker[] = "dec_embedding.value_embedding.tokenConv.weight";

// TSLib's Informer was trained with ProbSparse attention in its layout, and distils.
void apply_informer_defaults(ModelConfig& config) {
  config.attention = AttentionKind::kProb;
  config.prob_layout = ProbLayout::kTslib;
  config.distil = true;
}

void read_encoder_decoder_keys(const ConfigKeys& keys, ModelConfig& config) {
  keys.read_int("label_len", config.label_len, true);
  keys.read_int("d_layers", config.d_layers, false);
  config.dec_in = config.enc_in;
  config.c_out = config.enc_in;
  keys.read_int("dec_in", config.dec_in, false);
  keys.read_int("c_out", config.c_out, false);
  keys.read_bool("distil", config.distil);
  keys.read_choice(
      "features", config.features,
      {{"M", ForecastFeatures::kM}, {"S", ForecastFeatures::kS}, {"MS", ForecastFeatures::kMS}});
  if (!config.norm) config.norm = FinalNorm::kLayer;
}

// The Informer/Transformer rules (TSLib's long-term forecast with an encoder and a decoder).
std::string encoder_decoder_error(const ModelConfig& c) {
  const std::string& model = c.family;
  if (c.enc_in < 1) {
    return "'enc_in' is required for an " + model + " (the input variables, >= 1), got " +
           std::to_string(c.enc_in);
  }
  for (const auto& [key, value] : {std::pair<const char*, int64_t>{"enc_in", c.enc_in},
                                   {"label_len", c.label_len},
                                   {"d_layers", c.d_layers},
                                   {"c_out", c.c_out}}) {
    std::string error = size_in_range_error(key, value);
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
  if (c.family == kTransformerFamily && c.distil) {
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

void summarise_encoder_decoder(const ModelConfig& c, std::ostream& out) {
  summarise_sizes(c, out, " label_len=" + std::to_string(c.label_len),
                  " d_layers=" + std::to_string(c.d_layers));
  out << " enc_in=" << c.enc_in << " dec_in=" << c.dec_in << " c_out=" << c.c_out
      << " features=" << to_string(c.features) << " embed=" << c.embed << " freq=" << c.freq;
  if (mark_encoding_error(c.embed, c.freq).empty())
    out << " (" << c.mark_width() << " mark columns)";
  out << " distil=" << (c.distil ? "true" : "false");
}

bool reads_marks(const ModelConfig&) { return true; }

// The embeddings' conv and temporal tables, every layer (one at a time, so a huge e_layers or
// d_layers costs nothing), the distilling convs and the projection.
void check_encoder_decoder_shapes(const ShapeCheck& check, const ModelConfig& config) {
  const int64_t D = config.d_model;
  const std::string d = "d_model=" + std::to_string(D);
  for (const auto& [side, channels, name] :
       {std::tuple<const char*, int64_t, const char*>{"enc", config.enc_in, "enc_in"},
        {"dec", config.dec_in, "dec_in"}}) {
    const std::string prefix = std::string(side) + "_embedding.";
    check.expect(prefix + "value_embedding.tokenConv.weight", {D, channels, 3},
                 d + ", " + name + "=" + std::to_string(channels));
    const std::string encoding = "embed=" + config.embed + ", freq=" + config.freq;
    if (config.embed == "timeF") {
      check.expect(prefix + "temporal_embedding.embed.weight", {D, config.mark_width()},
                   encoding + " (" + std::to_string(config.mark_width()) + " time features), " + d);
      continue;
    }
    const std::string table = config.embed == "fixed" ? "_embed.emb.weight" : "_embed.weight";
    check.expect(prefix + "temporal_embedding.hour" + table, {24, D}, encoding + ", " + d);
    if (has_minute_table(config.freq)) {
      check.expect(prefix + "temporal_embedding.minute" + table, {4, D},
                   encoding +
                       ": a minute table (TSLib builds one only for freq \"t\"; a "
                       "checkpoint without one is served with freq \"h\")");
    }
  }
  check.expect_encoder_layers(config);
  const int64_t convs = config.distil ? config.e_layers - 1 : 0;
  for (int64_t i = 0; i < convs; ++i) {
    check.expect("encoder.conv_layers." + std::to_string(i) + ".downConv.weight", {D, D, 3},
                 "distil=true, e_layers=" + std::to_string(config.e_layers) + ", " + d);
  }
  for (int64_t i = 0; i < config.d_layers; ++i) {
    const std::string layer = "decoder.layers." + std::to_string(i) + ".";
    const std::string fields = "d_layers=" + std::to_string(config.d_layers) + ", " + d;
    check.expect(layer + "self_attention.query_projection.weight", {D, D}, fields);
    check.expect(layer + "cross_attention.query_projection.weight", {D, D}, fields);
    check.expect(layer + "conv1.weight", {config.d_ff, D, 1},
                 fields + ", d_ff=" + std::to_string(config.d_ff));
  }
  check.expect("decoder.projection.weight", {config.c_out, D},
               "c_out=" + std::to_string(config.c_out) + ", " + d);
}

// The marks of the input steps and of the forecast's, from the dataset's own dates (TSLib's
// data_stamp), as the server computes them from a request's timestamps.
WindowForecast open_encoder_decoder_windows(const std::string& checkpoint,
                                            const ModelConfig& config) {
  EncoderDecoder model = load_encoder_decoder(checkpoint, config);
  const int64_t steps = config.seq_len + config.pred_len;
  return [model, steps](const at::Tensor& series,
                        const std::vector<std::vector<int64_t>>& stamps) mutable {
    const ModelConfig& c = model->config();
    std::vector<at::Tensor> marks;
    for (const std::vector<int64_t>& window : stamps) {
      marks.push_back(at::tensor(time_marks(c.embed, c.freq, window)).view({steps, -1}));
    }
    return model->forecast_samples(series, at::stack(marks)).forecast.transpose(1, 2);
  };
}

ModelFamilyRules encoder_decoder_rules(const char* name) {
  ModelFamilyRules rules;
  rules.name = name;
  rules.read_keys = read_encoder_decoder_keys;
  rules.check = encoder_decoder_error;
  rules.summarise = summarise_encoder_decoder;
  rules.reads_timestamps = reads_marks;
  rules.checkpoint_markers = {kEncoderDecoderMarker};
  return rules;
}

ModelFamilyRules informer_rules() {
  ModelFamilyRules rules = encoder_decoder_rules(kInformerFamily);
  rules.apply_defaults = apply_informer_defaults;
  rules.checkpoint_markers.push_back(kEncoderDecoderDistilMarker);
  return rules;
}

const ModelFamilyRegistrar kInformerRules(informer_rules());
const ModelFamilyRegistrar kTransformerRules(encoder_decoder_rules(kTransformerFamily));
const FamilyLoadingRegistrar kInformerLoading({kInformerFamily, check_encoder_decoder_shapes,
                                               open_encoder_decoder_windows});
const FamilyLoadingRegistrar kTransformerLoading({kTransformerFamily, check_encoder_decoder_shapes,
                                                  open_encoder_decoder_windows});

}  // namespace
}  // namespace tsserve::model
