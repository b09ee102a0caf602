#pragma once
// tsserve's command line, parsed against the option table (config_option.h): which flags
// were given and their text, checked later with the environment's and the file's values.
// The one source that includes CLI11, whose headers cost more to compile than the rest
// of the config together. Private to tsserve_server_config.

#include <optional>
#include <string>
#include <vector>

#include "server/status/status.h"

namespace tsserve::server::config_detail {

// The environment variable naming a config file, as --config does.
inline constexpr const char* kConfigEnv = "TSSERVE_CONFIG";

struct CommandLine {
  bool help = false;  // --help: help_text is the whole help
  std::string help_text;
  Status error;  // INVALID_ARGUMENT: an unknown flag, a missing value, ...
  std::optional<std::string> config_path;          // --config, when given
  std::vector<std::optional<std::string>> values;  // per config_options() entry
};

// `args` without the program name. Never throws for what the user typed.
CommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace tsserve::server::config_detail
