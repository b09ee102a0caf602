#include "server/live/series_snapshot.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <utility>

namespace tsserve::server {
namespace {

constexpr std::string_view kMagic = "TSSERIES";
constexpr std::size_t kHeaderBytes = 8 + 4 + 8;  // magic, format version, window count
constexpr std::size_t kChecksumBytes = 8;
// The least a window takes: three empty strings, the name count, five i64 and the value
// count (no window has fewer than one value, but the bound need not be tight).
constexpr std::size_t kMinWindowBytes = 3 * 4 + 4 + 5 * 8 + 8;

Status corrupt(std::string message) {
  return {StatusCode::kFailedPrecondition, "series snapshot: " + std::move(message)};
}

void put_u32(std::string* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_u64(std::string* out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_i64(std::string* out, int64_t value) { put_u64(out, static_cast<uint64_t>(value)); }

void put_string(std::string* out, const std::string& text) {
  put_u32(out, static_cast<uint32_t>(text.size()));
  out->append(text);
}

uint64_t u64_at(std::string_view bytes, std::size_t position) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) {
    value |= uint64_t{static_cast<unsigned char>(bytes[position + i])} << (8 * i);
  }
  return value;
}

uint32_t u32_at(std::string_view bytes, std::size_t position) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value |= uint32_t{static_cast<unsigned char>(bytes[position + i])} << (8 * i);
  }
  return value;
}

std::string hex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kDigits[(value >> shift) & 0xf]);
  return out;
}

// Reads the body (header to checksum) front to back; every read first checks that its
// bytes are there.
class BodyReader {
 public:
  BodyReader(std::string_view body, std::size_t position) : body_(body), position_(position) {}

  std::size_t position() const { return position_; }
  std::size_t remaining() const { return body_.size() - position_; }

  // `what`, `needed` long, does not fit in what remains.
  Status truncated(const std::string& what, const std::string& needed) const {
    return corrupt("truncated at byte " + std::to_string(body_.size()) + ": " + what + " at byte " +
                   std::to_string(position_) + " needs " + needed + ", " +
                   std::to_string(remaining()) + " bytes remain before the checksum");
  }

  Status take(std::size_t count, const std::string& what, std::string_view* out) {
    if (count > remaining()) return truncated(what, std::to_string(count) + " bytes");
    *out = body_.substr(position_, count);
    position_ += count;
    return Status();
  }

  Status u32(const std::string& what, uint32_t* out) {
    std::string_view bytes;
    TSSERVE_RETURN_IF_ERROR(take(4, what, &bytes));
    *out = u32_at(bytes, 0);
    return Status();
  }

  Status u64(const std::string& what, uint64_t* out) {
    std::string_view bytes;
    TSSERVE_RETURN_IF_ERROR(take(8, what, &bytes));
    *out = u64_at(bytes, 0);
    return Status();
  }

  Status i64(const std::string& what, int64_t* out) {
    uint64_t bits = 0;
    TSSERVE_RETURN_IF_ERROR(u64(what, &bits));
    *out = static_cast<int64_t>(bits);
    return Status();
  }

  Status string(const std::string& what, std::string* out) {
    uint32_t length = 0;
    TSSERVE_RETURN_IF_ERROR(u32(what + "'s length", &length));
    std::string_view bytes;
    TSSERVE_RETURN_IF_ERROR(take(length, what, &bytes));
    out->assign(bytes.data(), bytes.size());
    return Status();
  }

 private:
  std::string_view body_;
  std::size_t position_;
};

