#include "server/auth/bearer_token.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tsserve::server {
namespace {

constexpr std::string_view kScheme = "bearer";

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool has_space(std::string_view text) { return std::any_of(text.begin(), text.end(), is_space); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

Status unauthenticated(const std::string& why) {
  return {StatusCode::kUnauthenticated,
          "authorization: " + why +
              "; every call but the health checks needs the gRPC metadata or HTTP header "
              "\"authorization: Bearer <token>\""};
}

}  // namespace

bool constant_time_equal(std::string_view expected, std::string_view given) {
  // Every byte of `given` is compared (against expected, cycled), whatever the outcome so
  // far: no early exit for the timing to betray. A length mismatch only sets a bit.
  unsigned difference = expected.size() == given.size() ? 0U : 1U;
  for (std::size_t i = 0; i < given.size(); ++i) {
    difference |= static_cast<unsigned char>(given[i]) ^
                  static_cast<unsigned char>(expected[i % expected.size()]);
  }
  return difference == 0;
}

BearerTokenCheck BearerTokenCheck::from_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("auth_token_file " + path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  const std::string content = text.str();
  const std::string_view token = trim(content);
  if (token.empty()) {
    throw std::runtime_error("auth_token_file " + path +
                             ": empty; it must hold the token (one line)");
  }
  if (has_space(token)) {
    throw std::runtime_error("auth_token_file " + path +
                             ": holds whitespace inside the token; it must hold the token alone "
                             "on one line");
  }
  return BearerTokenCheck(std::string(token));
}

BearerTokenCheck::BearerTokenCheck(std::string token) : token_(std::move(token)) {
  if (token_.empty() || has_space(token_)) {
    throw std::invalid_argument("a bearer token must be non-empty and free of whitespace");
  }
}

Status BearerTokenCheck::check_header(std::optional<std::string_view> authorization,
                                      std::size_t count) const {
  if (!authorization || count == 0) return unauthenticated("missing");
  if (count > 1) return unauthenticated("sent " + std::to_string(count) + " times; send it once");
  const std::string_view value = trim(*authorization);
  const std::size_t space = value.find(' ');
  if (space == std::string_view::npos || !iequals(value.substr(0, space), kScheme)) {
    return unauthenticated("not a Bearer credential");
  }
  if (!constant_time_equal(token_, trim(value.substr(space + 1)))) {
    return unauthenticated("the bearer token is not valid");
  }
  return {};
}

}  // namespace tsserve::server
