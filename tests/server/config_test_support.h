#pragma once
// Loading the server's config in tests: flags and a fixed environment, no process state.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fixed_environment.h"
#include "server/config/server_config.h"

namespace tsserve::server::testing {

inline ConfigLoadResult load(const std::vector<std::string>& args,
                             std::map<std::string, std::string> env = {}) {
  return load_server_config(args, fixed_environment(std::move(env)));
}

}  // namespace tsserve::server::testing
