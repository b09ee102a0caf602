#pragma once
// A read-only file with bounds-checked positional reads, for the checkpoint parsers: a
// read that would run past the end throws CheckpointFormatError instead of returning
// short, so no parser ever sees uninitialised bytes. Reads use pread, so one BinaryFile
// may serve several readers (the zip guard and PyTorchStreamReader) without seeking.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::model::detail {

class BinaryFile {
 public:
  // Throws CheckpointFormatError when the path cannot be opened or is not a regular file.
  explicit BinaryFile(const std::string& path);
  ~BinaryFile();
  BinaryFile(const BinaryFile&) = delete;
  BinaryFile& operator=(const BinaryFile&) = delete;

  // The size when the file was opened; reads never go past it.
  uint64_t size() const { return size_; }

  // Reads exactly `count` bytes starting at `offset` into `out`. `what` names the part
  // of the file being read, for the error message when the range is past the end.
  void read_at(uint64_t offset, void* out, size_t count, const char* what) const;
  std::vector<uint8_t> read_vector(uint64_t offset, size_t count, const char* what) const;

  // Reads up to `count` bytes at `offset`, clamped to the file; returns how many were
  // read (fewer only at the end of the file or on an I/O error). Never throws.
  size_t read_up_to(uint64_t offset, void* out, size_t count) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace tsserve::model::detail
