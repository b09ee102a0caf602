#include "server/codec/oip/oip_model_metadata.h"

#include <initializer_list>

#include "server/codec/oip/oip_timestamps.h"

namespace tsserve::server {
namespace {

void add_tensor(
    const char* name, const char* datatype, std::initializer_list<int64_t> shape,
    google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
  auto* tensor = out->Add();
  tensor->set_name(name);
  tensor->set_datatype(datatype);
  tensor->mutable_shape()->Add(shape.begin(), shape.end());
}

}  // namespace

inference::ModelMetadataResponse oip_model_metadata(const ModelShape& model) {
  inference::ModelMetadataResponse metadata;
  metadata.set_name(model.name);
  metadata.add_versions(model.version);
  metadata.set_platform(kOipPlatform);
  // An iTransformer with a fixed N says it; its maps are over N + C tokens.
  const bool fixed_n = model.is_itransformer() && !model.any_variable_count;
  const int64_t variables = fixed_n ? model.enc_in : -1;
  const int64_t tokens = model.is_itransformer() && !fixed_n ? -1 : model.attention_tokens(variables);
  add_tensor(kOipSeriesInput, kOipFp32, {-1, model.seq_len, variables}, metadata.mutable_inputs());
  add_tensor(kOipTimestampsInput, kOipInt64, {-1, -1}, metadata.mutable_inputs());
  add_tensor(kOipForecastOutput, kOipFp32, {-1, model.pred_len, variables},
             metadata.mutable_outputs());
  // [B, V, L, H, P, P]; H is n_heads, or 1 with attention_average_heads. An iTransformer's
  // V is 1 (a map spans the sample's variables).
  add_tensor(kOipAttentionOutput, kOipFp32,
             {-1, model.is_itransformer() ? 1 : -1, -1, -1, tokens, tokens},
             metadata.mutable_outputs());
  if (!model.calibration.empty()) {
    for (const char* bound : {kOipLowerOutput, kOipUpperOutput}) {
      add_tensor(bound, kOipFp32, {-1, -1, model.pred_len, variables}, metadata.mutable_outputs());
    }
  }
  return metadata;
}

}  // namespace tsserve::server
