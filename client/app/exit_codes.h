#pragma once
// tsserve-client's exit codes: stable, documented in docs/api/clients.md, relied on by scripts
// (and by the container's HEALTHCHECK).

namespace tsserve::client::cli {

constexpr int kExitOk = 0;
// The server answered with an error status (printed with its gRPC code and message), or
// `health` found it NOT_SERVING.
constexpr int kExitServerError = 1;
// No connection: nothing listens at the target, TLS handshake failed, or the deadline
// passed while connecting.
constexpr int kExitUnreachable = 2;
// A bad input file or option value (CSV, tokens file, output path): the message names the
// file, the line and the column where it applies.
constexpr int kExitBadInput = 3;
// Command-line syntax (unknown option, missing argument), as sysexits' EX_USAGE.
constexpr int kExitUsage = 64;

}  // namespace tsserve::client::cli
