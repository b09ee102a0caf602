#include "tsserve/model/environment_lookup.h"

#include <cstdlib>

namespace tsserve::model {

EnvironmentLookup environment_or(const EnvironmentLookup& lookup) {
  if (lookup) return lookup;
  return [](const char* name) -> const char* { return std::getenv(name); };
}

}  // namespace tsserve::model
