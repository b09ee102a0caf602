#include "server/codec/oip/oip_request_decoder.h"

#include "server/codec/common/attention_selection.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/common/request_id.h"
#include "server/codec/common/sample_request.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_rows.h"
#include "server/codec/common/tensor_codec.h"
#include "server/codec/oip/oip_model_metadata.h"
#include "server/codec/oip/oip_parameters.h"
#include "server/codec/oip/oip_timestamps.h"

namespace tsserve::server {
namespace {

using InputTensor = inference::ModelInferRequest::InferInputTensor;

std::string expected_input(const ModelShape& model) {
  return std::string("the model takes \"") + kOipSeriesInput + "\" " + kOipFp32 +
         " [B, T, N] with T >= " + std::to_string(model.seq_len) + " and, " +
         (model.calendar.empty() ? "optionally" : "required by its calendar tokens") + ", \"" +
         kOipTimestampsInput + "\" " + kOipInt64 + " [B, T]";
}

Status resolve_outputs(const inference::ModelInferRequest& request, OipReply* reply) {
  reply->outputs.clear();
  for (int i = 0; i < request.outputs_size(); ++i) {
    const auto& wanted = request.outputs(i);
    const std::string field = "outputs[" + std::to_string(i) + "]";
    OipOutput output;
    if (wanted.name() == kOipForecastOutput) {
      output = OipOutput::kForecast;
    } else if (wanted.name() == kOipAttentionOutput) {
      output = OipOutput::kAttention;
    } else {
      return invalid_argument(field + ": unknown output \"" + wanted.name() +
                              "\"; the model has \"" + kOipForecastOutput + "\" and \"" +
                              kOipAttentionOutput + "\"");
    }
    for (OipOutput listed : reply->outputs) {
      if (listed == output)
        return invalid_argument(field + ": \"" + wanted.name() + "\" is listed twice");
    }
    if (!wanted.parameters().empty()) {
      return invalid_argument(field + ".parameters: tsserve reads no output parameters; got \"" +
                              wanted.parameters().begin()->first + "\"");
    }
    reply->outputs.push_back(output);
  }
  if (reply->outputs.empty()) reply->outputs.push_back(OipOutput::kForecast);
  return Status();
}

// The inputs "series" (required) and "timestamps" (optional: -1 when absent);
// INVALID_ARGUMENT for no series, another name, or a repeat.
Status find_inputs(const inference::ModelInferRequest& request, const ModelShape& model,
                   int* series, int* timestamps) {
  if (request.inputs_size() == 0)
    return invalid_argument("inputs: empty; " + expected_input(model));
  *series = -1;
  *timestamps = -1;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const std::string& name = request.inputs(i).name();
    int* slot = name == kOipSeriesInput       ? series
                : name == kOipTimestampsInput ? timestamps
                                              : nullptr;
    if (slot == nullptr) {
      return invalid_argument("inputs[" + std::to_string(i) + "]: unknown input \"" + name +
                              "\"; " + expected_input(model));
    }
    if (*slot >= 0) {
      return invalid_argument("inputs[" + std::to_string(i) + "]: \"" + name +
                              "\" is given twice; " + expected_input(model));
    }
    *slot = i;
  }
  if (*series < 0) return invalid_argument("inputs: no \"series\"; " + expected_input(model));
  return Status();
}

// The typed field that carries data, other than fp32_contents; null when none does.
const char* other_contents(const inference::InferTensorContents& contents) {
  if (contents.bool_contents_size() > 0) return "bool_contents";
  if (contents.int_contents_size() > 0) return "int_contents";
  if (contents.int64_contents_size() > 0) return "int64_contents";
  if (contents.uint_contents_size() > 0) return "uint_contents";
  if (contents.uint64_contents_size() > 0) return "uint64_contents";
  if (contents.fp64_contents_size() > 0) return "fp64_contents";
  if (contents.bytes_contents_size() > 0) return "bytes_contents";
  return nullptr;
}

// Checks the tensor's declaration (datatype, parameters, rank, dimensions) and that its
// data fills the shape, then views the data.
Status view_series(const inference::ModelInferRequest& request, int index, const std::string& field,
                   bool* raw, TensorView* out) {
  const InputTensor& input = request.inputs(index);
  if (input.datatype() != kOipFp32) {
    return invalid_argument(field + ".datatype: \"" + input.datatype() + "\"; the model takes " +
                            kOipFp32);
  }
  if (!input.parameters().empty()) {
    const std::string& name = input.parameters().begin()->first;
    return invalid_argument(
        field + ".parameters: tsserve reads no input parameters; got \"" + name + "\"" +
        (name.rfind("shared_memory", 0) == 0 ? " (shared memory is not supported)" : ""));
  }
  if (input.shape_size() != 3) {
    return invalid_argument(field + ".shape: expected 3 dimensions [B, T, N], got " +
                            std::to_string(input.shape_size()) + " " + format_shape(input.shape()));
  }
  for (int i = 0; i < input.shape_size(); ++i) {
    if (input.shape(i) < 0) {
      return invalid_argument(field + ".shape: dimension " + std::to_string(i) + " of " +
                              format_shape(input.shape()) +
                              " is negative; dimensions must be >= 0");
    }
  }
  int64_t count = 0;
  if (!element_count(input.shape(), &count)) {
    return invalid_argument(field + ".shape: " + format_shape(input.shape()) +
                            " has too many elements");
  }
  const std::string elements =
      "shape " + format_shape(input.shape()) + " has " + std::to_string(count) + " elements";

  *raw = request.raw_input_contents_size() > 0;
  if (*raw) {
    if (request.raw_input_contents_size() != request.inputs_size()) {
      return invalid_argument(
          "raw_input_contents: " + std::to_string(request.raw_input_contents_size()) +
          " entries for " + std::to_string(request.inputs_size()) +
          " input; give one per input, in the order of inputs");
    }
    if (input.has_contents() && input.contents().ByteSizeLong() > 0) {
      return invalid_argument(field +
                              ".contents: set although raw_input_contents carries the data; "
                              "send it in one of them");
    }
    const std::string& bytes = request.raw_input_contents(index);
    // A count that fits int64 may still overflow as bytes (shapes near 2^62 elements, found
    // by tests/fuzz); no message carries that many.
    int64_t expected = 0;
    const bool addressable = !__builtin_mul_overflow(count, int64_t{4}, &expected);
    if (!addressable || static_cast<int64_t>(bytes.size()) != expected) {
      return invalid_argument("raw_input_contents[" + std::to_string(index) +
                              "]: " + std::to_string(bytes.size()) + " bytes, but " + elements +
                              " of " + kOipFp32 + ", " +
                              (addressable ? std::to_string(expected) + " bytes"
                                           : std::string("more bytes than a message can carry")) +
                              " (4 per element, little-endian)");
    }
    *out = view_checked_floats(input.shape(), reinterpret_cast<const unsigned char*>(bytes.data()),
                               count);
    return Status();
  }
  if (const char* other = other_contents(input.contents())) {
    return invalid_argument(field + ".contents: " + other + " is set; " + kOipFp32 +
                            " data goes in fp32_contents (or raw_input_contents)");
  }
  const auto& values = input.contents().fp32_contents();
  if (values.size() != count) {
    return invalid_argument(field + ".contents.fp32_contents: " + std::to_string(values.size()) +
                            " values, but " + elements + "; they must match" +
                            (values.empty() ? " (send fp32_contents or raw_input_contents)" : ""));
  }
  *out = view_checked_floats(input.shape(), reinterpret_cast<const unsigned char*>(values.data()),
                             count);
  return Status();
}

// The attention selection over one sample's N variables, repeated for every sample.
void spread_over_samples(int64_t samples, int64_t variables, AttentionSelection* selection) {
  if (!selection->enabled) return;
  std::vector<int32_t> rows;
  rows.reserve(static_cast<std::size_t>(samples) * selection->variables.size());
  for (int64_t b = 0; b < samples; ++b) {
    for (int32_t v : selection->variables) rows.push_back(static_cast<int32_t>(b * variables + v));
  }
  selection->variables = std::move(rows);
}

}  // namespace

