// Fuzz target: an Open Inference Protocol ModelInferRequest through
// decode_model_infer_request against the bundled model's shape and the default limits,
// and what it accepts through encode_model_infer_response.
//
// Input: byte 0, bit 0: 0: the rest is a serialized ModelInferRequest (what does not
// parse is skipped); 1: the rest drives the fields (oip_request_builder.h); bit 1: the
// model with (0) or without (1) its scaler.
// Invariants: a refusal is INVALID_ARGUMENT naming a field (FAILED_PRECONDITION only for
// scaler_mode "required" without a scaler); an acceptance has one FP32 input "series"
// [B, T_in, N] whose data fill it, B * N <= max_series_rows, T_in >= T, and holds exactly the
// documented rows and attention selection (over every sample) with the parameters'
// meaning read here independently; its response carries the requested outputs in order,
// [B, F, N] forecast values where the protocol puts them. Extreme magnitudes: the accepted
// rows are within the normalisation's line, and a successful answer is always finite
// (finite_answer_checks.h).

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "bundled_model_shape.h"
#include "finite_answer_checks.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "oip_request_builder.h"
#include "request_checks.h"
#include "response_checks.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/oip/oip_response_encoder.h"

namespace tsserve::fuzz {
namespace {

using inference::InferParameter;

// "a, b" -> {"a", "b"}: the parameters' list syntax (oip_parameters.h).
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',') {
      items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  for (std::string& item : items) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
  }
  return items;
}

// What an accepted request's parameters mean, read from the documented syntax.
struct ExpectedOptions {
  int scaler_mode = v1::SCALER_MODE_UNSPECIFIED;
  google::protobuf::RepeatedPtrField<std::string> names;
  google::protobuf::RepeatedField<int32_t> layers;
  google::protobuf::RepeatedField<int32_t> variables;
  bool average_heads = false;
};

void read_indices(const InferParameter& value, google::protobuf::RepeatedField<int32_t>* out) {
  if (value.parameter_choice_case() == InferParameter::kInt64Param) {
    out->Add(static_cast<int32_t>(value.int64_param()));
    return;
  }
  for (const std::string& item : split_list(value.string_param())) {
    out->Add(static_cast<int32_t>(std::strtoll(item.c_str(), nullptr, 10)));
  }
}

ExpectedOptions expected_options(const inference::ModelInferRequest& request) {
  ExpectedOptions options;
  for (const auto& [name, value] : request.parameters()) {
    if (name == "scaler_mode") {
      const std::string& mode = value.string_param();
      FUZZ_CHECK(mode == "auto" || mode == "none" || mode == "required",
                 "accepted scaler_mode \"" + mode + "\"");
      options.scaler_mode = mode == "none"       ? v1::SCALER_MODE_NONE
                            : mode == "required" ? v1::SCALER_MODE_REQUIRED
                                                 : v1::SCALER_MODE_UNSPECIFIED;
    } else if (name == "variable_names") {
      for (const std::string& item : split_list(value.string_param())) {
        FUZZ_CHECK(!item.empty(), "accepted an empty variable name");
        *options.names.Add() = item;
      }
    } else if (name == "attention_layers") {
      read_indices(value, &options.layers);
    } else if (name == "attention_variables") {
      read_indices(value, &options.variables);
    } else if (name == "attention_average_heads") {
      FUZZ_CHECK(value.parameter_choice_case() == InferParameter::kBoolParam,
                 "accepted a non-bool attention_average_heads");
      options.average_heads = value.bool_param();
    } else {
      FUZZ_CHECK(false, "accepted the unknown parameter \"" + name + "\"");
    }
  }
  return options;
}

std::vector<server::OipOutput> expected_outputs(const inference::ModelInferRequest& request) {
  std::vector<server::OipOutput> outputs;
  for (const auto& output : request.outputs()) {
    FUZZ_CHECK(output.parameters().empty(), "accepted output parameters");
    FUZZ_CHECK(output.name() == "forecast" || output.name() == "attention",
               "accepted the output \"" + output.name() + "\"");
    const auto kind =
        output.name() == "forecast" ? server::OipOutput::kForecast : server::OipOutput::kAttention;
    for (server::OipOutput listed : outputs) FUZZ_CHECK(listed != kind, "accepted a repeat");
    outputs.push_back(kind);
  }
  if (outputs.empty()) outputs.push_back(server::OipOutput::kForecast);
  return outputs;
}

