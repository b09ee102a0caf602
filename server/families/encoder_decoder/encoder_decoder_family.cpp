#include "server/families/encoder_decoder/encoder_decoder_family.h"

#include "server/families/encoder_decoder/encoder_decoder_batches.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/checkpoint_loader.h"
#include "tsserve/model/encoder_lengths.h"

namespace tsserve::server {
namespace {

void describe_encoder_decoder(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kSample;
  shape->any_variable_count = false;
  shape->time_inputs = TimeInputs::kStepMarks;
  shape->mark_embed = config.embed;
  shape->mark_freq = config.freq;
  shape->d_layers = config.d_layers;
  shape->label_len = config.label_len;
  if (config.distil && config.e_layers > 1) {
    shape->encode_refusal = "this " + model::to_string(config.family) +
                            "'s encoder distils (each layer after the first reads about half "
                            "the tokens), so its output does not match the tokens sent";
  }
  shape->map_sides = model::encoder_lengths(config);  // each encoder layer's length
  // "MS": the target alone, the sample's last variable (TSLib's f_dim = -1).
  if (config.features == model::ForecastFeatures::kMS) shape->forecast_variables = 1;
}

LoadedFamily load_encoder_decoder(const std::string& checkpoint, const model::ModelConfig& config,
                                  const std::string& config_origin,
                                  const model::ForecasterOptions& options) {
  model::check_encoder_decoder_servable(config, config_origin);
  return serve_forecaster(
      std::make_unique<model::EncoderDecoderForecaster>(
          model::load_encoder_decoder(checkpoint, config, config_origin), options),
      encoder_decoder_forecast_processor);
}

}  // namespace

ModelFamilyDefinition informer_family() {
  return {model::ModelFamily::kInformer, describe_encoder_decoder, load_encoder_decoder};
}

ModelFamilyDefinition transformer_family() {
  return {model::ModelFamily::kTransformer, describe_encoder_decoder, load_encoder_decoder};
}

}  // namespace tsserve::server
