#include "binary_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "checkpoint_format_error.h"

namespace tsserve::model::detail {

BinaryFile::BinaryFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) {
    throw CheckpointFormatError(std::string("cannot open the file (") + std::strerror(errno) + ")");
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw CheckpointFormatError("not a regular file");
  }
  size_ = static_cast<uint64_t>(info.st_size);
}

BinaryFile::~BinaryFile() { ::close(fd_); }

size_t BinaryFile::read_up_to(uint64_t offset, void* out, size_t count) const {
  if (offset >= size_) return 0;
  if (count > size_ - offset) count = static_cast<size_t>(size_ - offset);
  size_t done = 0;
  while (done < count) {
    const ssize_t n = ::pread(fd_, static_cast<char*>(out) + done, count - done,
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

void BinaryFile::read_at(uint64_t offset, void* out, size_t count, const char* what) const {
  if (offset > size_ || count > size_ - offset) {
    throw CheckpointFormatError(std::string("truncated file: ") + what + " needs " +
                                std::to_string(count) + " bytes at offset " +
                                std::to_string(offset) + " but the file has " +
                                std::to_string(size_) + " bytes");
  }
  if (read_up_to(offset, out, count) != count) {
    throw CheckpointFormatError(std::string("cannot read ") + what +
                                " (I/O error, or the file shrank while being read)");
  }
}

std::vector<uint8_t> BinaryFile::read_vector(uint64_t offset, size_t count,
                                             const char* what) const {
  // Check the range before allocating, so a bogus length cannot request a huge buffer.
  if (offset > size_ || count > size_ - offset) read_at(offset, nullptr, count, what);
  std::vector<uint8_t> bytes(count);
  read_at(offset, bytes.data(), count, what);
  return bytes;
}

}  // namespace tsserve::model::detail
