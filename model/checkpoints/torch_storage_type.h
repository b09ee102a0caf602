#pragma once
// The typed storage classes torch.save names in a tensor's persistent id
// (torch.FloatStorage, ...), and the dtype each holds.

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace tsserve::model::detail {

// "torch.FloatStorage" -> kFloat; nullopt for anything else (complex and quantized
// storages are not supported).
std::optional<at::ScalarType> storage_scalar_type(const std::string& global_name);

// "torch.FloatStorage, torch.DoubleStorage, ..." for error messages.
std::string supported_storage_types();

}  // namespace tsserve::model::detail
