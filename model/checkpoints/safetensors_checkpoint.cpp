// read_safetensors: the safetensors format (github.com/huggingface/safetensors):
//   8 bytes   N, the header length, unsigned little-endian
//   N bytes   a JSON object {name: {"dtype": "F32", "shape": [..], "data_offsets": [b, e]},
//             "__metadata__": {str: str} (optional, ignored)}
//   the rest  the data buffer; a tensor's bytes are [b, e) of it, row-major, little-endian.
// Tensors are returned in the order the header lists them.

#include <ATen/ops/empty.h>
#include <c10/core/ScalarType.h>

#include <array>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "binary_file.h"
#include "checkpoint_format_error.h"
#include "json_nesting.h"
#include "tsserve/model/checkpoint_file.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checkpoint readers copy little-endian tensor data as is"
#endif

namespace tsserve::model {
namespace detail {
namespace {

// The reference implementation's limit; a real header is a few hundred bytes per tensor.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr size_t kMaxDims = 32;

struct DtypeInfo {
  const char* name;
  at::ScalarType type;
};
constexpr std::array<DtypeInfo, 10> kDtypes = {{
    {"F64", at::kDouble},
    {"F32", at::kFloat},
    {"F16", at::kHalf},
    {"BF16", at::kBFloat16},
    {"I64", at::kLong},
    {"I32", at::kInt},
    {"I16", at::kShort},
    {"I8", at::kChar},
    {"U8", at::kByte},
    {"BOOL", at::kBool},
}};

std::string supported_dtypes() {
  std::string out;
  for (const DtypeInfo& dtype : kDtypes) out += std::string(out.empty() ? "" : ", ") + dtype.name;
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

struct TensorEntry {
  std::string name;
  at::ScalarType type;
  std::vector<int64_t> shape;
  uint64_t begin = 0;
  uint64_t bytes = 0;
};

class SafetensorsFile {
 public:
  explicit SafetensorsFile(const BinaryFile& file) : file_(file) {}

  StateDict read() {
    const nlohmann::ordered_json header = read_header();
    std::vector<TensorEntry> entries;
    entries.reserve(header.size());
    for (const auto& [name, entry] : header.items()) {
      if (name == "__metadata__") continue;
      entries.push_back(parse_entry(name, entry));
    }
    StateDict state_dict;
    state_dict.reserve(entries.size());
    for (const TensorEntry& entry : entries) {
      state_dict.emplace_back(entry.name, read_tensor(entry));
    }
    return state_dict;
  }

 private:
  nlohmann::ordered_json read_header() {
    const uint64_t file_size = file_.size();
    if (file_size == 0) throw CheckpointFormatError("the file is empty");
    if (file_size < 8) {
      throw CheckpointFormatError("the file has " + std::to_string(file_size) +
                                  " bytes, fewer than the 8-byte safetensors header length");
    }
    uint8_t prefix[8];
    file_.read_at(0, prefix, sizeof prefix, "the safetensors header length");
    uint64_t header_size = 0;
    for (size_t i = 0; i < 8; ++i) header_size |= uint64_t{prefix[i]} << (8 * i);
    if (header_size > kMaxHeaderBytes) {
      throw CheckpointFormatError("safetensors header length " + std::to_string(header_size) +
                                  " exceeds the limit of " + std::to_string(kMaxHeaderBytes) +
                                  " bytes (not a safetensors file?)");
    }
    if (header_size > file_size - 8) {
      throw CheckpointFormatError("safetensors header length " + std::to_string(header_size) +
                                  " runs past the end of the file (" + std::to_string(file_size) +
                                  " bytes): truncated?");
    }
    data_start_ = 8 + header_size;
    data_size_ = file_size - data_start_;
    const std::vector<uint8_t> text =
        file_.read_vector(8, static_cast<size_t>(header_size), "the safetensors header");
    // Before parsing: the parsed header is walked recursively (dump() in an error
    // message), so a header nested 100,000 deep would overflow the stack there.
    if (json_nests_deeper_than(
            std::string_view(reinterpret_cast<const char*>(text.data()), text.size()),
            kMaxJsonNesting)) {
      throw CheckpointFormatError("the safetensors header nests arrays and objects more than " +
                                  std::to_string(kMaxJsonNesting) +
                                  " deep (the limit; a real header is 3 deep)");
    }
    nlohmann::ordered_json header;
    try {
      header = nlohmann::ordered_json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
      throw CheckpointFormatError("the safetensors header is not valid JSON (" +
                                  printable(e.what()) + ")");
    }
    if (!header.is_object()) {
      throw CheckpointFormatError(std::string("the safetensors header is a JSON ") +
                                  header.type_name() + ", not an object");
    }
    return header;
  }

  static uint64_t unsigned_number(const nlohmann::ordered_json& value, const std::string& what) {
    if (!value.is_number_unsigned()) {
      throw CheckpointFormatError(what + " holds " + value.dump().substr(0, 40) +
                                  ", not a non-negative integer");
    }
    return value.get<uint64_t>();
  }

  TensorEntry parse_entry(const std::string& name, const nlohmann::ordered_json& entry) const {
    const std::string tensor = "tensor " + quote(name);
    if (!entry.is_object()) {
      throw CheckpointFormatError(tensor + ": its header entry is a JSON " + entry.type_name() +
                                  ", not an object");
    }
    TensorEntry out;
    out.name = name;

    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) {
      throw CheckpointFormatError(tensor + " has no \"dtype\" string");
    }
    const DtypeInfo* info = nullptr;
    for (const DtypeInfo& candidate : kDtypes) {
      if (dtype->get_ref<const std::string&>() == candidate.name) info = &candidate;
    }
    if (info == nullptr) {
      throw CheckpointFormatError(tensor + " has dtype " +
                                  quote(dtype->get_ref<const std::string&>()) +
                                  ", which is not supported; supported: " + supported_dtypes());
    }
    out.type = info->type;

    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) {
      throw CheckpointFormatError(tensor + " has no \"shape\" array");
    }
    if (shape->size() > kMaxDims) {
      throw CheckpointFormatError(tensor + " has " + std::to_string(shape->size()) +
                                  " dimensions; at most " + std::to_string(kMaxDims) +
                                  " are supported");
    }
    uint64_t numel = 1;
    bool overflow = false;
    for (const auto& dim : *shape) {
      const uint64_t size = unsigned_number(dim, tensor + ": \"shape\"");
      if (size > static_cast<uint64_t>(INT64_MAX)) overflow = true;
      overflow |= __builtin_mul_overflow(numel, size, &numel);
      out.shape.push_back(static_cast<int64_t>(size));
    }
    const uint64_t item_size = c10::elementSize(out.type);
    overflow |= __builtin_mul_overflow(numel, item_size, &out.bytes);
    if (overflow) throw CheckpointFormatError(tensor + " has a shape too large to address");

    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
      throw CheckpointFormatError(tensor + " has no \"data_offsets\" pair [begin, end]");
    }
    const uint64_t begin = unsigned_number((*offsets)[0], tensor + ": \"data_offsets\"");
    const uint64_t end = unsigned_number((*offsets)[1], tensor + ": \"data_offsets\"");
    const std::string offsets_text =
        "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end || end > data_size_) {
      throw CheckpointFormatError(tensor + " " + offsets_text + " lie outside the data buffer of " +
                                  std::to_string(data_size_) + " bytes");
    }
    if (end - begin != out.bytes) {
      throw CheckpointFormatError(tensor + " " + offsets_text + " do not match shape " +
                                  shape_text(out.shape) + " x " + std::to_string(item_size) +
                                  " bytes = " + std::to_string(out.bytes) + " bytes");
    }
    out.begin = begin;
    return out;
  }

