#include "command_line.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "config_option.h"

namespace tsserve::server::config_detail {
namespace {

std::string show_default(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    return text.empty() ? "\"\"" : text;
  }
  return value.dump();
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  const std::vector<ConfigOption>& options = config_options();
  const ServerConfig defaults;

  CLI::App app("tsserve: gRPC and HTTP inference server for time-series Transformer forecasters.",
               "tsserve");
  app.get_formatter()->column_width(32);
  app.footer(
      "Each option is also a config file key (the long name with underscores, e.g.\n"
      "max_batch_rows) and an environment variable (TSSERVE_MAX_BATCH_ROWS). Later sources\n"
      "win: defaults < config file < environment < flags. Booleans in flags and the\n"
      "environment: true|false|1|0|yes|no|on|off.");
  std::string config_path;
  CLI::Option* config_flag =
      app.add_option("-c,--config", config_path,
                     "JSON config file of option keys (env: " + std::string(kConfigEnv) + ")")
          ->type_name("FILE")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  std::vector<std::string> flag_values(options.size());
  std::vector<CLI::Option*> flags(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ConfigOption& option = options[i];
    const std::string help = option.help + " (default: " + show_default(option.get(defaults)) +
                             "; env: " + option.env_name() + ")";
    flags[i] = app.add_option(option.flag(), flag_values[i], help)
                   ->type_name(option.type_name)
                   ->group(option.group)
                   ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }

  CommandLine result;
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them so
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    result.help = true;
    result.help_text = app.help();
    return result;
  } catch (const CLI::ParseError& e) {
    result.error = invalid_argument(e.what());
    return result;
  }
  if (config_flag->count() > 0) result.config_path = config_path;
  result.values.resize(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (flags[i]->count() > 0) result.values[i] = std::move(flag_values[i]);
  }
  return result;
}

}  // namespace tsserve::server::config_detail