Status decode_model_infer_request(const inference::ModelInferRequest& request,
                                  const ModelShape& model, const RequestLimits& limits,
                                  ForecastInput* input, OipReply* reply) {
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.id(), &input->request_id, "id"));
  reply->id = request.id();
  OipOptions options;
  TSSERVE_RETURN_IF_ERROR(resolve_oip_parameters(request.parameters(), &options));
  TSSERVE_RETURN_IF_ERROR(resolve_outputs(request, reply));
  for (OipOutput output : reply->outputs) {
    if (output == OipOutput::kAttention) options.attention.enabled = true;
  }
  if (options.attention.enabled && model.covariate_maps) {
    return invalid_argument(
        std::string("outputs (\"") + kOipAttentionOutput + "\"): this " + model.family +
        "'s maps are of two kinds (its patches' self-attention [H, L, L] and its global "
        "tokens' attention over the covariates [H, 1, V]), which one [B, V, L, H, P, P] tensor "
        "cannot hold; ask tsserve.v1 Forecast or the HTTP API's /v1 forecast for them");
  }
  if (options.attention.enabled && !model.map_sides_equal()) {
    return invalid_argument(
        std::string("outputs (\"") + kOipAttentionOutput + "\"): this " + model.family +
        "'s layers have attention maps of different sides (its distilling layers shorten the "
        "sequence), which one [B, V, L, H, P, P] tensor cannot hold; ask tsserve.v1 Forecast or "
        "the HTTP API's /v1 forecast for them");
  }

  int index = 0;
  int timestamps_index = -1;
  TSSERVE_RETURN_IF_ERROR(find_inputs(request, model, &index, &timestamps_index));
  const std::string field = "inputs[" + std::to_string(index) + "] (\"" + kOipSeriesInput + "\")";
  TensorView series;
  TSSERVE_RETURN_IF_ERROR(view_series(request, index, field, &reply->raw, &series));

  SeriesGeometry g;
  g.by_variable = false;
  g.samples = series.dim(0);
  g.points = series.dim(1);
  g.variables = series.dim(2);
  g.used = model.seq_len;
  const SeriesNames names{
      {field.c_str(), 3, "[B, T, N]"}, "batch, time, variables", "parameter scaler_mode \"none\""};
  TSSERVE_RETURN_IF_ERROR(check_series_geometry(g, names, limits));
  TSSERVE_RETURN_IF_ERROR(
      check_variable_names(options.variable_names, g.variables, "parameters[\"variable_names\"]"));
  TSSERVE_RETURN_IF_ERROR(check_sample_variables(g, names, model));
  std::vector<int64_t> timestamps;
  const std::string timestamps_field =
      timestamps_index < 0 ? std::string("inputs (\"timestamps\")")
                           : "inputs[" + std::to_string(timestamps_index) + "] (\"timestamps\")";
  if (timestamps_index >= 0) {
    TSSERVE_RETURN_IF_ERROR(read_oip_timestamps(request, timestamps_index, g.samples, g.points,
                                                timestamps_field, &timestamps));
  }
  TSSERVE_RETURN_IF_ERROR(check_timestamps(
      timestamps.data(), static_cast<int64_t>(timestamps.size()), g, timestamps_field));
  ScalerMatch scaler;
  const ScalerFields scaler_fields{"parameters[\"scaler_mode\"]", "scaler_mode \"required\"",
                                   "scaler_mode \"none\"", "parameters[\"variable_names\"]",
                                   field.c_str()};
  TSSERVE_RETURN_IF_ERROR(match_scaler(options.scaler_mode, options.variable_names, g.variables,
                                       model, &scaler, scaler_fields));
  const AttentionFields attention_fields{"parameters[\"attention_layers\"]",
                                         "parameters[\"attention_variables\"]"};
  TSSERVE_RETURN_IF_ERROR(gather_time_inputs(timestamps.data(),
                                             static_cast<int64_t>(timestamps.size()), g, model,
                                             timestamps_field, input));
  if (model.maps_per_sample()) {
    // One map per sample and layer: the selection's "variables" are the samples.
    TSSERVE_RETURN_IF_ERROR(resolve_sample_attention(
        options.attention, g, model, options.variable_names, input, attention_fields));
  } else {
    TSSERVE_RETURN_IF_ERROR(resolve_forecast_attention(
        options.attention, model.e_layers, g.variables, &input->attention, attention_fields));
    spread_over_samples(g.samples, g.variables, &input->attention);
  }
  input->raw_output = reply->raw;
  TSSERVE_RETURN_IF_ERROR(
      gather_series(series, g, names, options.variable_names, model, std::move(scaler), input));
  return resolve_interval_levels(options.interval_levels, *input, model,
                                 "parameters[\"interval_levels\"]", &input->interval_levels);
}

}  // namespace tsserve::server
