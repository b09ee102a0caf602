#pragma once
// The table behind ServerConfig: for each option its name, help, and how a value from a
// flag, the environment (text) or the config file (JSON) is parsed, checked and stored.
// Private to tsserve_server_config.
//
// Messages name the source they are given (`--threads`, `TSSERVE_THREADS`,
// `tsserve.json:threads`) and come in two shapes:
//   "TSSERVE_THREADS: 'x' is not an integer"        (the value cannot be read)
//   "--max-batch-rows must be at least 1 (got 0)"    (it can, but is out of range)

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "server/config/server_options.h"
#include "server/status/status.h"

namespace tsserve::server::config_detail {

struct ConfigOption {
  std::string name;       // config file key, e.g. "max_batch_rows"
  std::string group;      // help section: Model, Batching, Server, Logging
  std::string type_name;  // shown in --help: INT, SECONDS, FILE, ...
  std::string help;
  // Parse, check and store a flag or environment value: OK, or INVALID_ARGUMENT with the
  // message.
  std::function<Status(ServerConfig&, const std::string& text, const std::string& source)>
      set_from_text;
  // The same for a config file value, which must have the option's JSON type.
  std::function<Status(ServerConfig&, const nlohmann::json& value, const std::string& source)>
      set_from_json;
  // The current value, as the config file would hold it.
  std::function<nlohmann::json(const ServerConfig&)> get;

  std::string flag() const;      // "--max-batch-rows"
  std::string env_name() const;  // "TSSERVE_MAX_BATCH_ROWS"
};

// Every option, in --help order.
const std::vector<ConfigOption>& config_options();

// nullptr when `name` is not an option key.
const ConfigOption* find_config_option(std::string_view name);

}  // namespace tsserve::server::config_detail
