// Fuzz target: AttentionOptions (attention.proto) resolved by resolve_forecast_attention
// and resolve_encode_attention against a model of 1..8 layers and a request of 0..1023
// variables, under tsserve.v1's field names or the Open Inference Protocol's.
//
// Input: byte 0: layers (1 + byte % 8) and bit 3: the OIP field names; bytes 1-2:
// variables; byte 3, bit 0: 0: the rest is a serialized AttentionOptions (what does not
// parse is skipped); 1: the rest drives the fields one by one.
// Invariants: disabled options resolve to a disabled, empty selection whatever they hold;
// enabled ones are accepted exactly when every index is in range and unrepeated (an
// Encode also needs no variables), then select the requested indices sorted, or the full
// range when none were listed; a refusal is INVALID_ARGUMENT naming the offending list.

#include <algorithm>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "request_checks.h"
#include "server/codec/v1/attention_options.h"

namespace tsserve::fuzz {
namespace {

v1::AttentionOptions build_options(FuzzInput& in, int64_t layers, int64_t variables) {
  v1::AttentionOptions options;
  options.set_enabled(in.byte() % 8 != 0);
  options.set_average_heads(in.coin());
  for (int k = in.byte() % 6; k > 0; --k) {
    options.add_layers(static_cast<int32_t>(
        in.pick<int64_t>({0, 1, layers - 1, layers, -1, INT32_MIN, INT32_MAX, in.byte() % 9})));
  }
  for (int k = in.byte() % 6; k > 0; --k) {
    options.add_variables(static_cast<int32_t>(in.pick<int64_t>(
        {0, 1, variables - 1, variables, -1, INT32_MAX, static_cast<int64_t>(in.bits(2))})));
  }
  return options;
}

// Whether every index is in [0, extent) and listed once.
bool valid_indices(const google::protobuf::RepeatedField<int32_t>& indices, int64_t extent) {
  std::vector<int32_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
  return std::all_of(sorted.begin(), sorted.end(),
                     [extent](int32_t i) { return i >= 0 && i < extent; });
}

void check_disabled(const server::Status& status, const server::AttentionSelection& selection) {
  FUZZ_CHECK(status.ok() && !selection.enabled && selection.layers.empty() &&
                 selection.variables.empty() && !selection.average_heads,
             "disabled options gave a selection or an error: " + status.message());
}

void check_forecast(const v1::AttentionOptions& options, int64_t layers, int64_t variables,
                    const server::AttentionFields& fields) {
  server::AttentionSelection selection;
  selection.layers = {99};  // resolving replaces whatever the selection held
  const server::Status status =
      server::resolve_forecast_attention(options, layers, variables, &selection, fields);
  if (!options.enabled()) return check_disabled(status, selection);
  const bool layers_ok = valid_indices(options.layers(), layers);
  const bool variables_ok = valid_indices(options.variables(), variables);
  FUZZ_CHECK(status.ok() == (layers_ok && variables_ok),
             "forecast attention: " + std::string(status.ok() ? "accepted" : "refused") + " (" +
                 status.message() + ")");
  if (!status.ok()) {
    // Layers are checked first, so the message is about them whenever they are wrong.
    check_refusal(status, {layers_ok ? fields.variables : fields.layers});
    return;
  }
  FUZZ_CHECK(selection.enabled && selection.average_heads == options.average_heads(),
             "enabled / average_heads");
  check_indices(selection.layers, options.layers(), layers, "layers");
  check_indices(selection.variables, options.variables(), variables, "variables");
}

void check_encode(const v1::AttentionOptions& options, int64_t layers) {
  server::AttentionSelection selection;
  selection.variables = {5};
  const server::Status status = server::resolve_encode_attention(options, layers, &selection);
  if (!options.enabled()) return check_disabled(status, selection);
  const bool variables_ok = options.variables().empty();
  const bool layers_ok = valid_indices(options.layers(), layers);
  FUZZ_CHECK(status.ok() == (layers_ok && variables_ok),
             "encode attention: " + std::string(status.ok() ? "accepted" : "refused") + " (" +
                 status.message() + ")");
  if (!status.ok()) {
    check_refusal(status, {variables_ok ? "attention.layers" : "attention.variables"});
    return;
  }
  FUZZ_CHECK(selection.enabled && selection.variables == std::vector<int32_t>{0},
             "an Encode selects variable 0 only");
  check_indices(selection.layers, options.layers(), layers, "layers");
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size < 4) return 0;
  const int64_t layers = 1 + data[0] % 8;
  const int64_t variables = (data[1] | (data[2] << 8)) % 1024;
  const server::AttentionFields fields =
      (data[0] & 8) != 0 ? server::AttentionFields{"parameters[\"attention_layers\"]",
                                                   "parameters[\"attention_variables\"]"}
                         : server::AttentionFields{};
  v1::AttentionOptions options;
  if ((data[3] & 1) == 0) {
    if (!options.ParseFromArray(data + 4, static_cast<int>(size - 4))) return 0;
  } else {
    fuzz::FuzzInput in(data + 4, size - 4);
    options = fuzz::build_options(in, layers, variables);
  }
  fuzz::check_forecast(options, layers, variables, fields);
  fuzz::check_encode(options, layers);
  return 0;
}
