#include "server/live/series_snapshot_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

// Writes and fsyncs `path` (a new file, or one truncated).
Status write_synced(const std::string& path, const std::string& bytes) {
  FileDescriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
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

// The whole file at `path` into *bytes; false with errno set when it cannot be read.
bool read_file(const std::string& path, std::string* bytes) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) return false;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
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

SeriesSnapshotLoad load_series_snapshot(const std::string& dir, int64_t unix_now) {
  SeriesSnapshotLoad load;
  const std::string path = series_snapshot_path(dir);
  std::string bytes;
  std::string problem;
  if (!read_file(path, &bytes)) {
    if (errno == ENOENT) {
      load.note = "no snapshot at " + path + ": starting with no live series";
      return load;
    }
    problem = std::string("cannot be read: ") + std::strerror(errno);
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
