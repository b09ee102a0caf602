#include "server/codec/common/attention_selection.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace tsserve::server {
namespace {

// Checks `requested` against 0 .. extent-1 and without repeats, in request order so the
// message names the first offender; then stores it sorted, or the full range when empty.
Status resolve_indices(const std::vector<int32_t>& requested, int64_t extent, const char* field,
                       const char* noun, std::vector<int32_t>* out) {
  out->clear();
  if (requested.empty()) {
    out->resize(static_cast<std::size_t>(extent));
    std::iota(out->begin(), out->end(), 0);
    return Status();
  }
  std::vector<bool> seen(static_cast<std::size_t>(extent), false);
  out->reserve(static_cast<std::size_t>(requested.size()));
  for (int32_t index : requested) {
    if (index < 0 || index >= extent) {
      return {StatusCode::kInvalidArgument, std::string(field) + ": " + noun + " " +
                                                std::to_string(index) + " is out of range 0.." +
                                                std::to_string(extent - 1)};
    }
    if (seen[static_cast<std::size_t>(index)]) {
      return {StatusCode::kInvalidArgument, std::string(field) + ": " + noun + " " +
                                                std::to_string(index) +
                                                " is repeated; list each index once"};
    }
    seen[static_cast<std::size_t>(index)] = true;
    out->push_back(index);
  }
  std::sort(out->begin(), out->end());
  return Status();
}

Status resolve_common(const AttentionRequest& options, int64_t e_layers, const char* layers_field,
                      AttentionSelection* out) {
  out->enabled = true;
  out->average_heads = options.average_heads;
  return resolve_indices(options.layers, e_layers, layers_field, "layer", &out->layers);
}

}  // namespace

Status resolve_forecast_attention(const AttentionRequest& options, int64_t e_layers,
                                  int64_t variables, AttentionSelection* out,
                                  const AttentionFields& fields) {
  *out = AttentionSelection{};
  if (!options.enabled) return Status();
  TSSERVE_RETURN_IF_ERROR(resolve_common(options, e_layers, fields.layers, out));
  return resolve_indices(options.variables, variables, fields.variables, "variable",
                         &out->variables);
}

Status resolve_encode_attention(const AttentionRequest& options, int64_t e_layers,
                                AttentionSelection* out) {
  *out = AttentionSelection{};
  if (!options.enabled) return Status();
  if (!options.variables.empty()) {
    return {StatusCode::kInvalidArgument,
            "attention.variables: must be empty in an Encode request (its tokens are one "
            "sequence), got " +
                std::to_string(options.variables.size()) + " indices"};
  }
  TSSERVE_RETURN_IF_ERROR(resolve_common(options, e_layers, AttentionFields{}.layers, out));
  out->variables = {0};
  return Status();
}

}  // namespace tsserve::server
