#pragma once
// What GetModelInfo says about the loaded model, built once at start.

#include "server/config/server_config.h"
#include <string>

#include "tsserve/model/model_config.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// `device` and `threads` say how the runner runs it ("cpu", intra-op threads).
v1::ModelInfo model_info_of(const model::ModelConfig& config, const std::string& device,
                            int threads, const ServerConfig& server);

}  // namespace tsserve::server
