#pragma once
// Bearer-token authentication (RFC 6750): with a token configured, every call except the
// health checks must carry `authorization: Bearer <token>` (gRPC metadata or HTTP header); anything
// else is UNAUTHENTICATED. Health checks stay open so probes and load balancers need no secret.
//
// The comparison takes the same time wherever the first differing byte is, so response
// timing does not reveal how much of a guess was right. Messages never echo the token.

#include <optional>
#include <string>
#include <string_view>

#include "server/status/status.h"

namespace tsserve::server {

// Whether `given` equals `expected`, in time that depends only on given.size().
// `expected` must not be empty.
bool constant_time_equal(std::string_view expected, std::string_view given);

class BearerTokenCheck {
 public:
  // Reads the token from `path` (the file's only line; surrounding whitespace and the
  // newline are not part of it). Throws std::runtime_error naming auth_token_file and the
  // path when the file cannot be read, is empty, or holds more than one line or a space.
  static BearerTokenCheck from_file(const std::string& path);

  // `token` must be non-empty and free of whitespace.
  explicit BearerTokenCheck(std::string token);

  // OK when the call's `authorization` values (gRPC metadata or HTTP header: none, one or
  // several, `count` of them, the first given) carry this token; UNAUTHENTICATED with a
  // message saying what was wrong otherwise.
  Status check_header(std::optional<std::string_view> authorization, std::size_t count = 1) const;

 private:
  std::string token_;
};

}  // namespace tsserve::server
