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

// Length of the well-formed UTF-8 sequence (RFC 3629: shortest form, no surrogates,
// at most U+10FFFF) starting at text[i], or 0 when text[i] does not start one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80;  // the allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
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

void append_json_escaped(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
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
