#pragma once
// The fields every tsserve.v1 response carries after its main tensor: model name and
// version, timing, attention maps, request id. Forecast and Encode responses name them
// alike, so one template fills both. Internal to tsserve_request_codec.

#include <utility>

#include "server/codec/v1/attention_map_encoder.h"
#include "server/request/model_shape.h"

namespace tsserve::server {

template <typename Response, typename Result>
void fill_common_fields(const ModelShape& model, Result&& result, bool raw_output,
                        const std::string& request_id, Response* out) {
  out->set_model_name(model.name);
  out->set_model_version(model.version);
  auto* timing = out->mutable_timing();
  timing->set_queue_seconds(result.queue_seconds);
  timing->set_compute_seconds(result.compute_seconds);
  timing->set_batch_rows(result.batch_rows);
  out->clear_attention();
  encode_attention_maps(std::move(result.attention), raw_output, out->mutable_attention());
  out->set_request_id(request_id);
}

}  // namespace tsserve::server
