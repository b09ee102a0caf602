#include "tsserve/client/npy_file.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace tsserve::client {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::invalid_argument npy_error(const std::string& path, const std::string& what) {
  return std::invalid_argument(path + ": not a float .npy file we can read: " + what);
}

std::vector<int64_t> parse_shape(const std::string& path, const std::string& text) {
  std::vector<int64_t> shape;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(item));
    } catch (const std::exception&) {
      throw npy_error(path, "shape entry '" + item + "'");
    }
    if (shape.back() < 0) throw npy_error(path, "negative shape entry");
  }
  return shape;
}

}  // namespace

TensorData read_npy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(path + ": cannot be opened");
  char prefix[8];
  if (!file.read(prefix, 8) || std::memcmp(prefix, kMagic, 6) != 0) {
    throw npy_error(path, "missing the \\x93NUMPY magic");
  }
  uint32_t header_length = 0;
  const int major = static_cast<unsigned char>(prefix[6]);
  unsigned char length_bytes[4] = {0, 0, 0, 0};
  if (!file.read(reinterpret_cast<char*>(length_bytes), major == 1 ? 2 : 4)) {
    throw npy_error(path, "truncated header");
  }
  for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | length_bytes[i];
  if (header_length > (1u << 20)) throw npy_error(path, "header over 1 MiB");
  std::string header(header_length, '\0');
  if (!file.read(header.data(), header_length)) throw npy_error(path, "truncated header");

  std::smatch match;
  if (!std::regex_search(header, match, std::regex(R"('descr':\s*'([<|=]f[48])')"))) {
    throw npy_error(path, "dtype must be little-endian float32 ('<f4') or float64 ('<f8')");
  }
  const bool doubles = match[1].str().back() == '8';
  if (std::regex_search(header, std::regex(R"('fortran_order':\s*True)"))) {
    throw npy_error(path, "Fortran order; save with np.ascontiguousarray");
  }
  if (!std::regex_search(header, match, std::regex(R"('shape':\s*\(([^)]*)\))"))) {
    throw npy_error(path, "no shape in the header");
  }
  TensorData data;
  data.shape = parse_shape(path, match[1].str());
  int64_t count = 1;
  for (int64_t extent : data.shape) count *= extent;
  data.values.resize(static_cast<size_t>(count));
  if (doubles) {
    std::vector<double> wide(static_cast<size_t>(count));
    file.read(reinterpret_cast<char*>(wide.data()), static_cast<std::streamsize>(count * 8));
    for (size_t i = 0; i < wide.size(); ++i) data.values[i] = static_cast<float>(wide[i]);
  } else {
    file.read(reinterpret_cast<char*>(data.values.data()), static_cast<std::streamsize>(count * 4));
  }
  if (!file) throw npy_error(path, "fewer data bytes than the shape needs");
  return data;
}

void write_npy(const std::string& path, const TensorData& data) {
  std::string shape;
  for (int64_t extent : data.shape) shape += std::to_string(extent) + ", ";
  if (data.shape.size() > 1) shape.resize(shape.size() - 1);  // "(3,)" but "(3, 4)"
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Pad so the data starts on a 64-byte boundary, as NumPy does; end with a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(path + ": cannot be written");
  file.write(kMagic, 6);
  const char version[2] = {1, 0};
  file.write(version, 2);
  const auto length = static_cast<uint16_t>(header.size());
  const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  file.write(length_bytes, 2);
  file << header;
  file.write(reinterpret_cast<const char*>(data.values.data()),
             static_cast<std::streamsize>(data.values.size() * sizeof(float)));
  if (!file) throw std::invalid_argument(path + ": write failed");
}

}  // namespace tsserve::client
