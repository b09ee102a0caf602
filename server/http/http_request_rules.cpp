#include "server/http/http_request_rules.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace tsserve::server {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status authenticate_http(const ServiceContext& service, const HttpRequest& request) {
  return authenticate(service, request.header("authorization"),
                      request.header_count("authorization"));
}

std::string media_type(const HttpRequest& request) {
  const auto given = request.header("content-type");
  if (!given) return "";
  std::string media = ascii_lower(given->substr(0, given->find(';')));
  media.erase(
      std::remove_if(media.begin(), media.end(), [](char c) { return c == ' ' || c == '\t'; }),
      media.end());
  return media;
}

Status check_content_type(const HttpRequest& request, const char* type) {
  const auto given = request.header("content-type");
  if (!given || media_type(request) == type) return {};
  return invalid_argument("content-type: \"" + std::string(*given) + "\"; send " + type);
}

Status inference_header_length(const HttpRequest& request, std::optional<std::size_t>* length) {
  const auto given = request.header("inference-header-content-length");
  if (!given) return {};
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(given->data(), given->data() + given->size(), value);
  if (error != std::errc() || end != given->data() + given->size()) {
    return invalid_argument("inference-header-content-length: \"" + std::string(*given) +
                            "\"; expected the JSON header's length in bytes");
  }
  *length = value;
  return {};
}

Status request_deadline(const HttpRequest& request,
                        std::chrono::steady_clock::time_point* deadline) {
  *deadline = std::chrono::steady_clock::time_point::max();
  const auto given = request.header("request-timeout-ms");
  if (!given) return {};
  long long milliseconds = 0;
  auto [end, error] = std::from_chars(given->data(), given->data() + given->size(), milliseconds);
  // More digits than a long long holds: a positive number all the same, clamped below.
  if (error == std::errc::result_out_of_range && given->front() != '-') {
    error = std::errc();
    milliseconds = kMaxRequestTimeoutMs;
  }
  if (error != std::errc() || end != given->data() + given->size() || milliseconds <= 0) {
    return invalid_argument("request-timeout-ms: \"" + std::string(*given) +
                            "\"; expected a positive number of milliseconds");
  }
  milliseconds = std::min(milliseconds, kMaxRequestTimeoutMs);
  *deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  return {};
}

RequestPath split_path(const std::string& path) {
  RequestPath split;
  split.parsed = path_segments(path, &split.segments);
  return split;
}

Status path_segments(const std::string& path, std::vector<std::string>* segments) {
  segments->clear();
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view raw(path.data() + start, slash - start);
    if (!raw.empty()) {
      std::string decoded;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '%') {
          decoded += raw[i];
          continue;
        }
        const int high = i + 2 < raw.size() ? hex_value(raw[i + 1]) : -1;
        const int low = i + 2 < raw.size() ? hex_value(raw[i + 2]) : -1;
        if (high < 0 || low < 0) {
          return invalid_argument("the path: \"" + path +
                                  "\" has a malformed percent-escape; expected %XX");
        }
        decoded += static_cast<char>(high * 16 + low);
        i += 2;
      }
      segments->push_back(std::move(decoded));
    }
    start = slash + 1;
  }
  return {};
}

bool parse_model_path(const std::vector<std::string>& segments, std::size_t at, ModelPath* out) {
  const std::size_t n = segments.size();
  if (at + 2 > n || segments[at] != "models") return false;
  out->model = segments[at + 1];
  std::size_t next = at + 2;
  if (next + 2 <= n && segments[next] == "versions") {
    out->version = segments[next + 1];
    next += 2;
  }
  if (next + 1 < n) return false;
  out->action = next < n ? segments[next] : "";
  return true;
}

}  // namespace tsserve::server
