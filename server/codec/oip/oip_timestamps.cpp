#include "server/codec/oip/oip_timestamps.h"

#include <algorithm>
#include <cstring>

#include "server/codec/common/tensor_codec.h"

namespace tsserve::server {
Status read_oip_timestamps(const inference::ModelInferRequest& request, int index, int64_t samples,
                           int64_t points, const std::string& field, std::vector<int64_t>* out) {
  const auto& input = request.inputs(index);
  const std::string expected = "[" + std::to_string(samples) + ", " + std::to_string(points) +
                               "] (B and T_in of \"series\")";
  if (input.datatype() != kOipInt64) {
    return invalid_argument(field + ".datatype: \"" + input.datatype() + "\"; timestamps are " +
                            kOipInt64 + " Unix seconds (UTC)");
  }
  if (!input.parameters().empty()) {
    return invalid_argument(field + ".parameters: tsserve reads no input parameters; got \"" +
                            input.parameters().begin()->first + "\"");
  }
  if (input.shape_size() != 2 || input.shape(0) != samples || input.shape(1) != points) {
    return invalid_argument(field + ".shape: " + format_shape(input.shape()) + "; expected " +
                            expected);
  }
  const auto count = static_cast<std::size_t>(samples * points);
  out->resize(count);
  if (request.raw_input_contents_size() > 0) {
    const std::string& bytes = request.raw_input_contents(index);
    if (bytes.size() != count * sizeof(int64_t)) {
      return invalid_argument("raw_input_contents[" + std::to_string(index) +
                              "]: " + std::to_string(bytes.size()) + " bytes for " + field + " " +
                              expected + "; expected " + std::to_string(count * sizeof(int64_t)) +
                              " (8 per INT64, little-endian)");
    }
    std::memcpy(out->data(), bytes.data(), bytes.size());
    return Status();
  }
  const auto& contents = input.contents();
  if (contents.fp32_contents_size() > 0 || contents.int_contents_size() > 0 ||
      contents.fp64_contents_size() > 0 || contents.uint64_contents_size() > 0) {
    return invalid_argument(field +
                            ".contents: timestamps go in int64_contents (or raw_input_contents)");
  }
  const auto& values = contents.int64_contents();
  if (static_cast<std::size_t>(values.size()) != count) {
    return invalid_argument(field + ".contents.int64_contents: " + std::to_string(values.size()) +
                            " values for " + expected + "; expected " + std::to_string(count));
  }
  std::copy(values.begin(), values.end(), out->begin());
  return Status();
}

}  // namespace tsserve::server
