#pragma once
// The central directory of a zip archive, read by us before the archive reaches
// LibTorch's PyTorchStreamReader, for checks that reader does not make or makes too late:
//
// - Sizes. PyTorchStreamReader allocates a record's declared uncompressed size before
//   extracting it, and a hostile or corrupt directory can declare any size. We refuse
//   any entry whose declared size the file cannot back: a stored entry larger than the
//   file, or a deflated one beyond deflate's maximum expansion.
// - Checksums. LibTorch builds miniz with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS, so
//   corrupt record bytes go unnoticed; expected_crc32() lets the caller verify them.
// - The layout checks of PyTorchStreamReader's constructor (a top folder, a readable
//   version record): when that constructor throws after opening the zip it leaks
//   miniz's state (LibTorch 1.13), so the caller makes them first (read_stored_record).
//
// We find the same end-of-central-directory record miniz does (the last one in the
// file, including the ZIP64 variant torch.save writes), and look names up the way
// PyTorchStreamReader does: below the first entry's top folder, ignoring case.

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "binary_file.h"

namespace tsserve::model::detail {

struct ZipEntry {
  std::string name;  // the full name, top folder included
  uint32_t crc32 = 0;
  uint64_t method = 0;  // 0 stored, 8 deflated
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
  uint64_t flags = 0;                // general purpose bit flags
  uint64_t external_attributes = 0;  // bit 0x10: an MS-DOS directory
};

class ZipDirectory {
 public:
  // Throws CheckpointFormatError("truncated or not a zip archive (...)") when the
  // directory is missing or malformed, names an entry twice, or an entry's declared
  // size is implausible.
  explicit ZipDirectory(const BinaryFile& file);

  size_t entry_count() const { return entries_.size(); }

  // The first entry's name up to and including its first '/' ("" when it has none):
  // PyTorchStreamReader's archive folder.
  const std::string& top_folder() const { return top_folder_; }

  // The entry for `record`, a name below the top folder ("data.pkl"); nullptr if none.
  const ZipEntry* find(const std::string& record) const;

  // The entry for `record`, checked to be one miniz extracts into its bytes: present,
  // not a directory (miniz "extracts" those by leaving the buffer uninitialised), not
  // encrypted or patched, stored or deflated. Throws CheckpointFormatError otherwise.
  const ZipEntry& extractable(const std::string& record) const;

  // The CRC-32 the directory records for `record`; 0 when the record is unknown or the
  // writer left the CRC out (torch.serialization.set_crc32_options(False)).
  uint32_t expected_crc32(const std::string& record) const;

  // The bytes of `record`, a stored (uncompressed) extractable() entry of at most
  // `max_size` bytes, read through its local header as miniz does. Throws
  // CheckpointFormatError otherwise.
  std::string read_stored_record(const BinaryFile& file, const std::string& record,
                                 size_t max_size) const;

 private:
  std::string top_folder_;
  std::unordered_map<std::string, ZipEntry> entries_;  // by lower-case full name
};

// The CRC-32 (zip, IEEE 802.3 polynomial) of `size` bytes.
uint32_t crc32(const void* data, size_t size);

}  // namespace tsserve::model::detail
