// tsserve-config-reference: prints docs/configuration.md, the reference of every tsserve
// option, from the same table and command line that `tsserve --help` is built from, so the
// page cannot drift from the server. CTest docs_configuration_current compares the
// committed page with this program's output; tests/tools/regenerate_docs.sh rewrites it.
//
// The page must read the same on every machine, so nothing of this build or this machine
// is printed: the default checkpoint (an absolute path chosen at build time) is shown
// relative to the source tree, and "auto" stays "auto" (what it resolves to is described,
// not computed for this machine's cores).
//
// The prose states how sources combine and that the example file loads; both are checked
// here against load_server_config() before anything is printed, so a change of the rules
// fails the generator (and the test) instead of leaving the page wrong.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "config_option.h"
#include "server/config/parallelism.h"
#include "server/config/server_config.h"

#ifndef TSSERVE_SOURCE_DIR
#error "TSSERVE_SOURCE_DIR must be defined by the build (server/config/CMakeLists.txt)"
#endif

namespace {

using nlohmann::json;
using tsserve::server::ConfigLoadResult;
using tsserve::server::ServerConfig;
using tsserve::server::config_detail::config_options;
using tsserve::server::config_detail::ConfigOption;

[[noreturn]] void fail(const std::string& why) {
  std::cerr << "tsserve-config-reference: " << why << "\n";
  std::exit(1);
}

// A path under the source tree, relative to it (the build machine's checkout is nobody
// else's); any other path as it is.
std::string machine_independent(const std::string& path) {
  const std::string root = std::string(TSSERVE_SOURCE_DIR) + "/";
  return path.compare(0, root.size(), root) == 0 ? path.substr(root.size()) : path;
}

// An option's default as the config file would hold it, with the checkpoint's path made
// machine-independent.
json default_value(const ConfigOption& option) {
  json value = option.get(ServerConfig{});
  if (option.name == "model") value = machine_independent(value.get<std::string>());
  return value;
}

// Text for a Markdown table cell: a `|` would end the cell, and `<`, `*` would be read as
// HTML or emphasis.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|' || c == '<' || c == '>' || c == '*') out += '\\';
    out += c;
  }
  return out;
}

// Inline code inside a table cell: only the `|` needs its backslash there.
std::string code_cell(const std::string& text) {
  std::string out = "`";
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out + "`";
}

std::string default_cell(const json& value) {
  if (value.is_string() && value.get<std::string>().empty()) return "(none)";
  return code_cell(value.dump());
}

// A flag of the command line that is not in the table (CLI11's --help, --config, and any
// added later), as `tsserve --help` prints it.
struct ExtraFlag {
  std::string names;  // "-c,--config"
  std::string type_name;
  std::string help;
  std::string env;  // from "(env: NAME)" in the help, or ""
};

// The flags listed before the first option group of the help text, less the table's.
std::vector<ExtraFlag> flags_outside_table() {
  const auto command_line = tsserve::server::config_detail::parse_command_line({"--help"});
  if (!command_line.help) fail("tsserve --help did not give the help text");
  std::map<std::string, bool> table_flags;
  for (const ConfigOption& option : config_options()) table_flags[option.flag()] = true;

  std::vector<ExtraFlag> extra;
  std::istringstream lines(command_line.help_text);
  std::string line;
  bool in_options = false;
  // "  -c,--config FILE   JSON config file ... (env: TSSERVE_CONFIG)"
  const std::regex flag_line(R"(^\s+((?:-\w,)?--[\w-]+)(?: ([^ ]+))?\s{2,}(.*)$)");
  const std::regex env_note(R"(\s*\(env: ([A-Z0-9_]+)\)$)");
  while (std::getline(lines, line)) {
    if (line == "Options:") {
      in_options = true;
      continue;
    }
    if (!in_options) continue;
    if (line.empty()) break;  // the groups of the table follow
    std::smatch match;
    if (!std::regex_match(line, match, flag_line)) fail("cannot read the help line: " + line);
    const std::string names = match[1];
    const std::string long_name = names.substr(names.find("--"));
    if (table_flags.count(long_name) > 0) continue;
    ExtraFlag flag{names, match[2], match[3], ""};
    std::smatch env;
    if (std::regex_search(flag.help, env, env_note)) {
      flag.env = env[1];
      flag.help = flag.help.substr(0, static_cast<std::size_t>(env.position(0)));
    }
    extra.push_back(flag);
  }
  if (extra.empty()) fail("no --help or --config in tsserve --help");
  return extra;
}

