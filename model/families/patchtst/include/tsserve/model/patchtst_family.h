#pragma once
// PatchTST's name among the families (its rules, registered by patchtst_family.cpp: the
// patch sizes' checks, the summary's patches, its checkpoint markers).

namespace tsserve::model {

inline constexpr char kPatchTSTFamily[] = "PatchTST";

}  // namespace tsserve::model
