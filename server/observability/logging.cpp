#include "server/observability/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <utility>

#include "server/codec/json/json_writer.h"

namespace tsserve::server {
namespace {

constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 5> kLevels = {{
    {"trace", spdlog::level::trace},
    {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},
    {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},
}};

std::string_view level_name(spdlog::level::level_enum level) {
  for (const auto& [name, value] : kLevels) {
    if (value == level) return name;
  }
  return level == spdlog::level::critical ? "critical" : "off";
}

// ISO-8601 UTC with milliseconds: 2024-05-01T12:00:00.123Z.
void append_timestamp(std::chrono::system_clock::time_point time, spdlog::memory_buf_t& dest) {
  const auto since_epoch = time.time_since_epoch();
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count();
  const std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  const int n = std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                              utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                              utc.tm_min, utc.tm_sec, static_cast<int>(millis));
  dest.append(text, text + n);
}

void append(std::string_view text, spdlog::memory_buf_t& dest) {
  dest.append(text.data(), text.data() + text.size());
}

}  // namespace

std::optional<spdlog::level::level_enum> log_level_from_name(std::string_view name) {
  for (const auto& [level_name, level] : kLevels) {
    if (level_name == name) return level;
  }
  return std::nullopt;
}

std::optional<LogFormat> log_format_from_name(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return std::nullopt;
}

void JsonLineFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  std::string escaped;
  escaped.reserve(msg.payload.size() + 16);
  append("{\"ts\":\"", dest);
  append_timestamp(msg.time, dest);
  append("\",\"level\":\"", dest);
  append(level_name(msg.level), dest);
  append("\",\"msg\":\"", dest);
  append_json_escaped(std::string_view(msg.payload.data(), msg.payload.size()), escaped);
  append(escaped, dest);
  append("\",\"logger\":\"", dest);
  escaped.clear();
  append_json_escaped(std::string_view(msg.logger_name.data(), msg.logger_name.size()), escaped);
  append(escaped, dest);
  append("\"}\n", dest);
}

std::unique_ptr<spdlog::formatter> JsonLineFormatter::clone() const {
  return std::make_unique<JsonLineFormatter>();
}

std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format) {
  if (format == LogFormat::kJson) return std::make_unique<JsonLineFormatter>();
  return std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%eZ %-5l [%n] %v",
                                                     spdlog::pattern_time_type::utc);
}

void setup_logging(spdlog::level::level_enum level, LogFormat format) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_formatter(make_log_formatter(format));
  auto logger = std::make_shared<spdlog::logger>("tsserve", std::move(sink));
  logger->set_level(level);  // the stderr sink flushes every line itself
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace tsserve::server
