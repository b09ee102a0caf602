#include "server/redis/window_layout.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "server/redis/byte_codec.h"

namespace tsserve::server {
namespace {

Status corrupt(const char* what) {
  return {StatusCode::kInternal, std::string("series window: ") + what};
}

// Bytes of one point (N floats).
std::size_t point_bytes(const SeriesWindow& window) {
  return static_cast<std::size_t>(window.binding.variables) * sizeof(float);
}

// Ring slot of the window's i-th held point (0 = oldest).
std::size_t slot_of(const SeriesWindow& window, int64_t capacity, int64_t i) {
  const int64_t j = window.accepted_total - window.points() + i;
  return static_cast<std::size_t>(j % capacity);
}

}  // namespace

std::string encode_window_head(const SeriesWindow& window, int64_t capacity) {
  std::string out;
  bytes::put_string(&out, window.series_key);
  bytes::put_string(&out, window.binding.model);
  bytes::put_string(&out, window.binding.pinned_version);
  bytes::put<uint32_t>(&out, static_cast<uint32_t>(window.binding.variable_names.size()));
  for (const std::string& name : window.binding.variable_names) bytes::put_string(&out, name);
  for (const int64_t field : {window.binding.variables, window.step_seconds,
                              window.last_timestamp, window.accepted_total, window.points(),
                              capacity}) {
    bytes::put<int64_t>(&out, field);
  }
  return out;
}

Status decode_window(std::string_view head, std::string_view ring, SeriesWindow* window,
                     int64_t* capacity) {
  bytes::Reader in(head);
  SeriesWindow out;
  uint32_t names = 0;
  if (!in.get_string(&out.series_key) || !in.get_string(&out.binding.model) ||
      !in.get_string(&out.binding.pinned_version) || !in.get(&names) ||
      names > in.remaining()) {
    return corrupt("its head is truncated");
  }
  out.binding.variable_names.resize(names);
  for (std::string& name : out.binding.variable_names) {
    if (!in.get_string(&name)) return corrupt("its head is truncated");
  }
  int64_t points = 0;
  if (!in.get(&out.binding.variables) || !in.get(&out.step_seconds) ||
      !in.get(&out.last_timestamp) || !in.get(&out.accepted_total) || !in.get(&points) ||
      !in.get(capacity) || !in.done()) {
    return corrupt("its head is truncated or too long");
  }
  const int64_t variables = out.binding.variables;
  // Bounds first, so that nothing below can overflow: a window of the ring's size at most.
  if (variables < 1 || variables > (1 << 20) || (names != 0 && names != variables) ||
      out.binding.model.empty()) {
    return corrupt("its head names no model or a bad number of variables");
  }
  if (points < 1 || *capacity < points || out.accepted_total < points ||
      (points >= 2 && out.step_seconds <= 0) || out.step_seconds < 0) {
    return corrupt("its head's points, step or capacity are impossible");
  }
  // Each held point has a slot of its own: more points than the ring has room for are
  // corrupt (and bound what is allocated below by the ring's size).
  const std::size_t stride = point_bytes(out);
  if (static_cast<uint64_t>(points) > ring.size() / stride) {
    return corrupt("its ring is shorter than its head says");
  }
  out.values.resize(static_cast<std::size_t>(points * variables));
  for (int64_t i = 0; i < points; ++i) {
    const std::size_t slot = slot_of(out, *capacity, i);
    if (slot >= ring.size() / stride) return corrupt("its ring is shorter than its head says");
    std::memcpy(out.values.data() + static_cast<std::size_t>(i * variables),
                ring.data() + slot * stride, stride);
  }
  *window = std::move(out);
  return Status();
}

std::vector<RingWrite> ring_writes_of_newest(const SeriesWindow& window, int64_t capacity,
                                             int64_t fresh) {
  const int64_t points = window.points();
  const int64_t first = points - std::min(fresh, points);  // the oldest point written
  const std::size_t stride = point_bytes(window);
  std::vector<RingWrite> writes;
  for (int64_t i = first; i < points;) {
    const std::size_t slot = slot_of(window, capacity, i);
    // A run of slots up to the ring's end; the rest wraps to slot 0.
    const int64_t run = std::min(points - i, capacity - static_cast<int64_t>(slot));
    const auto* from = reinterpret_cast<const char*>(window.values.data()) +
                       static_cast<std::size_t>(i) * stride;
    writes.push_back({slot * stride, std::string(from, static_cast<std::size_t>(run) * stride)});
    i += run;
  }
  return writes;
}

std::string whole_ring(const SeriesWindow& window, int64_t capacity) {
  const std::size_t stride = point_bytes(window);
  std::string ring(static_cast<std::size_t>(capacity) * stride, '\0');
  for (int64_t i = 0; i < window.points(); ++i) {
    std::memcpy(ring.data() + slot_of(window, capacity, i) * stride,
                reinterpret_cast<const char*>(window.values.data()) +
                    static_cast<std::size_t>(i) * stride,
                stride);
  }
  return ring;
}

}  // namespace tsserve::server
