#pragma once
// A repository model's own serving settings: DIR/<name>/model.json, optional. Every key
// is optional; what is absent falls back to the server's options (ServerConfig), so a
// model folder without model.json is served like the single-model server would serve it.
//
//   {"version_policy": {"latest": 2}        // the newest 2 versions (default: latest 1)
//                    | "all"                // every version folder
//                    | {"specific": [1, 3]},  // exactly these
//    "instances": 2, "threads": 1,          // config/parallelism.h; 0 = auto; threads
//                                           // must equal the server's (process-wide pools)
//    "max_batch_rows": 64, "preferred_batch_rows": 0, "max_queue_delay_ms": 1.0,
//    "max_queue_rows": 1024, "max_queue_wait_ms": 0}
//
// An unknown key, a value of the wrong type or out of range is an error naming the key
// (the whole model is then refused: a typo must not silently serve the defaults).
// No gRPC, no LibTorch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/status/status.h"

namespace tsserve::server {

struct VersionPolicy {
  enum class Kind { kLatest, kAll, kSpecific };
  Kind kind = Kind::kLatest;
  int latest = 1;                 // kLatest: how many of the newest versions
  std::vector<int64_t> specific;  // kSpecific: these versions, ascending, unique

  // Of `available` (ascending, unique), the versions this policy serves (ascending).
  std::vector<int64_t> select(const std::vector<int64_t>& available) const;
  // "latest 1", "all", "specific [1, 3]": for logs and ListModels.
  std::string describe() const;
};

struct ModelSettings {
  VersionPolicy version_policy;
  // Overrides of the server's options; nullopt = the server's value.
  std::optional<int> instances;
  std::optional<int> threads;
  std::optional<int> max_batch_rows;
  std::optional<int> preferred_batch_rows;
  std::optional<double> max_queue_delay_ms;
  std::optional<int> max_queue_rows;
  std::optional<double> max_queue_wait_ms;
};

struct ModelSettingsResult {
  ModelSettings settings;
  // OK: settings hold the file's values; else INVALID_ARGUMENT saying what and which key.
  Status status;
};

// Parses the text of a model.json (comments allowed). Never throws.
ModelSettingsResult parse_model_settings(const std::string& json_text);

}  // namespace tsserve::server
