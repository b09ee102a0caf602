#pragma once
// What every HTTP route asks of a request before its body is decoded, each refusal a
// Status naming the header and the expectation.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/call/service_context.h"
#include "server/httpd/http_message.h"
#include "server/status/status.h"

namespace tsserve::server {

// The `Authorization` header against the configured token (service_context.h).
Status authenticate_http(const ServiceContext& service, const HttpRequest& request);

// OK when Content-Type is absent or `type` (parameters such as charset allowed);
// INVALID_ARGUMENT naming the header otherwise (the routes answer it 415).
Status check_content_type(const HttpRequest& request, const char* type);

// `text` with A-Z as a-z (header values and names compare so).
std::string ascii_lower(std::string_view text);

// The media type of Content-Type, lower-case, without parameters or spaces ("application/
// json" of "Application/JSON; charset=utf-8"); "" when absent.
std::string media_type(const HttpRequest& request);

// Inference-Header-Content-Length (the binary tensor extension: the JSON header's bytes)
// into *length, left unset when absent; INVALID_ARGUMENT naming the header otherwise.
Status inference_header_length(const HttpRequest& request, std::optional<std::size_t>* length);

// The longest Request-Timeout-Ms honoured: a day. A larger one (up to 2^63 - 1, which
// would overflow the clock) is clamped to it.
inline constexpr long long kMaxRequestTimeoutMs = 24LL * 60 * 60 * 1000;

// The request's deadline: now + `Request-Timeout-Ms` (a positive integer, clamped to
// kMaxRequestTimeoutMs), or none.
Status request_deadline(const HttpRequest& request,
                        std::chrono::steady_clock::time_point* deadline);

// The path's segments between slashes, percent-decoded ("/v2/models/a%20b" -> v2, models,
// "a b"); INVALID_ARGUMENT for a malformed escape.
Status path_segments(const std::string& path, std::vector<std::string>* segments);

// A request's path split once (path_segments), by the door, which hands it to the routes:
// the segments (those before a malformed escape, when one ends the parse) and the outcome.
struct RequestPath {
  std::vector<std::string> segments;
  Status parsed;
};
RequestPath split_path(const std::string& path);

// A path's model part: segments[at...] = models, M, [versions, V,] [ACTION]. False when
// it is not that shape (a segment more, or "versions" without one); `action` is "" when
// the path ends at the model or its version.
struct ModelPath {
  std::string model, version, action;
};
bool parse_model_path(const std::vector<std::string>& segments, std::size_t at, ModelPath* out);

}  // namespace tsserve::server
