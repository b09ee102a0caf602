#include "server/codec/v1/encode_response_encoder.h"

#include <string>

#include "response_common.h"
#include "server/codec/common/attention_maps.h"
#include "server/codec/common/finite_answer.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {

Status encode_encode_response(const EncodeInput& input, const ModelShape& model,
                              EncodeOutput&& result, v1::EncodeResponse* out) {
  const int64_t expected = input.tokens * model.d_model;
  if (static_cast<int64_t>(result.output.size()) != expected) {
    return {StatusCode::kInternal, "output: the encoder returned " +
                                       std::to_string(result.output.size()) + " values for " +
                                       std::to_string(input.tokens) + " tokens x d_model " +
                                       std::to_string(model.d_model)};
  }
  TSSERVE_RETURN_IF_ERROR(check_attention_blocks(result.attention, model.n_heads, input.tokens));
  TSSERVE_RETURN_IF_ERROR(check_encode_finite(input, model, result));

  write_tensor(result.output.data(), {input.tokens, model.d_model}, input.raw_output,
               out->mutable_output());
  std::vector<float>().swap(result.output);
  fill_common_fields(model, std::move(result), input.raw_output, input.request_id, out);
  return Status();
}

}  // namespace tsserve::server
