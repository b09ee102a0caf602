#pragma once
// What the accuracy and live-series metrics share: registering a counter family, and the
// spelling of an interval level as a label ("0.8", "0.99"), so series of both join on it.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include <cstdio>
#include <string>

namespace tsserve::server {

inline prometheus::Family<prometheus::Counter>& counter_family(prometheus::Registry& registry,
                                                               const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

// The shortest text that reads back as the level.
inline std::string level_label(double level) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", level);
  return text;
}

}  // namespace tsserve::server
