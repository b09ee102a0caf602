#pragma once
// What the request path and GetModelInfo know about the loaded model, built once at start.

#include "tsserve/model/model_config.h"
#include "tsserve/server/model_runner.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/server/server_config.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

ModelShape model_shape_of(const model::ModelConfig& config);

v1::ModelInfo model_info_of(const model::ModelConfig& config, const ModelRunner& runner,
                            const ServerConfig& server);

}  // namespace tsserve::server
