#pragma once
// The bundled PatchTST checkpoint, which several model tests load.

#include <string>

namespace tsserve::testing {

inline const std::string kBundled =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt";

}  // namespace tsserve::testing
