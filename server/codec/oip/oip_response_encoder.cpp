#include "server/codec/oip/oip_response_encoder.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "server/codec/common/finite_answer.h"
#include "server/codec/common/forecast_values.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/common/tensor_codec.h"
#include "server/codec/oip/oip_model_metadata.h"

namespace tsserve::server {
namespace {

using OutputTensor = inference::ModelInferResponse::InferOutputTensor;

// Declares one FP32 output and returns where its `count` floats go.
unsigned char* add_output(const char* name, const std::vector<int64_t>& shape, bool raw,
                          inference::ModelInferResponse* out) {
  OutputTensor* tensor = out->add_outputs();
  tensor->set_name(name);
  tensor->set_datatype(kOipFp32);
  tensor->mutable_shape()->Add(shape.begin(), shape.end());
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return raw ? resize_raw(out->add_raw_output_contents(), count)
             : resize_values(tensor->mutable_contents()->mutable_fp32_contents(), count);
}

void write_forecast(const ForecastInput& input, const ModelShape& model,
                    const std::vector<float>& forecast, bool raw,
                    inference::ModelInferResponse* out) {
  std::vector<int64_t> shape = forecast_shape(input, model);
  shape.insert(shape.begin(), input.samples);
  store_forecast(input, model, forecast, add_output(kOipForecastOutput, shape, raw, out));
}

// "forecast_lower" and "forecast_upper", [L, B, F, N]: each level's band written as the
// forecast is. OUT_OF_RANGE (finite_answer.h) when a bound is not finite in the series' units.
Status write_intervals(const ForecastInput& input, const ModelShape& model,
                       const std::vector<float>& forecast, bool raw,
                       inference::ModelInferResponse* out) {
  std::vector<IntervalBand> bands;
  std::string levels;
  for (int32_t level : input.interval_levels) {
    bands.push_back(interval_band(input, model, forecast, level));
    std::ostringstream text;
    text << bands.back().level;
    levels += (levels.empty() ? "" : ",") + text.str();
  }
  std::vector<int64_t> shape = forecast_shape(input, model);
  shape.insert(shape.begin(), {static_cast<int64_t>(bands.size()), input.samples});
  const size_t bytes_per_band = forecast.size() * sizeof(float);
  for (const bool upper : {false, true}) {
    const char* name = upper ? kOipUpperOutput : kOipLowerOutput;
    ForecastOutput bound;
    for (size_t l = 0; l < bands.size(); ++l) {
      bound.forecast = upper ? bands[l].upper : bands[l].lower;
      AnswerFields fields;
      fields.forecast = std::string(name) + "[" + std::to_string(l) + "]";
      TSSERVE_RETURN_IF_ERROR(check_forecast_finite(input, model, bound, fields));
    }
    unsigned char* dst = add_output(name, shape, raw, out);
    for (size_t l = 0; l < bands.size(); ++l) {
      store_forecast(input, model, upper ? bands[l].upper : bands[l].lower,
                     dst + l * bytes_per_band);
    }
  }
  (*out->mutable_parameters())["interval_levels"].set_string_param(levels);
  return Status();
}

// Every selected (row, layer) map, sorted so that they lie in [B, V, L] order.
void write_attention(const ForecastInput& input, const ModelShape& model,
                     std::vector<AttentionBlock>&& blocks, bool raw,
                     inference::ModelInferResponse* out) {
  std::sort(blocks.begin(), blocks.end(), [](const AttentionBlock& a, const AttentionBlock& b) {
    return a.variable != b.variable ? a.variable < b.variable : a.layer < b.layer;
  });
  const AttentionSelection& selection = input.attention;
  const auto per_sample = static_cast<int64_t>(selection.variables.size()) / input.samples;
  // One tensor holds every layer's maps: the decoder refuses attention for a model whose
  // layers' sides differ (ModelShape::map_sides_equal).
  const int64_t tokens = model.attention_tokens(input.series_rows / input.samples);
  const std::vector<int64_t> shape = {input.samples,
                                      per_sample,
                                      static_cast<int64_t>(selection.layers.size()),
                                      selection.average_heads ? 1 : model.n_heads,
                                      tokens,
                                      tokens};
  unsigned char* dst = add_output(kOipAttentionOutput, shape, raw, out);
  for (AttentionBlock& block : blocks) {
    std::memcpy(dst, block.weights.data(), block.weights.size() * sizeof(float));
    dst += block.weights.size() * sizeof(float);
    std::vector<float>().swap(block.weights);
  }
}

// The answer's tensors as the request listed them: "outputs[0] (\"forecast\")".
AnswerFields answer_fields(const OipReply& reply) {
  AnswerFields fields;
  for (std::size_t i = 0; i < reply.outputs.size(); ++i) {
    const bool forecast = reply.outputs[i] == OipOutput::kForecast;
    (forecast ? fields.forecast : fields.attention) =
        "outputs[" + std::to_string(i) + "] (\"" +
        (forecast ? kOipForecastOutput : kOipAttentionOutput) + "\")";
  }
  return fields;
}

void set_int(inference::ModelInferResponse* out, const char* name, int64_t value) {
  (*out->mutable_parameters())[name].set_int64_param(value);
}

}  // namespace

Status encode_model_infer_response(const ForecastInput& input, const OipReply& reply,
                                   const ModelShape& model, ForecastOutput&& result,
                                   inference::ModelInferResponse* out) {
  TSSERVE_RETURN_IF_ERROR(check_forecast_output(input, model, result));
  const bool wants_attention = std::find(reply.outputs.begin(), reply.outputs.end(),
                                         OipOutput::kAttention) != reply.outputs.end();
  const std::size_t maps = input.attention.variables.size() * input.attention.layers.size();
  if (wants_attention && (!input.attention.enabled || result.attention.size() != maps)) {
    return {StatusCode::kInternal, "attention: the model returned " +
                                       std::to_string(result.attention.size()) + " maps for " +
                                       std::to_string(maps) + " selected"};
  }
  TSSERVE_RETURN_IF_ERROR(check_forecast_finite(input, model, result, answer_fields(reply)));

  out->set_model_name(model.name);
  out->set_model_version(model.version);
  out->set_id(reply.id);
  set_int(out, "batch_rows", result.batch_rows);
  set_int(out, "input_points_used", input.input_points_used);
  (*out->mutable_parameters())["scaler_applied"].set_bool_param(input.scaler_applied);
  if (wants_attention && !input.attention_token_names.empty()) {
    // An iTransformer's map tokens: the variables, then the calendar features.
    std::string names;
    for (const std::string& name : input.attention_token_names) {
      names += (names.empty() ? "" : ",") + name;
    }
    (*out->mutable_parameters())["attention_token_names"].set_string_param(names);
  }
  for (OipOutput output : reply.outputs) {
    if (output == OipOutput::kForecast) {
      write_forecast(input, model, result.forecast, reply.raw, out);
    } else {
      write_attention(input, model, std::move(result.attention), reply.raw, out);
    }
  }
  if (!input.interval_levels.empty()) {
    return write_intervals(input, model, result.forecast, reply.raw, out);
  }
  return Status();
}

}  // namespace tsserve::server
