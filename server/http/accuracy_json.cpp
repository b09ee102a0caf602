#include "server/http/accuracy_json.h"

#include "server/codec/json/json_writer.h"

namespace tsserve::server {
namespace {

// sum / points, or null when nothing was scored.
void mean_or_null(JsonWriter& out, double sum, double points) {
  if (points > 0) {
    out.number(sum / points);
  } else {
    out.null();
  }
}

void write_version(JsonWriter& out, const VersionAccuracy& version) {
  out.begin_object();
  out.key("model").string(version.model);
  out.key("version").string(version.version);
  out.key("horizons").begin_array();
  for (int b = 0; b < kHorizonBucketCount; ++b) {
    const HorizonErrors& errors = version.horizons[static_cast<std::size_t>(b)];
    out.begin_object();
    out.key("steps").string(horizon_bucket_label(b));
    out.key("points").number(errors.points);
    out.key("mae");
    mean_or_null(out, errors.abs_error, errors.points);
    out.key("mse");
    mean_or_null(out, errors.squared_error, errors.points);
    out.end_object();
  }
  out.end_array();
  out.key("intervals").begin_array();
  for (const LevelCoverage& level : version.levels) {
    out.begin_object();
    out.key("level").number(level.level);
    out.key("horizons").begin_array();
    for (int b = 0; b < kHorizonBucketCount; ++b) {
      const auto i = static_cast<std::size_t>(b);
      out.begin_object();
      out.key("steps").string(horizon_bucket_label(b));
      out.key("points").number(level.scored[i]);
      out.key("coverage");
      mean_or_null(out, level.covered[i], level.scored[i]);
      out.end_object();
    }
    out.end_array();
    out.end_object();
  }
  out.end_array();
  out.end_object();
}

}  // namespace

std::string write_accuracy_json(const std::optional<std::vector<VersionAccuracy>>& accuracy) {
  JsonWriter out;
  out.begin_object();
  out.key("counting").boolean(accuracy.has_value());
  out.key("versions").begin_array();
  if (accuracy) {
    for (const VersionAccuracy& version : *accuracy) write_version(out, version);
  }
  out.end_array();
  out.end_object();
  return out.take();
}

}  // namespace tsserve::server
