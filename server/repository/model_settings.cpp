#include "server/repository/model_settings.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tsserve::server {
namespace {

using nlohmann::json;

// A value as an error message shows it: scalars as written, arrays and objects by kind.
// dump() of a value nested 100,000 deep (what a hostile model.json can hold) recurses
// past the stack; a message needs no more than the kind.
std::string shown(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return value.dump();
}

// Reads key `name` of `object` as an integer in [low, high] into `out` (absent: unchanged).
Status read_int(const json& object, const char* name, int low, int high, std::optional<int>& out) {
  auto it = object.find(name);
  if (it == object.end()) return Status();
  if (!it->is_number_integer() || it->get<int64_t>() < low || it->get<int64_t>() > high) {
    return invalid_argument(std::string("\"") + name + "\" is " + shown(*it) +
                            "; expected an integer from " + std::to_string(low) + " to " +
                            std::to_string(high));
  }
  out = static_cast<int>(it->get<int64_t>());
  return Status();
}

Status read_milliseconds(const json& object, const char* name, std::optional<double>& out) {
  auto it = object.find(name);
  if (it == object.end()) return Status();
  if (!it->is_number() || !(it->get<double>() >= 0.0) || it->get<double>() > 3.6e6) {
    return invalid_argument(std::string("\"") + name + "\" is " + shown(*it) +
                            "; expected milliseconds from 0 to 3600000");
  }
  out = it->get<double>();
  return Status();
}

Status read_policy(const json& value, VersionPolicy& policy) {
  const std::string expected =
      "; expected \"all\", {\"latest\": N} (N >= 1) or {\"specific\": [versions >= 1]}";
  if (value.is_string()) {
    if (value.get<std::string>() != "all")
      return invalid_argument("\"version_policy\" is " + shown(value) + expected);
    policy.kind = VersionPolicy::Kind::kAll;
    return Status();
  }
  if (!value.is_object() || value.size() != 1)
    return invalid_argument("\"version_policy\" is " + shown(value) + expected);
  // The object's one member, read through an iterator that outlives the statement (a
  // binding to *value.items().begin() would refer into a destroyed temporary).
  const json::const_iterator member = value.begin();
  const std::string& key = member.key();
  const json& inner = member.value();
  if (key == "latest" && inner.is_number_integer() && inner.get<int64_t>() >= 1 &&
      inner.get<int64_t>() <= std::numeric_limits<int>::max()) {
    policy.kind = VersionPolicy::Kind::kLatest;
    policy.latest = static_cast<int>(inner.get<int64_t>());
    return Status();
  }
  if (key == "specific" && inner.is_array() && !inner.empty()) {
    std::vector<int64_t> versions;
    for (const json& version : inner) {
      if (!version.is_number_integer() || version.get<int64_t>() < 1)
        return invalid_argument("\"version_policy\" is " + shown(value) + expected);
      versions.push_back(version.get<int64_t>());
    }
    std::sort(versions.begin(), versions.end());
    versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
    policy.kind = VersionPolicy::Kind::kSpecific;
    policy.specific = std::move(versions);
    return Status();
  }
  return invalid_argument("\"version_policy\" is " + shown(value) + expected);
}

}  // namespace

std::vector<int64_t> VersionPolicy::select(const std::vector<int64_t>& available) const {
  switch (kind) {
    case Kind::kAll:
      return available;
    case Kind::kLatest: {
      const std::size_t keep = std::min(available.size(), static_cast<std::size_t>(latest));
      return std::vector<int64_t>(available.end() - static_cast<std::ptrdiff_t>(keep),
                                  available.end());
    }
    case Kind::kSpecific: {
      std::vector<int64_t> chosen;
      std::set_intersection(available.begin(), available.end(), specific.begin(), specific.end(),
                            std::back_inserter(chosen));
      return chosen;
    }
  }
  return {};
}

std::string VersionPolicy::describe() const {
  switch (kind) {
    case Kind::kAll:
      return "all";
    case Kind::kLatest:
      return "latest " + std::to_string(latest);
    case Kind::kSpecific: {
      std::ostringstream text;
      text << "specific [";
      for (std::size_t i = 0; i < specific.size(); ++i) text << (i ? ", " : "") << specific[i];
      text << "]";
      return text.str();
    }
  }
  return "";
}

ModelSettingsResult parse_model_settings(const std::string& json_text) {
  ModelSettingsResult result;
  json object;
  try {
    object = json::parse(json_text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& error) {
    result.status = invalid_argument(std::string("not JSON: ") + error.what());
    return result;
  }
  if (!object.is_object()) {
    result.status = invalid_argument("expected one JSON object of settings, found " +
                                     std::string(object.type_name()));
    return result;
  }
  static const char* const kKeys[] = {
      "version_policy",       "instances",          "threads",        "max_batch_rows",
      "preferred_batch_rows", "max_queue_delay_ms", "max_queue_rows", "max_queue_wait_ms"};
  for (const auto& item : object.items()) {
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     [&](const char* key) { return item.key() == key; }) == std::end(kKeys)) {
      result.status = invalid_argument(
          "unknown key \"" + item.key() +
          "\"; expected version_policy, instances, threads, max_batch_rows, "
          "preferred_batch_rows, max_queue_delay_ms, max_queue_rows, max_queue_wait_ms");
      return result;
    }
  }
  ModelSettings& s = result.settings;
  constexpr int kMax = std::numeric_limits<int>::max();
  for (Status read :
       {object.contains("version_policy") ? read_policy(object["version_policy"], s.version_policy)
                                          : Status(),
        read_int(object, "instances", 0, 1024, s.instances),
        read_int(object, "threads", 0, 1024, s.threads),
        read_int(object, "max_batch_rows", 1, kMax, s.max_batch_rows),
        read_int(object, "preferred_batch_rows", 0, kMax, s.preferred_batch_rows),
        read_milliseconds(object, "max_queue_delay_ms", s.max_queue_delay_ms),
        read_int(object, "max_queue_rows", 1, kMax, s.max_queue_rows),
        read_milliseconds(object, "max_queue_wait_ms", s.max_queue_wait_ms)}) {
    if (!read.ok()) {
      result.status = std::move(read);
      return result;
    }
  }
  return result;
}

}  // namespace tsserve::server
