#pragma once
// A request's attention options (AttentionRequest, as each protocol's codec read them)
// resolved against the model and the request: which encoder layers and which variables
// get attention maps.

#include <cstdint>

#include "server/request/attention_request.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// How messages name the index lists: tsserve.v1's fields, or another protocol's.
struct AttentionFields {
  const char* layers = "attention.layers";
  const char* variables = "attention.variables";
  const char* decoder = "attention.decoder";
};

// Forecast: `variables` is N, the request's variable count. When options.enabled is
// false, *out is disabled and nothing else is looked at (not validated).
// INVALID_ARGUMENT for an index out of range or repeated, e.g.
// "attention.layers: layer 5 is out of range 0..2".
Status resolve_forecast_attention(const AttentionRequest& options, int64_t e_layers,
                                  int64_t variables, AttentionSelection* out,
                                  const AttentionFields& fields = {});

// Encode: as above, and `variables` must be empty (an Encode request is one sequence);
// the selection's variables are {0}.
Status resolve_encode_attention(const AttentionRequest& options, int64_t e_layers,
                                AttentionSelection* out);

}  // namespace tsserve::server
