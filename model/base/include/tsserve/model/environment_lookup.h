#pragma once
// Reads one environment variable: std::getenv in the server, a fixed map in a test.

#include <functional>

namespace tsserve::model {

// The variable's value, or nullptr when it is not set.
using EnvironmentLookup = std::function<const char*(const char* name)>;

// `lookup`, or std::getenv when `lookup` is empty.
EnvironmentLookup environment_or(const EnvironmentLookup& lookup);

}  // namespace tsserve::model
