#include "tsserve/server/encode_response_encoder.h"

#include <string>

#include "tsserve/server/tensor_codec.h"

namespace tsserve::server {

grpc::Status encode_encode_response(const EncodeInput& input, const ModelShape& model,
                                    EncodeOutput&& result, v1::EncodeResponse* out) {
  const int64_t expected = input.tokens * model.d_model;
  if (static_cast<int64_t>(result.output.size()) != expected) {
    return {grpc::StatusCode::INTERNAL, "output: the encoder returned " +
                                            std::to_string(result.output.size()) + " values for " +
                                            std::to_string(input.tokens) + " tokens x d_model " +
                                            std::to_string(model.d_model)};
  }
  grpc::Status status = check_attention_blocks(result.attention, model.n_heads, input.tokens);
  if (!status.ok()) return status;

  write_tensor(result.output.data(), {input.tokens, model.d_model}, input.raw_output,
               out->mutable_output());
  std::vector<float>().swap(result.output);
  out->set_model_name(model.name);
  out->set_model_version(model.version);
  v1::Timing* timing = out->mutable_timing();
  timing->set_queue_seconds(result.queue_seconds);
  timing->set_compute_seconds(result.compute_seconds);
  timing->set_batch_rows(result.batch_rows);
  out->clear_attention();
  encode_attention_maps(std::move(result.attention), input.raw_output, out->mutable_attention());
  out->set_request_id(input.request_id);
  return grpc::Status::OK;
}

}  // namespace tsserve::server
