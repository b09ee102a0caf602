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
  // A model with a fixed N says it; maps whose side depends on N (N + C tokens) say -1.
  const int64_t variables = model.fixes_variable_count() ? model.enc_in : -1;
  // -1 too where the layers' sides differ (such a model refuses the attention output).
  const bool unknown = (model.map_sides.empty() && variables < 0) || !model.map_sides_equal();
  const int64_t tokens = unknown ? -1 : model.attention_tokens(variables);
  add_tensor(kOipSeriesInput, kOipFp32, {-1, model.seq_len, variables}, metadata.mutable_inputs());
  add_tensor(kOipTimestampsInput, kOipInt64, {-1, -1}, metadata.mutable_inputs());
  // The forecast's columns: the N variables, or the targets of a model forecasting a subset
  // ("MS": 1, the sample's last variable).
  const int64_t forecast_columns =
      model.forecast_variables > 0 ? model.forecast_variables : variables;
  add_tensor(kOipForecastOutput, kOipFp32, {-1, model.pred_len, forecast_columns},
             metadata.mutable_outputs());
  // [B, V, L, H, P, P]; H is n_heads, or 1 with attention_average_heads. V is 1 for a
  // model with maps per sample (a map spans the sample's variables).
  add_tensor(kOipAttentionOutput, kOipFp32,
             {-1, model.maps_per_sample() ? 1 : -1, -1, -1, tokens, tokens},
             metadata.mutable_outputs());
  if (!model.calibration.empty()) {
    for (const char* bound : {kOipLowerOutput, kOipUpperOutput}) {
      add_tensor(bound, kOipFp32, {-1, -1, model.pred_len, forecast_columns},
                 metadata.mutable_outputs());
    }
  }
  return metadata;
}

}  // namespace tsserve::server
