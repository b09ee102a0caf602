#pragma once
// Where the server keeps per-key state, chosen by --series-store: the kept forecasts
// (ReportActuals, Observe's flags) and the live series windows (Observe). In this process
// by default; in a Redis every replica shares with redis://HOST:PORT[/DB].

#include <prometheus/registry.h>

#include <functional>
#include <memory>

#include "server/accuracy/kept_forecasts.h"
#include "server/config/server_options.h"
#include "server/live/series_store.h"

namespace tsserve::server {

class RedisClient;
class RedisStoreMetrics;

struct SeriesStores {
  SeriesStores();
  SeriesStores(SeriesStores&&) noexcept;
  SeriesStores& operator=(SeriesStores&&) noexcept;
  ~SeriesStores();

  // What the Redis stores use: declared first, so destroyed last. Whoever takes the stores
  // out keeps this object for as long as they live.
  std::unique_ptr<RedisStoreMetrics> metrics;
  std::unique_ptr<RedisClient> client;
  std::unique_ptr<KeptForecasts> forecasts;
  std::unique_ptr<SeriesStore> shared_windows;  // null: the windows stay in this process
};

// Throws std::runtime_error naming the option when --series-store-password-file cannot be
// read. `registry` may be null (metrics off); `on_reachability` hears the shared store
// become reachable or not.
SeriesStores make_series_stores(const ServerConfig& config, prometheus::Registry* registry,
                                std::function<void(bool reachable)> on_reachability);

}  // namespace tsserve::server
