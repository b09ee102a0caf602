#pragma once
// The OpenAPI 3.1 document of the JSON API (docs/api/openapi.json), compiled in at build
// time so that what GET /openapi.json serves is the file the tests validate.

#include <string_view>

namespace tsserve::server {

std::string_view openapi_document();

}  // namespace tsserve::server
