#pragma once
// What GetModelInfo says about the loaded model, built once at start.

#include "server/config/server_config.h"
#include "server/families/served_model.h"
#include "tsserve/model/model_config.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// `served` says how it runs: device, intra-op threads, the forward's kernels.
v1::ModelInfo model_info_of(const model::ModelConfig& config, const ServedModel& served,
                            const ServerConfig& server);

}  // namespace tsserve::server
