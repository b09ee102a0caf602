#pragma once
// tsserve.v1's AttentionOptions (attention.proto) -> the neutral AttentionRequest that the
// shared rules check (codec/common/attention_selection.h), and those rules over the
// message itself, for the decoders and tests that hold one.

#include <cstdint>

#include "server/codec/common/attention_selection.h"
#include "server/request/attention_request.h"
#include "server/status/status.h"
#include "tsserve/v1/attention.pb.h"

namespace tsserve::server {

// The options as sent; nothing is checked here.
AttentionRequest attention_request_of(const v1::AttentionOptions& options);

// resolve_forecast_attention / resolve_encode_attention (attention_selection.h) of
// attention_request_of(options): the same selection and the same messages.
Status resolve_forecast_attention(const v1::AttentionOptions& options, int64_t e_layers,
                                  int64_t variables, AttentionSelection* out,
                                  const AttentionFields& fields = {});
Status resolve_encode_attention(const v1::AttentionOptions& options, int64_t e_layers,
                                AttentionSelection* out);

}  // namespace tsserve::server
