#include "server/observability/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "server/codec/json/json_writer.h"

namespace tsserve::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string escaped(std::string_view text) {
  std::string out;
  append_json_escaped(text, out);
  return out;
}

// What a JSON parser makes of the escaped text as a string literal.
std::string round_trip(std::string_view text) {
  return nlohmann::json::parse("\"" + escaped(text) + "\"").get<std::string>();
}

// A logger writing `format` lines into `out`.
std::shared_ptr<spdlog::logger> capture_logger(std::ostringstream& out, LogFormat format) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(make_log_formatter(format));
  auto logger = std::make_shared<spdlog::logger>("tsserve", std::move(sink));
  logger->set_level(spdlog::level::trace);
  return logger;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(LoggingTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(escaped("plain"), "plain");
  EXPECT_EQ(escaped("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(escaped("C:\\models\\a.pt"), "C:\\\\models\\\\a.pt");
  EXPECT_EQ(escaped("a\nb\r\tc\b\f"), "a\\nb\\r\\tc\\b\\f");
  EXPECT_EQ(escaped(std::string("nul\0x", 5)), "nul\\u0000x");
  EXPECT_EQ(escaped("\x01\x1f\x7f"), "\\u0001\\u001f\\u007f");
  EXPECT_EQ(escaped("/ stays"), "/ stays");
}

TEST(LoggingTest, PassesUtf8ThroughAndReplacesInvalidBytes) {
  const std::string utf8 = "caf\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x98\x80";  // café 漢 😀
  EXPECT_EQ(escaped(utf8), utf8);
  EXPECT_EQ(round_trip(utf8), utf8);

  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(escaped("a\xFF"
                    "b"),
            "a" + replacement + "b");
  EXPECT_EQ(escaped("\xE6\xBC"), replacement + replacement);                    // truncated
  EXPECT_EQ(escaped("\xC0\xAF"), replacement + replacement);                    // overlong '/'
  EXPECT_EQ(escaped("\xED\xA0\x80"), replacement + replacement + replacement);  // surrogate
  EXPECT_EQ(escaped("\xF4\x90\x80\x80").substr(0, 3), replacement);             // above U+10FFFF
  EXPECT_EQ(escaped("\xC3"), replacement);                                      // cut at the end
  // Whatever bytes go in, the result is a valid JSON string.
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  EXPECT_NO_THROW(round_trip(every_byte));
}

TEST(LoggingTest, JsonLinesParseAndKeepTheMessage) {
  std::ostringstream out;
  auto logger = capture_logger(out, LogFormat::kJson);
  const std::vector<std::string> messages = {
      "serving on 0.0.0.0:50051",
      "bad request: \"series\" has 95 points\nthe model needs 96",
      "path C:\\tmp\\x and a tab\there and a bell \x07",
      "caf\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x98\x80",
      "{\"looks\": \"like json\"}",
      "",
  };
  for (const std::string& message : messages) logger->info("{}", message);
  logger->warn("queue at {} rows", 8000);
  logger->error("batch failed: {}", "oom");
  logger->debug("detail");

  const std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), messages.size() + 3) << out.str();
  const std::regex iso_utc_ms(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  std::vector<std::string> levels;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    nlohmann::ordered_json entry;
    ASSERT_NO_THROW(entry = nlohmann::ordered_json::parse(lines[i]));
    ASSERT_TRUE(entry.is_object());
    std::vector<std::string> keys;
    for (const auto& item : entry.items()) keys.push_back(item.key());
    EXPECT_THAT(keys, ElementsAre("ts", "level", "msg", "logger"));
    EXPECT_TRUE(std::regex_match(entry["ts"].get<std::string>(), iso_utc_ms));
    EXPECT_EQ(entry["logger"], "tsserve");
    if (i < messages.size()) {
      EXPECT_EQ(entry["msg"].get<std::string>(), messages[i]);
    }
    levels.push_back(entry["level"].get<std::string>());
  }
  EXPECT_EQ(nlohmann::json::parse(lines[messages.size()])["msg"], "queue at 8000 rows");
  EXPECT_THAT(std::vector<std::string>(levels.end() - 3, levels.end()),
              ElementsAre("warn", "error", "debug"));
}

TEST(LoggingTest, JsonTimestampIsUtcWithMilliseconds) {
  using namespace std::chrono;
  // 2024-05-01T12:34:56.789Z
  const system_clock::time_point time =
      system_clock::time_point(seconds(1714566896)) + milliseconds(789) + microseconds(999);
  spdlog::details::log_msg msg(time, spdlog::source_loc{}, "worker-0", spdlog::level::critical,
                               "x");
  JsonLineFormatter formatter;
  spdlog::memory_buf_t buffer;
  formatter.format(msg, buffer);
  EXPECT_EQ(std::string(buffer.data(), buffer.size()),
            "{\"ts\":\"2024-05-01T12:34:56.789Z\",\"level\":\"critical\",\"msg\":\"x\","
            "\"logger\":\"worker-0\"}\n");
}

TEST(LoggingTest, TextLinesAreOneLinePerMessageInUtc) {
  std::ostringstream out;
  auto logger = capture_logger(out, LogFormat::kText);
  logger->info("model loaded in {} s", 1.5);
  const std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(std::regex_match(
      lines[0],
      std::regex(
          R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z info +\[tsserve\] model loaded in 1.5 s)")))
      << lines[0];
}

TEST(LoggingTest, ParsesTheConfigNames) {
  EXPECT_EQ(log_level_from_name("trace"), spdlog::level::trace);
  EXPECT_EQ(log_level_from_name("debug"), spdlog::level::debug);
  EXPECT_EQ(log_level_from_name("info"), spdlog::level::info);
  EXPECT_EQ(log_level_from_name("warn"), spdlog::level::warn);
  EXPECT_EQ(log_level_from_name("error"), spdlog::level::err);
  EXPECT_EQ(log_level_from_name("warning"), std::nullopt);
  EXPECT_EQ(log_level_from_name("INFO"), std::nullopt);
  EXPECT_EQ(log_format_from_name("text"), LogFormat::kText);
  EXPECT_EQ(log_format_from_name("json"), LogFormat::kJson);
  EXPECT_EQ(log_format_from_name("yaml"), std::nullopt);
}

TEST(LoggingTest, SetupInstallsTheDefaultLogger) {
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  setup_logging(spdlog::level::warn, LogFormat::kJson);
  EXPECT_EQ(spdlog::default_logger()->name(), "tsserve");
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::warn);
  EXPECT_FALSE(spdlog::default_logger()->should_log(spdlog::level::info));
  spdlog::set_default_logger(previous);
}

}  // namespace
}  // namespace tsserve::server