  at::Tensor read_tensor(const TensorEntry& entry) const {
    at::Tensor tensor = at::empty(entry.shape, at::TensorOptions().dtype(entry.type));
    if (entry.bytes == 0) return tensor;
    file_.read_at(data_start_ + entry.begin, tensor.data_ptr(), static_cast<size_t>(entry.bytes),
                  "tensor data");
    if (entry.type == at::kBool) {
      const auto* bytes = static_cast<const uint8_t*>(tensor.data_ptr());
      for (uint64_t i = 0; i < entry.bytes; ++i) {
        if (bytes[i] > 1) {
          throw CheckpointFormatError("tensor " + quote(entry.name) + " (BOOL) holds byte " +
                                      std::to_string(bytes[i]) + " at element " +
                                      std::to_string(i) + "; a bool is 0 or 1");
        }
      }
    }
    return tensor;
  }

  const BinaryFile& file_;
  uint64_t data_start_ = 0;
  uint64_t data_size_ = 0;
};

}  // namespace
}  // namespace detail

StateDict read_safetensors(const std::string& path) {
  try {
    const detail::BinaryFile file(path);
    return detail::SafetensorsFile(file).read();
  } catch (...) {
    detail::rethrow_as_model_error(path);
  }
}

}  // namespace tsserve::model