// Window `index`, and its invariants (those SeriesStore keeps).
Status read_window(BodyReader& in, uint64_t index, SeriesWindow* window) {
  const std::string at = "window " + std::to_string(index);
  TSSERVE_RETURN_IF_ERROR(in.string(at + "'s series_key", &window->series_key));
  if (window->series_key.empty()) return corrupt(at + ": empty series_key");
  const std::string named = at + " (key \"" + window->series_key + "\")";
  SeriesBinding& binding = window->binding;
  TSSERVE_RETURN_IF_ERROR(in.string(named + "'s model", &binding.model));
  TSSERVE_RETURN_IF_ERROR(in.string(named + "'s pinned_version", &binding.pinned_version));
  uint32_t names = 0;
  TSSERVE_RETURN_IF_ERROR(in.u32(named + "'s name count", &names));
  // No reserve(names): each name is read, and bounds-checked, before it is kept.
  for (uint32_t n = 0; n < names; ++n) {
    std::string name;
    TSSERVE_RETURN_IF_ERROR(in.string(named + "'s name " + std::to_string(n), &name));
    binding.variable_names.push_back(std::move(name));
  }
  int64_t points = 0;
  TSSERVE_RETURN_IF_ERROR(in.i64(named + "'s variables", &binding.variables));
  TSSERVE_RETURN_IF_ERROR(in.i64(named + "'s step_seconds", &window->step_seconds));
  TSSERVE_RETURN_IF_ERROR(in.i64(named + "'s last_timestamp", &window->last_timestamp));
  TSSERVE_RETURN_IF_ERROR(in.i64(named + "'s accepted_total", &window->accepted_total));
  TSSERVE_RETURN_IF_ERROR(in.i64(named + "'s points", &points));
  uint64_t value_count = 0;
  TSSERVE_RETURN_IF_ERROR(in.u64(named + "'s value count", &value_count));

  if (binding.model.empty()) return corrupt(named + ": empty model");
  if (binding.variables < 1) {
    return corrupt(named + ": N=" + std::to_string(binding.variables) + "; expected N >= 1");
  }
  if (names != 0 && names != static_cast<uint64_t>(binding.variables)) {
    return corrupt(named + ": " + std::to_string(names) + " variable names for N=" +
                   std::to_string(binding.variables) + "; expected N or none");
  }
  if (points < 1) return corrupt(named + ": " + std::to_string(points) + " points; expected >= 1");
  if (window->step_seconds < 0 || (points >= 2 && window->step_seconds == 0)) {
    return corrupt(named + ": step_seconds " + std::to_string(window->step_seconds) + " for " +
                   std::to_string(points) + " points; expected > 0 (>= 0 for one point)");
  }
  if (window->accepted_total < points) {
    return corrupt(named + ": accepted_total " + std::to_string(window->accepted_total) +
                   " is under its " + std::to_string(points) + " points");
  }
  // The oldest point's time, last_timestamp - (points - 1) * step, must be an int64.
  int64_t span = 0, first = 0;
  if (__builtin_mul_overflow(points - 1, window->step_seconds, &span) ||
      __builtin_sub_overflow(window->last_timestamp, span, &first)) {
    return corrupt(named + ": " + std::to_string(points) + " points of " +
                   std::to_string(window->step_seconds) + " s up to " +
                   std::to_string(window->last_timestamp) + " start before the int64 range");
  }
  uint64_t expected = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(points),
                             static_cast<uint64_t>(binding.variables), &expected) ||
      value_count != expected) {
    return corrupt(named + ": values hold " + std::to_string(value_count) +
                   " floats, not points*N=" + std::to_string(points) + "*" +
                   std::to_string(binding.variables));
  }
  // Bounds before the allocation: value_count * 4 bytes must be there.
  if (value_count > in.remaining() / sizeof(float)) {
    return in.truncated(named + "'s values", std::to_string(value_count) + " x 4 bytes");
  }
  std::string_view raw;
  TSSERVE_RETURN_IF_ERROR(in.take(value_count * sizeof(float), named + "'s values", &raw));
  window->values.resize(value_count);
  for (std::size_t i = 0; i < value_count; ++i) {
    const uint32_t bits = u32_at(raw, i * sizeof(float));
    std::memcpy(&window->values[i], &bits, sizeof(float));
    if (!std::isfinite(window->values[i])) {
      return corrupt(named + ": values[" + std::to_string(i) + "] is not finite (bits " +
                     hex(bits) + "); the store holds finite values only");
    }
  }
  return Status();
}

