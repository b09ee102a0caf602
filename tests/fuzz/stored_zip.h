#pragma once
// A minimal zip writer: stored (uncompressed) entries with correct CRC-32s, the local
// headers, central directory and end record every reader expects - enough to wrap
// fuzzer-made records into an archive that passes the zip layer, as torch.save's do.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tsserve::fuzz {

inline uint32_t zip_crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

// `entries`: (name, contents), in archive order.
inline std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string archive;
  std::string directory;
  auto put = [](std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
  };
  for (const auto& [name, contents] : entries) {
    const uint32_t crc = zip_crc32(contents);
    const uint64_t offset = archive.size();
    put(archive, 0x04034b50, 4);  // local file header
    put(archive, 20, 2);          // version needed: 2.0
    put(archive, 0, 2);           // flags
    put(archive, 0, 2);           // method: stored
    put(archive, 0, 4);           // time, date
    put(archive, crc, 4);
    put(archive, contents.size(), 4);
    put(archive, contents.size(), 4);
    put(archive, name.size(), 2);
    put(archive, 0, 2);  // extra length
    archive += name;
    archive += contents;

    put(directory, 0x02014b50, 4);  // central directory header
    put(directory, 20, 2);          // version made by
    put(directory, 20, 2);          // version needed
    put(directory, 0, 2);
    put(directory, 0, 2);
    put(directory, 0, 4);
    put(directory, crc, 4);
    put(directory, contents.size(), 4);
    put(directory, contents.size(), 4);
    put(directory, name.size(), 2);
    put(directory, 0, 2);  // extra length
    put(directory, 0, 2);  // comment length
    put(directory, 0, 2);  // disk
    put(directory, 0, 2);  // internal attributes
    put(directory, 0, 4);  // external attributes
    put(directory, offset, 4);
    directory += name;
  }
  const uint64_t directory_offset = archive.size();
  archive += directory;
  put(archive, 0x06054b50, 4);  // end of central directory
  put(archive, 0, 2);
  put(archive, 0, 2);
  put(archive, entries.size(), 2);
  put(archive, entries.size(), 2);
  put(archive, directory.size(), 4);
  put(archive, directory_offset, 4);
  put(archive, 0, 2);  // comment length
  return archive;
}

}  // namespace tsserve::fuzz
