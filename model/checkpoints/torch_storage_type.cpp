#include "torch_storage_type.h"

#include <array>
#include <utility>

namespace tsserve::model::detail {
namespace {

constexpr std::array<std::pair<const char*, at::ScalarType>, 10> kStorageTypes = {{
    {"torch.FloatStorage", at::kFloat},
    {"torch.DoubleStorage", at::kDouble},
    {"torch.HalfStorage", at::kHalf},
    {"torch.BFloat16Storage", at::kBFloat16},
    {"torch.LongStorage", at::kLong},
    {"torch.IntStorage", at::kInt},
    {"torch.ShortStorage", at::kShort},
    {"torch.CharStorage", at::kChar},
    {"torch.ByteStorage", at::kByte},
    {"torch.BoolStorage", at::kBool},
}};

}  // namespace

std::optional<at::ScalarType> storage_scalar_type(const std::string& global_name) {
  for (const auto& [name, type] : kStorageTypes) {
    if (global_name == name) return type;
  }
  return std::nullopt;
}

std::string supported_storage_types() {
  std::string out;
  for (const auto& [name, type] : kStorageTypes) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace tsserve::model::detail
