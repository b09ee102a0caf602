// read_checkpoint_file: picks the reader by the file's first bytes.

#include "tsserve/model/checkpoint_file.h"

#include <cstring>

#include "binary_file.h"
#include "checkpoint_format_error.h"

namespace tsserve::model {
namespace detail {
namespace {

enum class FileFormat { kTorchZip, kSafetensors, kUnknown };

// A zip archive starts with a local file header ("PK\3\4"); torch.save's legacy format
// starts with a pickle PROTO 2 opcode ("\x80\x02"), which read_torch_state_dict explains.
// A safetensors file starts with an 8-byte header length that fits in the file,
// followed by the JSON object's '{'.
FileFormat sniff(const BinaryFile& file, std::string& why_unknown) {
  const uint64_t size = file.size();
  if (size == 0) throw CheckpointFormatError("the file is empty");
  uint8_t head[9] = {};
  const size_t head_size = static_cast<size_t>(std::min<uint64_t>(size, sizeof head));
  file.read_at(0, head, head_size, "the file header");
  if (head_size >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0) return FileFormat::kTorchZip;
  if (head_size >= 2 && head[0] == 0x80 && head[1] == 0x02) return FileFormat::kTorchZip;
  if (head_size == sizeof head) {
    uint64_t header_size = 0;
    for (size_t i = 0; i < 8; ++i) header_size |= uint64_t{head[i]} << (8 * i);
    if (header_size <= size - 8 && head[8] == '{') return FileFormat::kSafetensors;
    why_unknown =
        "its first 8 bytes, read as a safetensors header length, give " +
        std::to_string(header_size) +
        (header_size > size - 8 ? ", more than the " + std::to_string(size) + "-byte file holds"
                                : ", but no JSON '{' follows");
  } else {
    why_unknown = "it has only " + std::to_string(size) + (size == 1 ? " byte" : " bytes");
  }
  return FileFormat::kUnknown;
}

}  // namespace
}  // namespace detail

StateDict read_checkpoint_file(const std::string& path) {
  detail::FileFormat format = detail::FileFormat::kUnknown;
  std::string why_unknown;
  try {
    const detail::BinaryFile file(path);
    format = detail::sniff(file, why_unknown);
    if (format == detail::FileFormat::kUnknown) {
      throw detail::CheckpointFormatError(
          "neither a torch.save zip archive (it does not start with \"PK\\x03\\x04\") nor a "
          "safetensors file (" +
          why_unknown + ")");
    }
  } catch (...) {
    detail::rethrow_as_model_error(path);
  }
  return format == detail::FileFormat::kTorchZip ? read_torch_state_dict(path)
                                                 : read_safetensors(path);
}

}  // namespace tsserve::model
