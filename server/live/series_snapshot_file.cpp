#include "server/live/series_snapshot_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "server/live/series_snapshot.h"

namespace tsserve::server {
namespace {

// `step` on `path` failed with errno.
Status io_error(const std::string& step, const std::string& path) {
  return {StatusCode::kInternal,
          "series snapshot: cannot " + step + " " + path + ": " + std::strerror(errno)};
}

// Closes a descriptor at scope exit unless released (close() is checked where it matters:
// after the writes).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

Status write_all(int fd, const std::string& bytes, const std::string& path) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("write", path);
    }
    written += static_cast<std::size_t>(n);
  }
  return Status();
}

// Writes and fsyncs `path`, created anew with mode 0600. A stale file there (a crash
// mid-write) is unlinked first, and O_EXCL | O_NOFOLLOW refuse whatever appears in its
// place meanwhile: a symlink planted at the temporary's path is never followed, so the
// write cannot be redirected onto another file.
Status write_synced(const std::string& path, const std::string& bytes) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("remove the stale", path);
  FileDescriptor file(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (file.get() < 0) return io_error("create", path);
  TSSERVE_RETURN_IF_ERROR(write_all(file.get(), bytes, path));
  if (::fsync(file.get()) != 0) return io_error("fsync", path);
  // close() can report a deferred write error (NFS): checked, not left to the destructor.
  if (::close(file.release()) != 0) return io_error("close", path);
  return Status();
}

// The rename's directory entry reaches the disk only with the directory's own fsync.
Status sync_directory(const std::string& dir) {
  FileDescriptor directory(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() < 0) return io_error("open the directory", dir);
  if (::fsync(directory.get()) != 0) return io_error("fsync the directory", dir);
  if (::close(directory.release()) != 0) return io_error("close the directory", dir);
  return Status();
}

// "holds N bytes, more than the limit of M bytes ...": the refusal of a file too large.
std::string too_large(const std::string& held, std::size_t max_bytes) {
  return "holds " + held + " bytes, more than the limit of " + std::to_string(max_bytes) +
         " bytes for this store (twice --series-store-max-bytes and the file's header); raise "
         "--series-store-max-bytes to restore it";
}

// What reading the snapshot gave.
struct FileRead {
  bool missing = false;  // no file: not a problem
  std::string problem;   // why it cannot be used; "" when read whole
};

// The whole regular file at `path` into *bytes, at most `max_bytes` of it: the size is
// checked before anything is read, and the read stops past the limit (a file that grows
// meanwhile). O_NONBLOCK so that a FIFO put there cannot hold up the start.
FileRead read_capped(const std::string& path, std::size_t max_bytes, std::string* bytes) {
  FileRead result;
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.get() < 0) {
    result.missing = errno == ENOENT;
    result.problem = std::string("cannot be read: ") + std::strerror(errno);
    return result;
  }
  struct stat about {};
  if (::fstat(file.get(), &about) != 0) {
    result.problem = std::string("cannot be read: ") + std::strerror(errno);
    return result;
  }
  if (!S_ISREG(about.st_mode)) {
    result.problem = "is not a regular file";
    return result;
  }
  if (static_cast<uint64_t>(about.st_size) > max_bytes) {
    result.problem = too_large(std::to_string(about.st_size), max_bytes);
    return result;
  }
  bytes->reserve(static_cast<std::size_t>(about.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.problem = std::string("cannot be read: ") + std::strerror(errno);
      return result;
    }
    if (n == 0) return result;
    if (static_cast<std::size_t>(n) > max_bytes - bytes->size()) {
      result.problem = too_large("over " + std::to_string(max_bytes), max_bytes);
      bytes->clear();
      return result;
    }
    bytes->append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::string series_snapshot_path(const std::string& dir) {
  return dir + "/" + kSeriesSnapshotFileName;
}

Status write_series_snapshot_file(const std::string& dir,
                                  const std::vector<SeriesWindow>& windows) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return io_error("create the directory", dir);
  }
  const std::string path = series_snapshot_path(dir);
  const std::string temporary = path + ".tmp";
  const Status written = write_synced(temporary, encode_series_snapshot(windows));
  if (!written.ok()) {
    ::unlink(temporary.c_str());  // best effort: the error to report is the write's
    return written;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const Status renamed = io_error("rename " + temporary + " to", path);
    ::unlink(temporary.c_str());
    return renamed;
  }
  return sync_directory(dir);
}

std::size_t series_snapshot_max_file_bytes(const SeriesStoreLimits& limits) {
  // The magic, format version, window count and checksum around the windows.
  constexpr std::size_t kFixedBytes = 8 + 4 + 8 + 8;
  std::size_t one = 0;
  std::size_t both = 0;
  if (__builtin_add_overflow(limits.max_bytes, kFixedBytes, &one) ||
      __builtin_mul_overflow(one, std::size_t{2}, &both)) {
    return SIZE_MAX;
  }
  return both;
}

SeriesSnapshotLoad load_series_snapshot(const std::string& dir, int64_t unix_now,
                                        std::size_t max_file_bytes) {
  SeriesSnapshotLoad load;
  const std::string path = series_snapshot_path(dir);
  std::string bytes;
  std::string problem;
  const FileRead read = read_capped(path, max_file_bytes, &bytes);
  if (read.missing) {
    load.note = "no snapshot at " + path + ": starting with no live series";
    return load;
  }
  if (!read.problem.empty()) {
    problem = read.problem;
  } else {
    const Status decoded = decode_series_snapshot(bytes, &load.windows);
    if (decoded.ok()) {
      load.note = "restored " + std::to_string(load.windows.size()) + " keys from " + path;
      return load;
    }
    problem = decoded.message();
  }
  load.windows.clear();
  load.unusable = true;
  const std::string aside = path + ".corrupt-" + std::to_string(unix_now);
  const std::string unusable = "the snapshot " + path + " is unusable (" + problem + ")";
  if (::rename(path.c_str(), aside.c_str()) == 0) {
    load.note = unusable + "; set aside as " + aside + "; starting with no live series";
  } else {
    load.note = unusable + " and could not be set aside as " + aside + " (" + std::strerror(errno) +
                "); starting with no live series, the next snapshot replaces it";
  }
  return load;
}

}  // namespace tsserve::server
