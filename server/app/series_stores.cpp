#include "server/app/series_stores.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "server/accuracy/forecast_store.h"
#include "server/batching/clock.h"
#include "server/config/series_store_url.h"
#include "server/redis/redis_client.h"
#include "server/redis/redis_kept_forecasts.h"
#include "server/redis/redis_series_store.h"
#include "server/redis/redis_store_metrics.h"

namespace tsserve::server {
namespace {

std::string read_password(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream file(path);
  if (!file) {
    throw std::runtime_error("series_store_password_file " + path + ": cannot be read");
  }
  std::ostringstream text;
  text << file.rdbuf();
  std::string password = text.str();
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) {
    password.pop_back();
  }
  return password;
}

// Only for the test that shows the compare-and-set is what keeps concurrent writers of
// one key apart (tests/scaleout): never set in production.
bool compare_and_set_disabled() {
  const char* value = std::getenv("TSSERVE_TEST_SERIES_STORE_NO_CAS");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

SeriesStores::SeriesStores() = default;
SeriesStores::SeriesStores(SeriesStores&&) noexcept = default;
SeriesStores& SeriesStores::operator=(SeriesStores&&) noexcept = default;
SeriesStores::~SeriesStores() = default;

SeriesStores make_series_stores(const ServerConfig& config, prometheus::Registry* registry,
                                std::function<void(bool)> on_reachability) {
  SeriesStores stores;
  const auto max_age = std::chrono::duration<double>(config.accuracy.forecast_store_max_age_s);
  if (config.live.series_store.empty()) {
    ForecastStoreLimits limits;
    limits.max_entries = static_cast<std::size_t>(config.accuracy.forecast_store_max_entries);
    limits.max_age = std::chrono::duration_cast<Clock::duration>(max_age);
    stores.forecasts = std::make_unique<ForecastStore>(limits, SystemClock::instance());
    return stores;
  }
  RedisClientOptions options;
  // The option's check parsed it already; an error here would be a bug.
  const Status parsed = parse_series_store_url(config.live.series_store, &options.url);
  if (!parsed.ok()) throw std::runtime_error("series_store: " + parsed.message());
  options.password = read_password(config.live.series_store_password_file);
  options.timeout = std::chrono::milliseconds(config.live.series_store_timeout_ms);
  options.connections = config.live.series_store_connections;
  if (registry != nullptr) stores.metrics = std::make_unique<RedisStoreMetrics>(*registry);
  stores.client = std::make_unique<RedisClient>(options, stores.metrics.get(),
                                                std::move(on_reachability));
  const auto ttl = std::chrono::duration_cast<std::chrono::milliseconds>(max_age);
  // A replica caches as many forecasts as the in-process store would hold.
  auto kept = std::make_unique<RedisKeptForecasts>(
      *stores.client, ttl, static_cast<std::size_t>(config.accuracy.forecast_store_max_entries));
  RedisKeptForecasts* const kept_forecasts = kept.get();
  stores.forecasts = std::move(kept);
  const bool compare_and_set = !compare_and_set_disabled();
  if (!compare_and_set) spdlog::warn("series store: compare-and-set OFF (a test's plant)");
  stores.shared_windows = std::make_unique<RedisSeriesStore>(
      *stores.client, static_cast<std::size_t>(config.live.series_store_max_bytes), ttl,
      compare_and_set, kept_forecasts);
  spdlog::info("series store: {} (windows and kept forecasts expire {} s after their last write)",
               options.url.text(), config.accuracy.forecast_store_max_age_s);
  return stores;
}

}  // namespace tsserve::server
