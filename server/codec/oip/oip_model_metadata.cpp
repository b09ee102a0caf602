#include "server/codec/oip/oip_model_metadata.h"

#include <initializer_list>

namespace tsserve::server {
namespace {

void add_tensor(
    const char* name, std::initializer_list<int64_t> shape,
    google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
  auto* tensor = out->Add();
  tensor->set_name(name);
  tensor->set_datatype(kOipFp32);
  tensor->mutable_shape()->Add(shape.begin(), shape.end());
}

}  // namespace

inference::ModelMetadataResponse oip_model_metadata(const ModelShape& model) {
  inference::ModelMetadataResponse metadata;
  metadata.set_name(model.name);
  metadata.add_versions(model.version);
  metadata.set_platform(kOipPlatform);
  add_tensor(kOipSeriesInput, {-1, model.seq_len, -1}, metadata.mutable_inputs());
  add_tensor(kOipForecastOutput, {-1, model.pred_len, -1}, metadata.mutable_outputs());
  // [B, V, L, H, P, P]; H is n_heads, or 1 with attention_average_heads.
  add_tensor(kOipAttentionOutput, {-1, -1, -1, -1, model.patch_count, model.patch_count},
             metadata.mutable_outputs());
  return metadata;
}

}  // namespace tsserve::server
