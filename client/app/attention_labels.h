#pragma once
// The names of a Forecast's attention tokens, for the heatmaps' axes. An iTransformer's
// maps name their tokens themselves (AttentionMap.token_names: variables, then calendar
// features); a PatchTST's tokens are patches, named here by the input steps each covers.

#include <string>
#include <vector>

#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::client::cli {

// One label per patch (info.patch_count) of a PatchTST whose window held `row_labels`
// (the CSV rows sent, oldest first; the model reads the last seq_len of them):
//  - no row labels: the steps before the forecast start, "-336..-321" (the first patch of
//    a 336-step input); the last patch, padded past the input by repeating its last
//    point, reads "-8..-1+pad";
//  - row labels (the CSV has a date column): the label of the patch's first row.
// Empty when info names no patches (another family, or an old server).
std::vector<std::string> patch_labels(const v1::ModelInfo& info,
                                      const std::vector<std::string>& row_labels);

}  // namespace tsserve::client::cli
