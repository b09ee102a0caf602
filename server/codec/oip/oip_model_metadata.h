#pragma once
// How the forecast model looks through the Open Inference Protocol (KServe v2): its one
// input and two outputs, by name, datatype and shape, and the ModelMetadata answer.
//
//   input  "series"    FP32 [B, T, N]  B samples of N variables, T points each, oldest first
//                                      (PatchTST's own [batch, time, variables]);
//                                      ModelMetadata says [-1, T, -1]
//   output "forecast"  FP32 [B, F, N]  the next F points, in the units of the series
//   input  "timestamps" INT64 [B, T_in] optional (oip_timestamps.h): the Unix seconds of
//                                      each point; required by an iTransformer with
//                                      calendar tokens
//   output "attention" FP32 [B, V, L, H, P, P]: V selected variables, L selected layers,
//                                      H heads (1 when averaged), P patch tokens; only
//                                      when the request lists it in `outputs`.
//                                      iTransformer: V = 1 and P = N' = N + C tokens,
//                                      named in the response's parameter
//                                      "attention_token_names" (comma-separated)
//   output "forecast_lower", "forecast_upper" FP32 [L, B, F, N]: prediction intervals at
//                                      the L levels of parameters["interval_levels"], only
//                                      when the request sets it and the model is calibrated
//                                      (listed in metadata only then)
// An iTransformer that takes exactly enc_in variables says so: N = enc_in in the shapes.

#include "inference/grpc_service.pb.h"
#include "server/request/model_shape.h"

namespace tsserve::server {

inline constexpr char kOipSeriesInput[] = "series";
inline constexpr char kOipForecastOutput[] = "forecast";
inline constexpr char kOipAttentionOutput[] = "attention";
inline constexpr char kOipLowerOutput[] = "forecast_lower";
inline constexpr char kOipUpperOutput[] = "forecast_upper";
inline constexpr char kOipFp32[] = "FP32";
// ModelMetadata's platform: the framework and format that runs the model.
inline constexpr char kOipPlatform[] = "pytorch_libtorch";

// ModelMetadata for `model`: its name, its one version, the platform, the input and outputs
// above (-1 for the dimensions the request decides).
inference::ModelMetadataResponse oip_model_metadata(const ModelShape& model);

}  // namespace tsserve::server
