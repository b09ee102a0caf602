#pragma once
// --series-store: where the live series and kept forecasts are held. "" = in this process
// (the default); "redis://HOST:PORT[/DB]" = a Redis every replica shares. Parsed once, by
// the option's check and by the store that connects, so both read it alike.

#include <cstdint>
#include <string>

#include "server/status/status.h"

namespace tsserve::server {

struct SeriesStoreUrl {
  std::string host;
  int port = 6379;
  int database = 0;

  // redis://HOST:PORT/DB, as logs and error messages name the store.
  std::string text() const;
};

// Parses a redis:// URL. INVALID_ARGUMENT, naming what is wrong and what is expected,
// for anything else (another scheme, no host, a port outside 1-65535, a database
// outside 0-15, a user or password in the URL: the password comes from
// --series-store-password-file, never a command line).
Status parse_series_store_url(const std::string& text, SeriesStoreUrl* url);

}  // namespace tsserve::server
