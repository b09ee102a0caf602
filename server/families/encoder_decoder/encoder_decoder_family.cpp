// TSLib's encoder-decoder forecasters as served families: Informer (ProbSparse attention,
// distilling) and the vanilla Transformer (Full attention), one forecaster for both
// (model::EncoderDecoder). A request's unit is a sample of enc_in variables with
// timestamps: the model reads the time marks of the input steps and of the forecast's
// steps continued from them. Its attention maps are per sample and encoder layer, over
// time steps (the layers' lengths shrink with distilling).
//
// Served: features "M" with c_out = enc_in (a forecast per input variable), "S" (one
// variable) and "MS" (N variables in, the target out: the sample's last variable, as
// TSLib's loader puts the target last; ModelShape::forecast_variables = 1). "M" with
// c_out != enc_in is refused at load: which variables its columns are goes unsaid.

#include "tsserve/model/encoder_decoder_family.h"

#include "server/families/encoder_decoder/encoder_decoder_batches.h"
#include "server/families/model_family_definition.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/encoder_decoder_checkpoint.h"
#include "tsserve/model/encoder_decoder_forecaster.h"
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
    shape->encode_refusal = "this " + config.family +
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

const FamilyDefinitionRegistrar kInformer({model::kInformerFamily, describe_encoder_decoder,
                                           load_encoder_decoder});
const FamilyDefinitionRegistrar kTransformer({model::kTransformerFamily, describe_encoder_decoder,
                                              load_encoder_decoder});

}  // namespace

}  // namespace tsserve::server
