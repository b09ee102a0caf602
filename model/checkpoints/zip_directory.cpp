#include "zip_directory.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_format_error.h"

namespace tsserve::model::detail {
namespace {

constexpr uint32_t kEndOfCentralDirSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kZip64EndOfCentralDirSignature = 0x06064b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint64_t kEndOfCentralDirSize = 22;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kZip64EndOfCentralDirSize = 56;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint32_t kZip64Marker = 0xFFFFFFFF;
constexpr uint16_t kMethodDeflate = 8;
constexpr uint64_t kMaxDeflateRatio = 1032;  // deflate cannot expand beyond ~1032:1

[[noreturn]] void fail(const std::string& problem) {
  throw CheckpointFormatError("truncated or not a zip archive (" + problem + ")");
}

uint64_t le(const uint8_t* bytes, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

struct Directory {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t entries = 0;
};

Directory find_directory(const BinaryFile& file) {
  const uint64_t file_size = file.size();
  if (file_size < kEndOfCentralDirSize) {
    fail("the file has " + std::to_string(file_size) +
         " bytes, fewer than a zip end-of-central-directory record");
  }
  // The record sits within the last 64 KiB (its comment is at most 65535 bytes); miniz
  // takes the last signature that leaves room for a whole record.
  const uint64_t window = std::min<uint64_t>(file_size, 65535 + kEndOfCentralDirSize + 4096);
  const std::vector<uint8_t> tail =
      file.read_vector(file_size - window, static_cast<size_t>(window), "the zip directory");
  size_t found = tail.size();
  for (size_t p = tail.size() - kEndOfCentralDirSize + 1; p-- > 0;) {
    if (le(&tail[p], 4) == kEndOfCentralDirSignature) {
      found = p;
      break;
    }
  }
  if (found == tail.size()) fail("no end-of-central-directory record");
  const uint8_t* record = &tail[found];
  const uint64_t record_offset = file_size - window + found;

  Directory directory{le(record + 16, 4), le(record + 12, 4), le(record + 10, 2)};
  if (record_offset >= kZip64LocatorSize + kZip64EndOfCentralDirSize) {
    uint8_t locator[kZip64LocatorSize];
    file.read_at(record_offset - kZip64LocatorSize, locator, sizeof locator, "the zip directory");
    if (le(locator, 4) == kZip64LocatorSignature) {
      const uint64_t zip64_offset = le(locator + 8, 8);
      if (zip64_offset > file_size - kZip64EndOfCentralDirSize) {
        fail("the ZIP64 end-of-central-directory offset is past the end of the file");
      }
      uint8_t zip64[kZip64EndOfCentralDirSize];
      file.read_at(zip64_offset, zip64, sizeof zip64, "the zip directory");
      if (le(zip64, 4) == kZip64EndOfCentralDirSignature) {
        directory = Directory{le(zip64 + 48, 8), le(zip64 + 40, 8), le(zip64 + 32, 8)};
      }
    }
  }
  if (directory.offset > file_size || directory.size > file_size - directory.offset) {
    fail("the central directory (" + std::to_string(directory.size) + " bytes at offset " +
         std::to_string(directory.offset) + ") lies outside the file of " +
         std::to_string(file_size) + " bytes");
  }
  if (directory.entries > directory.size / kCentralHeaderSize) {
    fail("the directory claims " + std::to_string(directory.entries) +
         " entries but has room for " + std::to_string(directory.size / kCentralHeaderSize));
  }
  return directory;
}

// Replaces 0xFFFFFFFF fields by their values from the ZIP64 extra field (id 1), which
// holds, in this order, each of uncompressed size, compressed size and local header
// offset that the fixed header marks 0xFFFFFFFF.
void apply_zip64_extra(const uint8_t* extra, size_t extra_size, ZipEntry& entry) {
  size_t p = 0;
  while (p + 4 <= extra_size) {
    const uint64_t id = le(extra + p, 2);
    const size_t field_size = static_cast<size_t>(le(extra + p + 2, 2));
    p += 4;
    if (field_size > extra_size - p) return;
    if (id == 1) {
      size_t q = 0;
      for (uint64_t* value :
           {&entry.uncompressed_size, &entry.compressed_size, &entry.local_header_offset}) {
        if (*value != kZip64Marker) continue;
        if (q + 8 > field_size) return;
        *value = le(extra + p + q, 8);
        q += 8;
      }
      return;
    }
    p += field_size;
  }
}

std::string lower_case(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

}  // namespace

uint32_t crc32(const void* data, size_t size) {
  static const std::array<uint32_t, 256> table = make_crc_table();
  const auto* bytes = static_cast<const uint8_t*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

ZipDirectory::ZipDirectory(const BinaryFile& file) {
  const Directory directory = find_directory(file);
  const std::vector<uint8_t> headers = file.read_vector(
      directory.offset, static_cast<size_t>(directory.size), "the zip central directory");
  size_t p = 0;
  for (uint64_t i = 0; i < directory.entries; ++i) {
    if (headers.size() - p < kCentralHeaderSize || le(&headers[p], 4) != kCentralHeaderSignature) {
      fail("central directory entry " + std::to_string(i) + " is malformed");
    }
    const uint8_t* header = &headers[p];
    const size_t name_size = static_cast<size_t>(le(header + 28, 2));
    const size_t extra_size = static_cast<size_t>(le(header + 30, 2));
    const size_t comment_size = static_cast<size_t>(le(header + 32, 2));
    const size_t header_size = kCentralHeaderSize + name_size + extra_size + comment_size;
    if (header_size > headers.size() - p) {
      fail("central directory entry " + std::to_string(i) + " runs past the directory");
    }
    ZipEntry entry;
    entry.name.assign(reinterpret_cast<const char*>(header + kCentralHeaderSize), name_size);
    entry.flags = le(header + 8, 2);
    entry.method = le(header + 10, 2);
    entry.crc32 = static_cast<uint32_t>(le(header + 16, 4));
    entry.compressed_size = le(header + 20, 4);
    entry.uncompressed_size = le(header + 24, 4);
    entry.external_attributes = le(header + 38, 4);
    entry.local_header_offset = le(header + 42, 4);
    apply_zip64_extra(header + kCentralHeaderSize + name_size, extra_size, entry);

    const uint64_t file_size = file.size();
    const uint64_t compressed = entry.compressed_size;
    const uint64_t limit = entry.method == kMethodDeflate && compressed <= file_size &&
                                   compressed < (uint64_t{1} << 50)
                               ? compressed * kMaxDeflateRatio + 1024
                               : file_size;
    if (compressed > file_size || entry.uncompressed_size > limit) {
      fail("entry " + quote(entry.name) + " declares " + std::to_string(entry.uncompressed_size) +
           " bytes from " + std::to_string(compressed) + " stored bytes, more than the file of " +
           std::to_string(file_size) + " bytes can hold");
    }
    if (i == 0) top_folder_ = entry.name.substr(0, entry.name.find('/') + 1);
    const std::string key = lower_case(entry.name);
    if (!entries_.try_emplace(key, std::move(entry)).second) {
      fail("the archive has two entries named " + quote(key) + " (ignoring case)");
    }
    p += header_size;
  }
}

const ZipEntry* ZipDirectory::find(const std::string& record) const {
  const auto it = entries_.find(lower_case(top_folder_ + record));
  return it == entries_.end() ? nullptr : &it->second;
}

const ZipEntry& ZipDirectory::extractable(const std::string& record) const {
  constexpr uint64_t kEncrypted = 0x1, kPatchData = 0x20, kStrongEncryption = 0x40;
  constexpr uint64_t kDosDirectory = 0x10;
  const ZipEntry* entry = find(record);
  if (entry == nullptr) {
    throw CheckpointFormatError("record " + quote(record) + " is missing from the archive");
  }
  const std::string name = "record " + quote(entry->name);
  if ((!entry->name.empty() && entry->name.back() == '/') ||
      (entry->external_attributes & kDosDirectory) != 0) {
    throw CheckpointFormatError(name + " is marked as a directory, not a file");
  }
  if ((entry->flags & (kEncrypted | kPatchData | kStrongEncryption)) != 0) {
    throw CheckpointFormatError(name + " is encrypted or patch data");
  }
  if (entry->method != 0 && entry->method != kMethodDeflate) {
    throw CheckpointFormatError(name + " uses zip compression method " +
                                std::to_string(entry->method) +
                                "; only stored and deflated "
                                "records can be read");
  }
  return *entry;
}

uint32_t ZipDirectory::expected_crc32(const std::string& record) const {
  const ZipEntry* entry = find(record);
  return entry == nullptr ? 0 : entry->crc32;
}

std::string ZipDirectory::read_stored_record(const BinaryFile& file, const std::string& record,
                                             size_t max_size) const {
  const ZipEntry& entry = extractable(record);
  constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
  constexpr uint64_t kLocalHeaderSize = 30;
  if (entry.method != 0 || entry.compressed_size != entry.uncompressed_size) {
    throw CheckpointFormatError("record " + quote(entry.name) +
                                " is compressed; torch.save stores it uncompressed");
  }
  if (entry.uncompressed_size > max_size) {
    throw CheckpointFormatError("record " + quote(entry.name) + " has " +
                                std::to_string(entry.uncompressed_size) +
                                " bytes; expected at most " + std::to_string(max_size));
  }
  uint8_t header[kLocalHeaderSize];
  if (entry.local_header_offset > file.size() ||
      file.size() - entry.local_header_offset < kLocalHeaderSize) {
    fail("the local header of " + quote(entry.name) + " lies outside the file");
  }
  file.read_at(entry.local_header_offset, header, sizeof header, "a zip local header");
  if (le(header, 4) != kLocalHeaderSignature) {
    fail("the local header of " + quote(entry.name) + " is malformed");
  }
  const uint64_t data_offset =
      entry.local_header_offset + kLocalHeaderSize + le(header + 26, 2) + le(header + 28, 2);
  std::string bytes(static_cast<size_t>(entry.uncompressed_size), '\0');
  if (data_offset > file.size() || file.size() - data_offset < bytes.size()) {
    fail("the data of " + quote(entry.name) + " runs past the end of the file");
  }
  file.read_at(data_offset, bytes.data(), bytes.size(), "a zip record");
  return bytes;
}

}  // namespace tsserve::model::detail
