#include "server/codec/v1/encode_request_decoder.h"

#include "server/codec/common/request_id.h"
#include "server/codec/v1/attention_options.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
Status decode_encode_request(const v1::EncodeRequest& request, const ModelShape& model,
                             const RequestLimits& limits, EncodeInput* out) {
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.request_id(), &out->request_id));
  TSSERVE_RETURN_IF_ERROR(resolve_output_encoding(request.output_encoding(), &out->raw_output));
  if (!model.encode_refusal.empty()) {
    return {StatusCode::kFailedPrecondition, "Encode: " + model.encode_refusal};
  }

  const TensorSpec spec{"tokens", 2, "[L, D]"};
  TensorView tokens;
  TSSERVE_RETURN_IF_ERROR(view_tensor(request.tokens(), spec, &tokens));
  const int64_t length = tokens.dim(0);
  const int64_t width = tokens.dim(1);
  if (width != model.d_model) {
    return invalid_argument("tokens.shape: width D = " + std::to_string(width) + " in [" +
                            std::to_string(length) + ", " + std::to_string(width) +
                            "]; the model's tokens are d_model = " + std::to_string(model.d_model) +
                            " wide");
  }
  if (length == 0)
    return invalid_argument("tokens: no tokens (L = 0 in [L, D]); send at least one");
  if (limits.max_encode_tokens > 0 && length > limits.max_encode_tokens) {
    return invalid_argument("tokens: " + std::to_string(length) + " tokens; at most " +
                            std::to_string(limits.max_encode_tokens) +
                            " per request (max_encode_tokens in GetModelInfo)");
  }
  TSSERVE_RETURN_IF_ERROR(
      resolve_encode_attention(request.attention(), model.e_layers, &out->attention));

  out->values.resize(static_cast<std::size_t>(tokens.size()));
  if (!copy_finite(tokens.bytes(), tokens.size(), out->values.data())) {
    return non_finite_error(spec, tokens, find_non_finite(tokens.bytes(), tokens.size()));
  }
  out->tokens = length;
  return Status();
}

}  // namespace tsserve::server
