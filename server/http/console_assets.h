#pragma once
// The console's files (server/http/console/), compiled in by CMake (console_assets.cpp.in).

#include <string_view>

namespace tsserve::server {

struct ConsoleAsset {
  std::string_view name;          // the file's name: "index.html", "console.js", ...
  std::string_view content_type;  // with its charset
  std::string_view text;
};

// The asset called `name`, or nullptr.
const ConsoleAsset* console_asset(std::string_view name);

}  // namespace tsserve::server
