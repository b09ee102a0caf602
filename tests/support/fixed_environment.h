#pragma once
// An Environment (server/config/server_config.h) that holds exactly `variables`, so config
// tests never read or change the process environment.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "server/config/server_config.h"

namespace tsserve::server {

inline Environment fixed_environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace tsserve::server
