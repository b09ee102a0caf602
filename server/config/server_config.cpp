#include "server/config/server_config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "command_line.h"
#include "config_option.h"
#include "server/batching/dynamic_batcher.h"

#ifndef TSSERVE_DEFAULT_MODEL
#error "TSSERVE_DEFAULT_MODEL must be defined by the build (server/CMakeLists.txt)"
#endif

namespace tsserve::server {
namespace {

using config_detail::config_options;
using config_detail::ConfigOption;
using config_detail::kConfigEnv;
using nlohmann::json;

// Where each option's value came from, for messages about pairs of options.
class Sources {
 public:
  void set(const std::string& name, std::string source) { sources_[name] = std::move(source); }
  // "448, default" / "100, from --max-queue-rows".
  std::string describe(const ServerConfig& config, const std::string& name) const {
    const ConfigOption* option = config_detail::find_config_option(name);
    // A path from a flag or the environment need not be UTF-8, which dump() would throw on
    // (found by tests/fuzz: --tls-cert $'\xff' alone aborted tsserve).
    std::string value = option->get(config).dump(-1, ' ', false, json::error_handler_t::replace);
    auto it = sources_.find(name);
    return value + (it == sources_.end() ? ", default" : ", from " + it->second);
  }
  bool is_set(const ServerConfig& config, const std::string& name) const {
    return !config_detail::find_config_option(name)->get(config).get<std::string>().empty();
  }

