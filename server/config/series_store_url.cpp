#include "server/config/series_store_url.h"

#include <charconv>
#include <string_view>

namespace tsserve::server {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kTlsScheme = "rediss://";
constexpr const char* kExpected = "; expected redis://HOST:PORT[/DB]";

// `text` as a whole decimal number in [low, high], or -1.
int number_in(std::string_view text, int low, int high) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return -1;
  }
  return value;
}

}  // namespace

std::string SeriesStoreUrl::text() const {
  return std::string(kScheme) + host + ":" + std::to_string(port) + "/" + std::to_string(database);
}

Status parse_series_store_url(const std::string& text, SeriesStoreUrl* url) {
  const std::string shown = "\"" + text + "\"";
  if (text.compare(0, kTlsScheme.size(), kTlsScheme) == 0) {
    // Debian's hiredis (0.14) has no TLS; a tunnel gives it without a second client.
    return invalid_argument(
        "rediss:// (TLS) is not built in: this build's hiredis has no TLS. Reach a TLS Redis "
        "through a local tunnel (stunnel, spiped or a sidecar) and give its plain end" +
        std::string(kExpected));
  }
  if (text.compare(0, kScheme.size(), kScheme) != 0) {
    return invalid_argument(shown + " is not a redis:// URL" + kExpected);
  }
  std::string_view rest = std::string_view(text).substr(kScheme.size());
  if (rest.find('@') != std::string_view::npos) {
    // Not quoted back: the text holds a secret.
    return invalid_argument(std::string("the URL holds credentials (not shown); give the password in "
                                        "--series-store-password-file") + kExpected);
  }
  SeriesStoreUrl parsed;
  const std::size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    parsed.database = number_in(rest.substr(slash + 1), 0, 15);
    if (parsed.database < 0) {
      return invalid_argument(shown + ": database \"" + std::string(rest.substr(slash + 1)) +
                              "\" is not a number from 0 to 15" + kExpected);
    }
    rest = rest.substr(0, slash);
  }
  const std::size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos) {
    parsed.port = number_in(rest.substr(colon + 1), 1, 65535);
    if (parsed.port < 0) {
      return invalid_argument(shown + ": port \"" + std::string(rest.substr(colon + 1)) +
                              "\" is not a number from 1 to 65535" + kExpected);
    }
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return invalid_argument(shown + " names no host" + kExpected);
  parsed.host = std::string(rest);
  *url = parsed;
  return Status();
}

}  // namespace tsserve::server
