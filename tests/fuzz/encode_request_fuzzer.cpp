// Fuzz target: a tsserve.v1 EncodeRequest through decode_encode_request against the
// bundled model's shape and the default limits, and what it accepts through
// encode_encode_response.
//
// Input: byte 0, bit 0: 0: the rest is a serialized EncodeRequest (what does not parse is
// skipped); 1: the rest drives the fields one by one (build_request).
// Invariants: a refusal is INVALID_ARGUMENT naming a field; an acceptance has
// 1 <= L <= max_encode_tokens tokens of width d_model, every value finite and copied bit
// for bit, the documented attention selection (variable 0 only), and encodes into an
// output [L, D] in the requested encoding with the maps in layer order; a successful
// answer is always finite, even for an encoder output holding an extreme value
// (finite_answer_checks.h).

#include <cmath>
#include <string>
#include <vector>

#include "bundled_model_shape.h"
#include "finite_answer_checks.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "request_builder.h"
#include "request_checks.h"
#include "response_checks.h"
#include "server/codec/v1/encode_request_decoder.h"
#include "server/codec/v1/encode_response_encoder.h"
#include "v1_tensor_checks.h"

namespace tsserve::fuzz {
namespace {

v1::EncodeRequest build_request(FuzzInput& in) {
  v1::EncodeRequest request;
  const int64_t length = dimension(in, in.pick<int64_t>({42, 1, 8, 42, 4096, 4097}));
  const int64_t width = dimension(in, 16);
  std::vector<int64_t> shape{length, width};
  if (in.byte() % 16 == 0) shape.resize(in.byte() % 4, 16);  // another rank
  v1::Tensor* tokens = request.mutable_tokens();
  tokens->mutable_shape()->Add(shape.begin(), shape.end());
  const std::vector<float> values = series_values(in, data_count(in, shape));
  const int encoding = in.byte() % 8;
  if (encoding < 4 || encoding == 7) tokens->set_raw_values(raw_bytes(values));
  if (encoding >= 4) tokens->mutable_values()->Add(values.begin(), values.end());

  v1::AttentionOptions* attention = request.mutable_attention();
  attention->set_enabled(in.coin());
  attention->set_average_heads(in.coin());
  for (int k = in.byte() % 5; k > 0; --k)
    attention->add_layers(in.pick<int32_t>({0, 1, 2, 3, -1, 2}));
  if (in.byte() % 8 == 0) attention->add_variables(in.pick<int32_t>({0, 1, -1}));
  request.set_request_id(request_id(in));
  request.set_output_encoding(static_cast<v1::TensorEncoding>(in.pick<int>({0, 1, 2, 3, -2})));
  return request;
}

void check_accepted(const v1::EncodeRequest& request, const server::EncodeInput& input,
                    const server::ModelShape& model) {
  const v1::Tensor& tokens = request.tokens();
  FUZZ_CHECK(tokens.shape_size() == 2 && tokens.shape(1) == model.d_model,
             "accepted tokens of shape rank " + std::to_string(tokens.shape_size()));
  const int64_t length = tokens.shape(0);
  FUZZ_CHECK(length >= 1 && length <= server::RequestLimits{}.max_encode_tokens,
             "accepted L = " + std::to_string(length));
  FUZZ_CHECK(tokens.values_size() == 0 || tokens.raw_values().empty(),
             "accepted both values and raw_values");
  const std::vector<float> sent =
      tokens.raw_values().empty()
          ? std::vector<float>(tokens.values().begin(), tokens.values().end())
          : floats_of(tokens.raw_values());
  FUZZ_CHECK(tokens.raw_values().size() % 4 == 0, "accepted a ragged raw_values");
  FUZZ_CHECK(input.tokens == length &&
                 sent.size() == static_cast<std::size_t>(length * model.d_model) &&
                 input.values.size() == sent.size(),
             "accepted " + std::to_string(sent.size()) + " values for " + std::to_string(length) +
                 " tokens");
  for (std::size_t i = 0; i < sent.size(); ++i) {
    FUZZ_CHECK(std::isfinite(sent[i]), "accepted a non-finite token value");
    FUZZ_CHECK(same_bits(sent[i], input.values[i]),
               "token value " + std::to_string(i) + " changed");
  }
  FUZZ_CHECK(input.raw_output == (request.output_encoding() == v1::TENSOR_ENCODING_RAW),
             "raw_output");
  FUZZ_CHECK(request.output_encoding() >= 0 && request.output_encoding() <= 2,
             "accepted an unknown output_encoding");
  FUZZ_CHECK(request.request_id().empty() ? !input.request_id.empty()
                                          : input.request_id == request.request_id(),
             "request_id \"" + input.request_id + "\"");

  const v1::AttentionOptions& attention = request.attention();
  FUZZ_CHECK(input.attention.enabled == attention.enabled(), "attention.enabled");
  if (attention.enabled()) {
    FUZZ_CHECK(attention.variables().empty(), "accepted attention.variables in an Encode");
    FUZZ_CHECK(input.attention.variables == std::vector<int32_t>{0}, "variables other than {0}");
    FUZZ_CHECK(input.attention.average_heads == attention.average_heads(), "average_heads");
    check_indices(input.attention.layers, attention.layers(), model.e_layers, "layers");
  }
}

void check_response(server::EncodeInput& input, const server::ModelShape& model) {
  server::EncodeOutput output;
  output.output = numbered_forecast(input.tokens, model.d_model);
  bool fits = false;
  output.attention = marked_attention(input.attention, model.n_heads, input.tokens, &fits);
  v1::EncodeResponse response;
  const server::Status status =
      server::encode_encode_response(input, model, std::move(output), &response);
  FUZZ_CHECK(status.ok(), "encode_encode_response: " + status.message());
  const std::vector<float> got =
      response_floats(response.output(), {input.tokens, model.d_model}, input.raw_output);
  for (std::size_t i = 0; i < got.size(); ++i) {
    FUZZ_CHECK(got[i] == static_cast<float>(i), "output value " + std::to_string(i) + " moved");
  }
  FUZZ_CHECK(response.request_id() == input.request_id, "request_id not echoed");
  FUZZ_CHECK(response.model_name() == model.name, "model_name");
  if (fits) {
    check_attention_maps(response.attention(), input.attention, model.n_heads, input.tokens,
                         input.raw_output);
  } else {
    FUZZ_CHECK(response.attention().empty(), "attention maps nobody computed");
  }
}

// A successful answer is always finite (finite_answer_checks.h): an encoder output with
// one extreme value is sent only when that value is finite.
void check_poisoned_response(const server::EncodeInput& input, const server::ModelShape& model) {
  server::EncodeOutput output;
  output.output = numbered_forecast(input.tokens, model.d_model);
  const Poison poison = pick_poison(input.values, output.output.size());
  output.output[poison.at] = poison.value;
  bool fits = false;
  output.attention = marked_attention(input.attention, model.n_heads, input.tokens, &fits);
  v1::EncodeResponse response;
  const server::Status status =
      server::encode_encode_response(input, model, std::move(output), &response);
  const std::vector<float> sent =
      status.ok() ? response_floats(response.output(), {input.tokens, model.d_model},
                                    input.raw_output)
                  : std::vector<float>();
  check_finite_answer(status, std::isfinite(poison.value), sent, "output");
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  v1::EncodeRequest request;
  if (!fuzz::request_from_bytes(data, size, fuzz::build_request, request)) return 0;
  const server::ModelShape model = fuzz::bundled_model_shape(true);
  server::EncodeInput input;
  const server::Status status =
      server::decode_encode_request(request, model, server::RequestLimits{}, &input);
  if (!status.ok()) {
    fuzz::check_refusal(status, {"request_id", "output_encoding", "tokens", "attention.layers",
                                 "attention.variables"});
    return 0;
  }
  fuzz::check_accepted(request, input, model);
  fuzz::check_response(input, model);
  fuzz::check_poisoned_response(input, model);
  return 0;
}
