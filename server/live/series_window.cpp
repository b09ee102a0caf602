#include "server/live/series_window.h"

#include <cstddef>

namespace tsserve::server {

int64_t SeriesWindow::points() const {
  if (binding.variables < 1) return 0;
  return static_cast<int64_t>(values.size()) / binding.variables;
}

std::vector<int64_t> SeriesWindow::timestamps() const {
  const int64_t count = points();
  std::vector<int64_t> out(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    out[static_cast<std::size_t>(i)] = last_timestamp - (count - 1 - i) * step_seconds;
  }
  return out;
}

bool operator==(const SeriesBinding& a, const SeriesBinding& b) {
  return a.model == b.model && a.pinned_version == b.pinned_version &&
         a.variable_names == b.variable_names && a.variables == b.variables;
}

bool operator!=(const SeriesBinding& a, const SeriesBinding& b) { return !(a == b); }

bool operator==(const SeriesWindow& a, const SeriesWindow& b) {
  return a.series_key == b.series_key && a.binding == b.binding &&
         a.step_seconds == b.step_seconds && a.last_timestamp == b.last_timestamp &&
         a.values == b.values && a.accepted_total == b.accepted_total;
}

bool operator!=(const SeriesWindow& a, const SeriesWindow& b) { return !(a == b); }

std::ostream& operator<<(std::ostream& out, const SeriesWindow& window) {
  out << "{key \"" << window.series_key << "\", model \"" << window.binding.model << "\"";
  if (!window.binding.pinned_version.empty()) {
    out << " version \"" << window.binding.pinned_version << "\"";
  }
  return out << ", N=" << window.binding.variables << ", " << window.points() << " points, step "
             << window.step_seconds << " s, last " << window.last_timestamp << ", accepted "
             << window.accepted_total << "}";
}

}  // namespace tsserve::server