// "-c,--config" as "`-c`, `--config`".
std::string flag_names_cell(const std::string& names) {
  std::string out;
  std::size_t start = 0;
  while (start <= names.size()) {
    std::size_t comma = names.find(',', start);
    if (comma == std::string::npos) comma = names.size();
    out += (out.empty() ? "" : ", ") + code_cell(names.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The options the config file example sets: what a deployment changes first.
const char* const kExampleKeys[] = {
    "model", "device", "instances", "max_queue_delay_ms", "batch_invariant", "log_format"};

// The example config file: kExampleKeys at their defaults, in table order.
std::string example_config() {
  nlohmann::ordered_json example = nlohmann::ordered_json::object();
  for (const char* key : kExampleKeys) {
    const ConfigOption* option = tsserve::server::config_detail::find_config_option(key);
    if (option == nullptr) fail(std::string("the example names no option '") + key + "'");
    example[key] = default_value(*option);
  }
  return example.dump(2) + "\n";
}

// load_server_config() with `args`, `environment` and, when given, a config file holding
// `file_text`, named by --config or by TSSERVE_CONFIG.
ConfigLoadResult load(std::vector<std::string> args, std::map<std::string, std::string> environment,
                      const std::optional<std::string>& file_text,
                      bool file_by_environment = false) {
  std::string path;
  if (file_text) {
    char name[] = "/tmp/tsserve-config-reference-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) fail("cannot create a temporary config file");
    close(fd);
    path = name;
    std::ofstream(path) << *file_text;
    if (file_by_environment) {
      environment[tsserve::server::config_detail::kConfigEnv] = path;
    } else {
      args.insert(args.begin(), {"--config", path});
    }
  }
  ConfigLoadResult result = tsserve::server::load_server_config(
      args, [&](const std::string& name) -> std::optional<std::string> {
        auto it = environment.find(name);
        if (it == environment.end()) return std::nullopt;
        return it->second;
      });
  if (!path.empty()) std::remove(path.c_str());
  return result;
}

// What the page says about sources, checked: flag > environment > config file > default,
// the example file loads, comments are allowed and an unknown key is refused.
void check_the_prose() {
  const std::string file = "{\"http_threads\": 3}";
  const std::map<std::string, std::string> env = {{"TSSERVE_HTTP_THREADS", "4"}};
  auto threads = [](const ConfigLoadResult& result) {
    if (result.outcome != ConfigLoadResult::Outcome::kRun) fail("load failed: " + result.message);
    return result.config.server.http_threads;
  };
  const int by_default = ServerConfig{}.server.http_threads;
  if (by_default == 3 || by_default == 4 || by_default == 5) fail("pick other example values");
  if (threads(load({"--http-threads", "5"}, env, file)) != 5) fail("a flag no longer wins");
  if (threads(load({}, env, file)) != 4) fail("the environment no longer beats the file");
  if (threads(load({}, {}, file)) != 3) fail("the config file no longer beats the default");
  if (threads(load({}, {}, std::nullopt)) != by_default) fail("the default is not the default");
  if (threads(load({}, {}, file, /*file_by_environment=*/true)) != 3) {
    fail("TSSERVE_CONFIG no longer names the config file");
  }
  threads(load({}, {}, "// a comment\n/* and another */\n" + example_config()));
  if (load({}, {}, "{\"max_batch_row\": 1}").outcome != ConfigLoadResult::Outcome::kError) {
    fail("an unknown key is no longer refused");
  }
  // auto: threads 1, instances = cores / threads on a CPU, 1 on a GPU.
  const auto cpu = tsserve::server::resolve_parallelism(ServerConfig{}.model, 8, false);
  const auto gpu = tsserve::server::resolve_parallelism(ServerConfig{}.model, 8, true);
  if (cpu.threads != 1 || cpu.instances != 8 || gpu.instances != 1) {
    fail("what auto resolves to changed: update the page's text on auto");
  }
}

void print_intro(std::ostream& out) {
  out << R"(<!-- generated by tsserve-config-reference (server/config/config_reference_main.cpp); do not edit: regenerate with bash tests/tools/regenerate_docs.sh -->
# Configuration

Every option of the `tsserve` server: its flag, environment variable, config file key,
type, default and meaning. This page is generated from the server's option table
(`server/config/config_option.cpp`), the same table `tsserve --help` prints, and a test
(`docs_configuration_current`) fails when the two differ.

## Where options come from

Each option has one name, spelled three ways: the flag (`--max-batch-rows`), the
environment variable (`TSSERVE_MAX_BATCH_ROWS`, for containers) and the config file key
(`max_batch_rows`). When an option is given in several places, the first of these wins:

1. the flag on the command line;
2. the environment variable;
3. the config file (`--config FILE`, or the file named by `TSSERVE_CONFIG`);
4. the default below.

In flags and the environment, booleans are `true`, `false`, `1`, `0`, `yes`, `no`, `on` or
`off`. Every value is checked at start; a wrong one stops the server with a message naming
the option and where its value came from (`--threads`, `TSSERVE_THREADS` or
`FILE:threads`).

## The config file

One flat JSON object of option keys. Values are typed (numbers as JSON numbers, booleans as
`true`/`false`), `//` and `/* */` comments are allowed, and an unknown key is an error, so a
typo never leaves a default silently in place. For example, with these options at their
defaults:

```json
)";
  out << example_config();
  out << R"(```

A relative path is read from the directory tsserve starts in. The default checkpoint's
path is absolute, fixed at build time (below), so it does not depend on that directory.

)";
}

void print_reference(std::ostream& out) {
  out << "## Command line only\n\n"
      << "| Flag | Environment variable | Type | Description |\n"
      << "|---|---|---|---|\n";
  for (const ExtraFlag& flag : flags_outside_table()) {
    out << "| " << flag_names_cell(flag.names) << " | "
        << (flag.env.empty() ? "" : code_cell(flag.env)) << " | " << cell(flag.type_name) << " | "
        << cell(flag.help) << " |\n";
  }
  out << "\n";

  // The groups in table order, each option in table order within its group.
  std::vector<std::string> groups;
  for (const ConfigOption& option : config_options()) {
    if (std::find(groups.begin(), groups.end(), option.group) == groups.end()) {
      groups.push_back(option.group);
    }
  }
  for (const std::string& group : groups) {
    out << "## " << group << "\n\n"
        << "| Flag | Environment variable | Config file key | Type | Default | Description |\n"
        << "|---|---|---|---|---|---|\n";
    for (const ConfigOption& option : config_options()) {
      if (option.group != group) continue;
      out << "| " << code_cell(option.flag()) << " | " << code_cell(option.env_name()) << " | "
          << code_cell(option.name) << " | " << cell(option.type_name) << " | "
          << default_cell(default_value(option)) << " | " << cell(option.help) << " |\n";
    }
    out << "\n";
    if (group == "Model") {
      out << "The default `--model` is the checkpoint chosen at build time (CMake's\n"
             "`TSSERVE_DEFAULT_MODEL`), an absolute path compiled into the binary: the\n"
             "bundled model in the source tree the build was made from (shown above relative\n"
             "to the tree, since the build machine's checkout is nobody else's), or the\n"
             "image's own copy in the container image. `auto` is\n"
             "resolved at start: `--threads auto` is 1, and `--instances auto` is the number\n"
             "of CPU cores this process may use divided by the threads per instance (1 on a\n"
             "GPU).\n\n";
    }
  }
}

}  // namespace

int main() {
  try {
    check_the_prose();
    std::ostringstream page;
    print_intro(page);
    print_reference(page);
    std::string text = page.str();
    while (text.size() >= 2 && text.compare(text.size() - 2, 2, "\n\n") == 0) text.pop_back();
    std::cout << text;
    return std::cout.good() ? 0 : 1;
  } catch (const std::exception& e) {  // a JSON type error would say the table changed shape
    std::cerr << "tsserve-config-reference: " << e.what() << "\n";
    return 1;
  }
}
