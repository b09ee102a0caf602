#pragma once
// The Open Inference Protocol's optional second input, "timestamps": INT64 [B, T_in], the
// Unix seconds (UTC) of every point of every sample of "series" (tsserve.v1's
// ForecastRequest.timestamps, one row per sample). Required by an iTransformer with
// calendar tokens, checked and ignored otherwise, as there.

#include <cstdint>
#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "server/status/status.h"

namespace tsserve::server {

inline constexpr char kOipTimestampsInput[] = "timestamps";
inline constexpr char kOipInt64[] = "INT64";

// Reads request.inputs(index) as [samples, points] INT64 (int64_contents, or
// raw_input_contents[index] little-endian) into *out. INVALID_ARGUMENT naming `field`:
// another datatype, rank or shape, per-tensor parameters, data that does not fill the
// shape, or data in another typed field. The order of the values is checked later
// (sample_request.h check_timestamps).
Status read_oip_timestamps(const inference::ModelInferRequest& request, int index, int64_t samples,
                           int64_t points, const std::string& field, std::vector<int64_t>* out);

}  // namespace tsserve::server
