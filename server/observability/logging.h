#pragma once
// Logging through spdlog's default logger, to stderr, as human text or JSON lines.
//
// JSON lines (for containers and log shippers): one object per line, always in this
// key order,
//
//   {"ts":"2024-05-01T12:00:00.123Z","level":"info","msg":"ready","logger":"tsserve"}
//
// ts is ISO-8601 UTC with milliseconds; level is trace|debug|info|warn|error|critical;
// msg is the formatted message, JSON-escaped (quotes, backslashes, control characters as
// \n \t ... or \u00XX; other UTF-8 as is, invalid UTF-8 bytes as U+FFFD), so every line
// parses whatever the message holds.
//
// Text: "2024-05-01T12:00:00.123Z info  [tsserve] serving on 0.0.0.0:50051", UTC too.
//
// Thread safety: setup_logging() replaces the default logger; call it once at startup,
// before other threads log. The formatters themselves are used under the sink's lock.

#include <spdlog/common.h>
#include <spdlog/formatter.h>
#include <spdlog/logger.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tsserve::server {

enum class LogFormat { kText, kJson };

// "trace" | "debug" | "info" | "warn" | "error" (the config's names); nullopt otherwise.
std::optional<spdlog::level::level_enum> log_level_from_name(std::string_view name);
// "text" | "json"; nullopt otherwise.
std::optional<LogFormat> log_format_from_name(std::string_view name);

// The formatter for `format` (JsonLineFormatter or the text pattern), for any sink.
std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format);

// Makes a logger named "tsserve" writing to stderr in `format` at `level`, and makes it
// spdlog's default logger (spdlog::info(...) and friends then go through it).
void setup_logging(spdlog::level::level_enum level, LogFormat format);

// One JSON object per message, newline-terminated.
class JsonLineFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace tsserve::server