Status decode_windows(std::string_view bytes, std::vector<SeriesWindow>* out) {
  if (bytes.size() < kMagic.size() && bytes == kMagic.substr(0, bytes.size())) {
    return corrupt("truncated at byte " + std::to_string(bytes.size()) + ": the magic \"" +
                   std::string(kMagic) + "\" needs 8 bytes");
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return corrupt("not a series snapshot: the file does not start with \"" + std::string(kMagic) +
                   "\"");
  }
  if (bytes.size() < kMagic.size() + 4) {
    return corrupt("truncated at byte " + std::to_string(bytes.size()) +
                   ": the format version needs bytes 8 to 11");
  }
  // The version before the checksum: a newer format may check itself another way.
  const uint32_t version = u32_at(bytes, kMagic.size());
  if (version != kSeriesSnapshotFormatVersion) {
    return corrupt("unknown format version " + std::to_string(version) + " (this server reads " +
                   std::to_string(kSeriesSnapshotFormatVersion) + ")");
  }
  if (bytes.size() < kHeaderBytes + kChecksumBytes) {
    return corrupt("truncated at byte " + std::to_string(bytes.size()) + ": a snapshot has " +
                   std::to_string(kHeaderBytes + kChecksumBytes) +
                   " bytes at least (header and checksum)");
  }
  const std::string_view body = bytes.substr(0, bytes.size() - kChecksumBytes);
  const uint64_t stored = u64_at(bytes, body.size());
  const uint64_t computed = series_snapshot_checksum(body);
  if (stored != computed) {
    return corrupt("checksum mismatch: the last 8 bytes say " + hex(stored) + ", the " +
                   std::to_string(body.size()) + " bytes before them hash to " + hex(computed) +
                   " (the file is truncated or corrupt)");
  }
  BodyReader in(body, kMagic.size() + 4);
  uint64_t count = 0;
  TSSERVE_RETURN_IF_ERROR(in.u64("the window count", &count));
  if (count > in.remaining() / kMinWindowBytes) {
    return corrupt("truncated at byte " + std::to_string(body.size()) + ": " +
                   std::to_string(count) + " windows cannot fit in the " +
                   std::to_string(in.remaining()) + " bytes before the checksum");
  }
  out->reserve(count);
  std::unordered_set<std::string> keys;
  for (uint64_t k = 0; k < count; ++k) {
    SeriesWindow window;
    TSSERVE_RETURN_IF_ERROR(read_window(in, k, &window));
    if (!keys.insert(window.series_key).second) {
      return corrupt("window " + std::to_string(k) + ": key \"" + window.series_key +
                     "\" appears twice");
    }
    out->push_back(std::move(window));
  }
  if (in.remaining() != 0) {
    return corrupt(std::to_string(in.remaining()) + " bytes after the last window, at byte " +
                   std::to_string(in.position()) + ", where the checksum should start");
  }
  return Status();
}

}  // namespace

uint64_t series_snapshot_checksum(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64's offset basis
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 1099511628211ull;  // its prime
  }
  return hash;
}

std::string encode_series_snapshot(const std::vector<SeriesWindow>& windows) {
  std::size_t size = kHeaderBytes + kChecksumBytes;
  for (const SeriesWindow& window : windows) {
    size += kMinWindowBytes + window.series_key.size() + window.binding.model.size() +
            window.binding.pinned_version.size() + window.values.size() * sizeof(float);
    for (const std::string& name : window.binding.variable_names) size += 4 + name.size();
  }
  std::string out;
  out.reserve(size);
  out.append(kMagic);
  put_u32(&out, kSeriesSnapshotFormatVersion);
  put_u64(&out, windows.size());
  for (const SeriesWindow& window : windows) {
    put_string(&out, window.series_key);
    put_string(&out, window.binding.model);
    put_string(&out, window.binding.pinned_version);
    put_u32(&out, static_cast<uint32_t>(window.binding.variable_names.size()));
    for (const std::string& name : window.binding.variable_names) put_string(&out, name);
    put_i64(&out, window.binding.variables);
    put_i64(&out, window.step_seconds);
    put_i64(&out, window.last_timestamp);
    put_i64(&out, window.accepted_total);
    put_i64(&out, window.points());
    put_u64(&out, window.values.size());
    for (const float value : window.values) {
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      put_u32(&out, bits);
    }
  }
  put_u64(&out, series_snapshot_checksum(out));
  return out;
}

Status decode_series_snapshot(std::string_view bytes, std::vector<SeriesWindow>* out) {
  out->clear();
  std::vector<SeriesWindow> windows;
  TSSERVE_RETURN_IF_ERROR(decode_windows(bytes, &windows));
  *out = std::move(windows);
  return Status();
}

}  // namespace tsserve::server
