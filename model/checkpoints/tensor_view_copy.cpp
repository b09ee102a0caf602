#include "tensor_view_copy.h"

#include <limits>

#include "checkpoint_format_error.h"

namespace tsserve::model::detail {
namespace {

constexpr size_t kMaxDims = 32;
constexpr uint64_t kBudgetSlackBytes = uint64_t{256} << 20;

std::string list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    if (i == 8 && values.size() > 10) {
      out += "... (" + std::to_string(values.size()) + " in all)";
      break;
    }
    out += std::to_string(values[i]);
  }
  return out + "]";
}

uint64_t saturating_budget(uint64_t storage_bytes) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  if (storage_bytes > (max - kBudgetSlackBytes) / 4) return max;
  return 4 * storage_bytes + kBudgetSlackBytes;
}

}  // namespace

TensorViewCopier::TensorViewCopier(uint64_t total_storage_bytes)
    : budget_bytes_(saturating_budget(total_storage_bytes)) {}

at::Tensor TensorViewCopier::copy(const std::string& name, const TensorView& view) {
  const StorageData& storage = *view.storage->storage;
  const int64_t storage_numel = storage.values.numel();
  const std::string what = "tensor " + quote(name) + " (size " + list(view.sizes) + ", stride " +
                           list(view.strides) + ", offset " + std::to_string(view.offset) + ")";
  auto fail = [&](const std::string& problem) {
    throw CheckpointFormatError(what + " " + problem);
  };

  if (view.sizes.size() != view.strides.size()) fail("has sizes and strides of different rank");
  if (view.sizes.size() > kMaxDims) {
    fail("has " + std::to_string(view.sizes.size()) + " dimensions; at most " +
         std::to_string(kMaxDims) + " are supported");
  }
  if (view.offset < 0) fail("has a negative storage offset");
  int64_t numel = 1;
  int64_t last = view.offset;  // the highest storage element the view reads
  bool overflow = false;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    if (view.sizes[d] < 0) fail("has a negative size");
    if (view.strides[d] < 0) fail("has a negative stride");
    overflow |= __builtin_mul_overflow(numel, view.sizes[d], &numel);
  }
  if (overflow) fail("has more elements than fit in 64 bits");
  if (numel == 0) {
    if (view.offset > storage_numel) {
      fail("starts past the end of its " + storage.type + " " + quote(storage.key) + " of " +
           std::to_string(storage_numel) + " elements");
    }
  } else {
    for (size_t d = 0; d < view.sizes.size(); ++d) {
      int64_t reach = 0;
      overflow |= __builtin_mul_overflow(view.sizes[d] - 1, view.strides[d], &reach);
      overflow |= __builtin_add_overflow(last, reach, &last);
    }
    if (overflow || last >= storage_numel) {
      fail("reads " +
           (overflow ? std::string("beyond element 2^63") : "element " + std::to_string(last)) +
           " of its " + storage.type + " " + quote(storage.key) + ", which has " +
           std::to_string(storage_numel) + " elements");
    }
  }

  const uint64_t bytes =
      static_cast<uint64_t>(numel) * static_cast<uint64_t>(storage.values.element_size());
  if (numel > 0 && bytes / static_cast<uint64_t>(numel) !=
                       static_cast<uint64_t>(storage.values.element_size())) {
    fail("has too many bytes to copy");
  }
  if (bytes > budget_bytes_) {
    fail("would take " + std::to_string(bytes) +
         " bytes once copied; the overlapping views of this checkpoint exceed the copy "
         "budget of 4x the storage bytes plus 256 MiB");
  }
  budget_bytes_ -= bytes;
  return storage.values.as_strided(view.sizes, view.strides, view.offset)
      .clone(at::MemoryFormat::Contiguous);
}

}  // namespace tsserve::model::detail
