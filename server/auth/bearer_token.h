#pragma once
// Bearer-token authentication (RFC 6750): with a token configured, every RPC except the
// health checks must carry the metadata `authorization: Bearer <token>`; anything else is
// UNAUTHENTICATED. Health checks stay open so probes and load balancers need no secret.
//
// The comparison takes the same time wherever the first differing byte is, so response
// timing does not reveal how much of a guess was right. Messages never echo the token.

#include <grpcpp/grpcpp.h>

#include <optional>
#include <string>
#include <string_view>

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

  // OK when the call's `authorization` metadata carries this token; UNAUTHENTICATED with
  // a message saying what was wrong otherwise.
  grpc::Status check(const grpc::ServerContextBase& context) const;

  // The same rule on the header values alone: none, one, or several (`count`, first).
  grpc::Status check_header(std::optional<std::string_view> authorization,
                            std::size_t count = 1) const;

 private:
  std::string token_;
};

}  // namespace tsserve::server
