#include "server/codec/v1/attention_options.h"

namespace tsserve::server {

AttentionRequest attention_request_of(const v1::AttentionOptions& options) {
  AttentionRequest request;
  request.enabled = options.enabled();
  request.average_heads = options.average_heads();
  request.layers.assign(options.layers().begin(), options.layers().end());
  request.variables.assign(options.variables().begin(), options.variables().end());
  request.decoder = options.decoder();
  return request;
}

Status resolve_forecast_attention(const v1::AttentionOptions& options, int64_t e_layers,
                                  int64_t variables, AttentionSelection* out,
                                  const AttentionFields& fields) {
  return resolve_forecast_attention(attention_request_of(options), e_layers, variables, out,
                                    fields);
}

Status resolve_encode_attention(const v1::AttentionOptions& options, int64_t e_layers,
                                AttentionSelection* out) {
  return resolve_encode_attention(attention_request_of(options), e_layers, out);
}

}  // namespace tsserve::server