 private:
  std::map<std::string, std::string> sources_;
};

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string unknown_key_message(const std::string& file, const std::string& key) {
  std::string message = file + ": unknown key '" + key + "'";
  const ConfigOption* nearest = nullptr;
  std::size_t best = 3;  // suggest only close spellings
  for (const ConfigOption& option : config_options()) {
    std::string spelled = key;
    std::replace(spelled.begin(), spelled.end(), '-', '_');
    std::size_t distance = edit_distance(spelled, option.name);
    if (distance < best) {
      best = distance;
      nearest = &option;
    }
  }
  if (nearest != nullptr) return message + " (did you mean '" + nearest->name + "'?)";
  return message + " (keys are the long flag names with underscores, e.g. max_batch_rows)";
}

void apply_file(const std::string& path, ServerConfig& config, Sources& sources,
                std::vector<std::string>& errors) {
  std::ifstream in(path);
  if (!in) {
    errors.push_back(path + ": cannot read the config file (" + std::strerror(errno) + ")");
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  json document;
  try {
    document = json::parse(text.str(), nullptr, /*allow_exceptions=*/true,
                           /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    // Not only parse_error: a number beyond double ("1e999") is out_of_range, and once
    // escaped uncaught and aborted tsserve (found by tests/fuzz).
    std::string what = e.what();
    std::size_t end_of_id = what.find("] ");  // drop "[json.exception.parse_error.101] "
    if (end_of_id != std::string::npos) what = what.substr(end_of_id + 2);
    errors.push_back(path + ": not valid JSON: " + what);
    return;
  }
  if (!document.is_object()) {
    errors.push_back(path + ": expected a JSON object of options, got " +
                     std::string(document.type_name()));
    return;
  }
  for (const auto& [key, value] : document.items()) {
    const ConfigOption* option = config_detail::find_config_option(key);
    if (option == nullptr) {
      errors.push_back(unknown_key_message(path, key));
      continue;
    }
    std::string source = path;
    source += ":" + key;
    const Status set = option->set_from_json(config, value, source);
    if (!set.ok()) {
      errors.push_back(set.message());
    } else {
      sources.set(key, source);
    }
  }
}

// Rules about more than one option, on the merged values.
void check_combinations(const ServerConfig& config, const Sources& sources,
                        std::vector<std::string>& errors) {
  // Each option's own range (max_batch_rows >= 1, the others >= 0) was checked as it was
  // read, and a value out of range was not stored, so the casts keep every value.
  for (std::string& problem :
       row_limit_problems(static_cast<std::size_t>(config.batching.max_batch_rows),
                          static_cast<std::size_t>(config.batching.preferred_batch_rows),
                          static_cast<std::size_t>(config.batching.max_queue_rows),
                          [&](const char* option) { return sources.describe(config, option); })) {
    errors.push_back(std::move(problem));
  }
  const bool cert = sources.is_set(config, "tls_cert");
  const bool key = sources.is_set(config, "tls_key");
  if (cert != key) {
    const std::string given = cert ? "tls_cert" : "tls_key";
    const std::string missing = cert ? "tls_key" : "tls_cert";
    errors.push_back(given + " (" + sources.describe(config, given) + ") is set but " + missing +
                     " is not: give both, or neither for plaintext");
  }
  if (sources.is_set(config, "tls_ca") && !(cert && key)) {
    errors.push_back("tls_ca (" + sources.describe(config, "tls_ca") +
                     ") needs tls_cert and tls_key: a server that verifies client "
                     "certificates presents its own");
  }
  if (!config.live.series_store.empty() && !config.live.series_store_dir.empty()) {
    errors.push_back("series_store_dir (" + sources.describe(config, "series_store_dir") +
                     ") snapshots the in-process store, but series_store (" +
                     sources.describe(config, "series_store") +
                     ") holds the series in a shared store: give one or the other");
  }
  // Two listeners on one fixed port cannot both bind (port 0 picks a free one each).
  const std::pair<const char*, const std::string*> listeners[] = {
      {"grpc_address", &config.server.grpc_address},
      {"http_address", &config.server.http_address},
      {"metrics_address", &config.server.metrics_address}};
  for (std::size_t i = 0; i < std::size(listeners); ++i) {
    for (std::size_t j = i + 1; j < std::size(listeners); ++j) {
      const std::string& a = *listeners[i].second;
      if (a.empty() || a != *listeners[j].second || a.substr(a.rfind(':')) == ":0") continue;
      errors.push_back(std::string(listeners[j].first) + " (" +
                       sources.describe(config, listeners[j].first) + ") is the " +
                       listeners[i].first + " (" + sources.describe(config, listeners[i].first) +
                       "): they need different ports");
    }
  }
}

// Values from flags, the environment and the file are quoted as given, so a problem could
// hold a newline or a terminal escape; control bytes are shown as \xNN instead, which keeps
// each problem on one line (found by tests/fuzz: CLI11 echoes an unexpected argument).
std::string one_line(const std::string& problem) {
  std::string line;
  for (const char c : problem) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      line += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
    } else {
      line += c;
    }
  }
  return line;
}

std::string error_message(const std::vector<std::string>& errors) {
  std::string message;
  for (const std::string& error : errors) message += one_line(error) + "\n";
  return message +
         "Run tsserve --help for every option, its default and its environment "
         "variable.\n";
}

}  // namespace

std::string default_model_path() { return TSSERVE_DEFAULT_MODEL; }

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

ConfigLoadResult load_server_config(const std::vector<std::string>& args,
                                    const Environment& environment) {
  const std::vector<ConfigOption>& options = config_options();

  ConfigLoadResult result;
  const config_detail::CommandLine command_line = config_detail::parse_command_line(args);
  if (command_line.help) {
    result.outcome = ConfigLoadResult::Outcome::kHelp;
    result.message = command_line.help_text;
    return result;
  }
  if (!command_line.error.ok()) {
    result.message = error_message({command_line.error.message()});
    return result;
  }

  ServerConfig& config = result.config;
  Sources sources;
  std::vector<std::string> errors;

  std::optional<std::string> file =
      command_line.config_path ? command_line.config_path : environment(kConfigEnv);
  if (file && !file->empty()) apply_file(*file, config, sources, errors);

  for (const ConfigOption& option : options) {
    const std::string name = option.env_name();
    std::optional<std::string> value = environment(name);
    if (!value) continue;
    const Status set = option.set_from_text(config, *value, name);
    if (!set.ok()) {
      errors.push_back(set.message());
    } else {
      sources.set(option.name, name);
    }
  }

  for (std::size_t i = 0; i < options.size(); ++i) {
    if (!command_line.values[i]) continue;
    const std::string name = options[i].flag();
    const Status set = options[i].set_from_text(config, *command_line.values[i], name);
    if (!set.ok()) {
      errors.push_back(set.message());
    } else {
      sources.set(options[i].name, name);
    }
  }

  if (errors.empty()) check_combinations(config, sources, errors);
  if (!errors.empty()) {
    result.message = error_message(errors);
    return result;
  }
  result.outcome = ConfigLoadResult::Outcome::kRun;
  return result;
}

ConfigLoadResult load_server_config(int argc, const char* const* argv,
                                    const Environment& environment) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return load_server_config(args, environment);
}

std::string to_config_json(const ServerConfig& config) {
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  for (const ConfigOption& option : config_options()) {
    document[option.name] = option.get(config);
  }
  // Bytes that are not UTF-8 (possible in paths) become U+FFFD: JSON text cannot hold them.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace tsserve::server
