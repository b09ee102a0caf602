#include "server/codec/oip_rest/oip_packed_contents.h"

#include <cstring>
#include <type_traits>

namespace tsserve::server {

std::string packed_bytes(const inference::InferTensorContents& contents) {
  std::string bytes;
  const auto append = [&bytes](const auto& values) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    const std::size_t start = bytes.size();
    bytes.resize(start + static_cast<std::size_t>(values.size()) * sizeof(T));
    if (values.size() > 0) {
      std::memcpy(bytes.data() + start, values.data(),
                  static_cast<std::size_t>(values.size()) * sizeof(T));
    }
  };
  append(contents.fp32_contents());
  append(contents.fp64_contents());
  append(contents.int64_contents());
  append(contents.int_contents());
  append(contents.uint64_contents());
  append(contents.uint_contents());
  for (bool flag : contents.bool_contents()) bytes += static_cast<char>(flag ? 1 : 0);
  return bytes;
}

}  // namespace tsserve::server