SentSeries sent_series(const inference::ModelInferRequest& request, bool raw) {
  FUZZ_CHECK(request.inputs_size() == 1,
             "accepted " + std::to_string(request.inputs_size()) + " inputs");
  const auto& input = request.inputs(0);
  FUZZ_CHECK(input.name() == "series" && input.datatype() == "FP32" && input.parameters().empty() &&
                 input.shape_size() == 3,
             "accepted input \"" + input.name() + "\" " + input.datatype());
  FUZZ_CHECK(raw == (request.raw_input_contents_size() > 0), "reply.raw");
  SentSeries sent;
  sent.by_variable = false;  // [B, T_in, N]
  sent.samples = input.shape(0);
  sent.points = input.shape(1);
  sent.variables = input.shape(2);
  FUZZ_CHECK(sent.samples >= 1 && sent.variables >= 1 && sent.points >= 336 &&
                 sent.samples * sent.variables <= server::RequestLimits{}.max_series_rows,
             "accepted shape [" + std::to_string(sent.samples) + ", " +
                 std::to_string(sent.points) + ", " + std::to_string(sent.variables) + "]");
  if (raw) {
    FUZZ_CHECK(request.raw_input_contents_size() == 1 && input.contents().ByteSizeLong() == 0,
               "accepted raw contents beside other data");
    sent.values = floats_of(request.raw_input_contents(0));
    FUZZ_CHECK(request.raw_input_contents(0).size() % 4 == 0, "accepted ragged raw contents");
  } else {
    sent.values.assign(input.contents().fp32_contents().begin(),
                       input.contents().fp32_contents().end());
  }
  FUZZ_CHECK(
      static_cast<int64_t>(sent.values.size()) == sent.samples * sent.points * sent.variables,
      "accepted " + std::to_string(sent.values.size()) + " values for its shape");
  return sent;
}

void check_accepted(const inference::ModelInferRequest& request, const server::ForecastInput& input,
                    const server::OipReply& reply, const server::ModelShape& model) {
  FUZZ_CHECK(reply.id == request.id(), "id not kept as sent");
  FUZZ_CHECK(reply.outputs == expected_outputs(request), "outputs");
  const ExpectedOptions options = expected_options(request);
  const SentSeries sent = sent_series(request, reply.raw);
  FUZZ_CHECK(input.raw_output == reply.raw && !input.variables_by_time, "layout or encoding");
  const auto& names = options.names;
  FUZZ_CHECK(names.empty() || names.size() == sent.variables, "accepted a names count");
  const std::vector<int32_t> columns =
      expected_scaler_columns(options.scaler_mode, names, sent.variables, model);
  FUZZ_CHECK(options.scaler_mode != v1::SCALER_MODE_REQUIRED || !columns.empty(),
             "scaler_mode \"required\" accepted without the scaler applying");
  check_rows(input, sent, columns, model);
  check_within_normalisation_line(input, model);

  bool wants_attention = false;
  for (server::OipOutput output : reply.outputs) {
    wants_attention |= output == server::OipOutput::kAttention;
  }
  const server::AttentionSelection& selection = input.attention;
  FUZZ_CHECK(selection.enabled == wants_attention, "attention enabled without the output");
  if (!wants_attention) return;
  FUZZ_CHECK(selection.average_heads == options.average_heads, "average_heads");
  check_indices(selection.layers, options.layers, model.e_layers, "layers");
  // The variables of sample 0; every sample's are the same, offset by b * N.
  const std::size_t per_sample_count =
      selection.variables.size() / static_cast<std::size_t>(sent.samples);
  const std::vector<int32_t> per_sample(
      selection.variables.begin(),
      selection.variables.begin() + static_cast<std::ptrdiff_t>(per_sample_count));
  check_indices(per_sample, options.variables, sent.variables, "variables");
  for (std::size_t i = 0; i < selection.variables.size(); ++i) {
    const std::size_t b = i / per_sample.size();
    FUZZ_CHECK(selection.variables[i] ==
                   static_cast<int32_t>(b) * sent.variables + per_sample[i % per_sample.size()],
               "the selection is not the same variables of every sample");
  }
}

std::vector<float> output_floats(const inference::ModelInferResponse& response, int index,
                                 bool raw) {
  if (raw) {
    FUZZ_CHECK(response.raw_output_contents_size() == response.outputs_size(),
               "raw_output_contents do not match the outputs");
    FUZZ_CHECK(response.outputs(index).contents().ByteSizeLong() == 0, "contents beside raw");
    return floats_of(response.raw_output_contents(index));
  }
  FUZZ_CHECK(response.raw_output_contents_size() == 0, "raw output for typed input");
  const auto& values = response.outputs(index).contents().fp32_contents();
  return {values.begin(), values.end()};
}

void check_response(server::ForecastInput& input, const server::OipReply& reply,
                    const server::ModelShape& model) {
  server::ForecastOutput output;
  output.forecast = numbered_forecast(input.series_rows, model.pred_len);
  bool fits = true;
  if (input.attention.enabled) {
    output.attention = marked_attention(input.attention, model.n_heads, model.patch_count, &fits);
  }
  if (!fits) return;  // every selected map must be there: too many to build for one input
  output.batch_rows = static_cast<int32_t>(input.series_rows);
  inference::ModelInferResponse response;
  const server::Status status =
      server::encode_model_infer_response(input, reply, model, std::move(output), &response);
  FUZZ_CHECK(status.ok(), "encode_model_infer_response: " + status.message());
  FUZZ_CHECK(response.id() == reply.id && response.model_name() == model.name &&
                 response.outputs_size() == static_cast<int>(reply.outputs.size()),
             "id, model name or output count");
  const int64_t samples = input.samples;
  const int64_t n = input.series_rows / samples;
  const server::AttentionSelection& selection = input.attention;
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& tensor = response.outputs(i);
    const std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
    const std::vector<float> got = output_floats(response, i, reply.raw);
    FUZZ_CHECK(tensor.datatype() == "FP32", "output datatype " + tensor.datatype());
    if (reply.outputs[static_cast<std::size_t>(i)] == server::OipOutput::kForecast) {
      FUZZ_CHECK(tensor.name() == "forecast" &&
                     shape == std::vector<int64_t>({samples, model.pred_len, n}),
                 "forecast output shape");
      check_forecast_values(got, input, model);
      continue;
    }
    const int64_t heads = selection.average_heads ? 1 : model.n_heads;
    const int64_t per_map = heads * model.patch_count * model.patch_count;
    const auto v = static_cast<int64_t>(selection.variables.size()) / samples;
    const auto l = static_cast<int64_t>(selection.layers.size());
    FUZZ_CHECK(tensor.name() == "attention" &&
                   shape == std::vector<int64_t>(
                                {samples, v, l, heads, model.patch_count, model.patch_count}),
               "attention output shape");
    for (std::size_t k = 0; k < got.size(); ++k) {
      const auto map = static_cast<int64_t>(k) / per_map;  // (b * V + v) * L + l
      const int32_t row = selection.variables[static_cast<std::size_t>(map / l)];
      const int32_t layer = selection.layers[static_cast<std::size_t>(map % l)];
      FUZZ_CHECK(got[k] == attention_marker(row, layer), "attention weights of another map");
    }
  }
}

// A successful answer is always finite (finite_answer_checks.h), with the poison in the
// forecast, when the reply sends one.
void check_poisoned_response(const server::ForecastInput& input, const server::OipReply& reply,
                             const server::ModelShape& model) {
  int forecast_index = -1;
  for (std::size_t i = 0; i < reply.outputs.size(); ++i) {
    if (reply.outputs[i] == server::OipOutput::kForecast) forecast_index = static_cast<int>(i);
  }
  if (forecast_index < 0) return;
  server::ForecastOutput output;
  bool fits = true;
  if (input.attention.enabled) {
    output.attention = marked_attention(input.attention, model.n_heads, model.patch_count, &fits);
  }
  if (!fits) return;
  output.forecast = numbered_forecast(input.series_rows, model.pred_len);
  const Poison poison = pick_poison(input.rows, output.forecast.size());
  output.forecast[poison.at] = poison.value;
  inference::ModelInferResponse response;
  const server::Status status =
      server::encode_model_infer_response(input, reply, model, std::move(output), &response);
  const std::vector<float> sent =
      status.ok() ? output_floats(response, forecast_index, reply.raw) : std::vector<float>();
  check_finite_answer(status, sendable_forecast_value(input, model, poison.at, poison.value), sent,
                      "outputs[" + std::to_string(forecast_index) + "] (\"forecast\")");
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  inference::ModelInferRequest request;
  if (!fuzz::request_from_bytes(data, size, fuzz::build_model_infer_request, request)) return 0;
  const server::ModelShape model = fuzz::bundled_model_shape((data[0] & 2) == 0);
  server::ForecastInput input;
  server::OipReply reply;
  const server::Status status =
      server::decode_model_infer_request(request, model, server::RequestLimits{}, &input, &reply);
  if (!status.ok()) {
    bool required = false;
    for (const auto& [name, value] : request.parameters()) {
      required |= name == "scaler_mode" && value.string_param() == "required";
    }
    fuzz::check_refusal(status, {"id", "parameters", "outputs", "inputs", "raw_input_contents"},
                        required && !model.has_scaler());
    return 0;
  }
  fuzz::check_accepted(request, input, reply, model);
  fuzz::check_response(input, reply, model);
  fuzz::check_poisoned_response(input, reply, model);
  return 0;
}
