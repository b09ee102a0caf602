#include "server/app/inference_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "server/accuracy/accuracy_tracker.h"
#include "server/app/live_series.h"
#include "server/app/series_stores.h"
#include "server/app/version_loader.h"
#include "server/auth/bearer_token.h"
#include "server/call/replica_ready.h"
#include "server/config/server_config.h"
#include "server/grpc/forecast_service.h"
#include "server/grpc/oip_service.h"
#include "server/http/http_door.h"
#include "server/live/live_series_metrics.h"
#include "server/observability/model_version_metrics.h"
#include "server/observability/server_metrics.h"
#include "server/registry/repository_manager.h"
#include "server/sync/mutex.h"

namespace tsserve::server {
namespace {

// The services grpc.health.v1 reports by name (besides "", the whole server).
constexpr const char* kServiceNames[] = {"tsserve.v1.ForecastService",
                                         "inference.GRPCInferenceService"};
constexpr const char* kSeriesStoreHealthName = "tsserve.series_store";

std::string read_file(const std::string& path, const char* what) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(std::string(what) + " " + path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::shared_ptr<grpc::ServerCredentials> credentials(const ServerConfig& config) {
  if (config.server.tls_cert.empty() && config.server.tls_key.empty())
    return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      config.server.tls_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                   : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_key_cert_pairs.push_back(
      {read_file(config.server.tls_key, "tls_key"), read_file(config.server.tls_cert, "tls_cert")});
  if (!config.server.tls_ca.empty())
    options.pem_root_certs = read_file(config.server.tls_ca, "tls_ca");
  return grpc::SslServerCredentials(options);
}

const char* transport_security(const ServerConfig& config) {
  if (config.server.tls_cert.empty()) return "plaintext";
  return config.server.tls_ca.empty() ? "TLS" : "mutual TLS";
}

// Takes gRPC's reflection service off one server: its plugin, once linked, registers
// itself with every server builder in the process.
class WithoutReflection final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->erase(
        std::remove_if(plugins->begin(), plugins->end(),
                       [](const std::unique_ptr<grpc::ServerBuilderPlugin>& plugin) {
                         return dynamic_cast<grpc::reflection::ProtoServerReflectionPlugin*>(
                                    plugin.get()) != nullptr;
                       }),
        plugins->end());
  }
};

// After the queue is done, how long answers already given may take to reach their
// callers before the listeners close: the rest of the drain budget, but at least the
// minimum (so calls cut at the deadline still get their UNAVAILABLE) and at most the
// maximum (so a health Watch stream, which never ends, does not hold the exit).
constexpr std::chrono::steady_clock::duration kAnswerGraceMin = std::chrono::milliseconds(250);
constexpr std::chrono::steady_clock::duration kAnswerGraceMax = std::chrono::seconds(1);

std::string seconds_text(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", std::chrono::duration<double>(timeout).count());
  return text;
}

// What a call still queued at the drain's bound is answered: UNAVAILABLE, which clients
// and balancers retry, saying why and where.
Status drain_cut(std::chrono::milliseconds timeout) {
  return {StatusCode::kUnavailable, "draining: the drain timeout of " + seconds_text(timeout) +
                                        " s passed before this call ran; retry on another replica"};
}

// The registry's changes as the repository's metrics (model_version_metrics.h).
class RegistryMetrics final : public RegistryObserver {
 public:
  RegistryMetrics(ServerMetrics& metrics, AccuracyMetrics& accuracy)
      : server_metrics_(metrics), accuracy_(accuracy), metrics_(*metrics.registry()) {}
  void on_state(const VersionStatus& status) override {
    metrics_.set_version(status.model, status.version, to_string(status.state), status.load_seconds,
                         status.resident_bytes);
    if (status.state == VersionState::kFailed) metrics_.count_load_failure(status.model);
    // A served version's accuracy series exist from the start, at 0, for dashboards.
    if (status.state == VersionState::kReady) {
      accuracy_.prepare(status.model, std::to_string(status.version));
      if (LiveSeriesMetrics* live = live_.load()) {
        live->serve_version(status.model, std::to_string(status.version));
      }
    }
  }
  void on_removed(const std::string& model, int64_t version) override {
    metrics_.remove_version(model, version);
    // Unloaded means drained: no batch of it runs again, and a lingering call's lease
    // must not keep its series in the exposition.
    server_metrics_.remove_version(model, std::to_string(version));
    accuracy_.remove(model, std::to_string(version));
    // The live series' counters of the version too (tsserve_observed_*); none exist before
    // the live series do, so a version removed earlier has nothing to remove.
    if (LiveSeriesMetrics* live = live_.load()) {
      live->remove_version(model, std::to_string(version));
    }
  }
  // Set once the live series exist (they are made after the first repository scan).
  void set_live(LiveSeriesMetrics* live) { live_.store(live); }

 private:
  ServerMetrics& server_metrics_;
  AccuracyMetrics& accuracy_;
  ModelVersionMetrics metrics_;
  std::atomic<LiveSeriesMetrics*> live_{nullptr};
};

class InferenceServerImpl final : public InferenceServer {
 public:
  explicit InferenceServerImpl(const ServerConfig& config) : config_(config) {
    if (!config.server.auth_token_file.empty()) {
      auth_ = std::make_unique<BearerTokenCheck>(
          BearerTokenCheck::from_file(config.server.auth_token_file));
    }
    if (!config.server.metrics_address.empty()) {
      metrics_ = std::make_unique<ServerMetrics>();
      const Status served = metrics_->serve(config.server.metrics_address);
      if (!served.ok()) throw std::runtime_error("metrics_address: " + served.message());
    }
    ModelRegistry::Options registry_options;
    registry_options.max_loaded_bytes = config.repository.max_loaded_bytes;
    registry_options.log_failures = !config.repository.model_repository.empty();
    if (metrics_) {
      accuracy_metrics_ = std::make_unique<AccuracyMetrics>(*metrics_->registry());
      registry_metrics_ = std::make_unique<RegistryMetrics>(*metrics_, *accuracy_metrics_);
      registry_options.observer = registry_metrics_.get();
    }
    repository_ = std::make_unique<RepositoryManager>(
        repository_scanner(config), version_loader(config, metrics_.get()), registry_options);
    repository_->on_change([this] { update_readiness(); });
    // Every model is loaded (or refused) before the port opens, as the single model was.
    repository_->poll_once();
    const bool single = config.repository.model_repository.empty();
    if (single && !repository_->registry().all_ready()) {
      // The single --model is the whole server: without it there is nothing to serve.
      const std::vector<VersionStatus> statuses = repository_->registry().statuses();
      throw std::runtime_error(statuses.empty() ? "model: not loaded" : statuses.front().reason);
    }
    prometheus::Registry* registry = metrics_ ? metrics_->registry().get() : nullptr;
    stores_ = make_series_stores(
        config, registry, [this](bool reachable) { set_series_store_health(reachable); });
    accuracy_ = std::make_unique<AccuracyTracker>(*stores_.forecasts, accuracy_metrics_.get());
    AccuracyTracker* accuracy = accuracy_.get();
    live_ = std::make_unique<LiveSeries>(config.live, registry, std::move(stores_.shared_windows));
    if (registry_metrics_) registry_metrics_->set_live(live_->metrics());

    ServiceContext context;
    context.repository = repository_.get();
    context.registry = &repository_->registry();
    context.metrics = metrics_.get();
    context.state = &state_;
    context.auth = auth_.get();
    context.accuracy = accuracy;
    context.series = live_->store();
    context.live_metrics = live_->metrics();
    // Both protocols over the same models, batchers, metrics and serving state.
    const OipServerInfo server_info{"tsserve", TSSERVE_VERSION};
    oip_service_ = std::make_unique<OipServiceImpl>(context, server_info);
    if (!config.server.http_address.empty()) {
      HttpServerOptions http;
      http.address = config.server.http_address;
      http.threads = config.server.http_threads;
      http.max_body_bytes = static_cast<std::uint64_t>(config.server.max_message_bytes);
      // The same TLS as the gRPC port: HTTPS, mutual when a CA is given.
      http.tls_cert = config.server.tls_cert;
      http.tls_key = config.server.tls_key;
      http.tls_ca = config.server.tls_ca;
      http.max_connections = static_cast<std::size_t>(config.server.http_max_connections);
      try {
        const HttpDoorOptions door{
            config.server.http_cors_origins,
            config.server.http_console,
            config.server.http_console_sample,
            {config.server.http_repository_control, config.server.http_allowed_hosts}};
        http_ = std::make_unique<HttpDoor>(http, context, server_info, door);
      } catch (const std::exception& e) {
        throw std::runtime_error("http_address " + config.server.http_address + ": " + e.what());
      }
    }
    service_ = std::make_unique<ForecastServiceImpl>(std::move(context));

    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    builder.AddListeningPort(config.server.grpc_address, credentials(config), &grpc_port_);
    // gRPC binds with SO_REUSEPORT by default: a second tsserve on a port in use would
    // start, say it listens, and silently take half the connections. Without it the bind
    // fails and the start-up error below names the address; --grpc-reuse-port asks for it.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, config.server.grpc_reuse_port ? 1 : 0);
    builder.SetMaxReceiveMessageSize(static_cast<int>(config.server.max_message_bytes));
    builder.SetMaxSendMessageSize(static_cast<int>(config.server.max_message_bytes));
    builder.RegisterService(service_.get());
    builder.RegisterService(oip_service_.get());
    // Reflection is gRPC's own service and cannot check a token, so a server that asks for
    // one does not offer it.
    if (auth_) builder.SetOption(std::make_unique<WithoutReflection>());
    server_ = builder.BuildAndStart();
    if (!server_ || grpc_port_ == 0) {
      throw std::runtime_error("grpc_address " + config.server.grpc_address +
                               ": cannot listen there (the port is in use, by another tsserve "
                               "or another process, or it is not an address this host has)");
    }
    set_serving(true);
    {
      MutexLock lock(health_mutex_);
      server_->GetHealthCheckService()->SetServingStatus(kSeriesStoreHealthName, store_reachable_);
    }
    if (!single && config.repository.repository_poll_s > 0)
      repository_->start_polling(config.repository.repository_poll_s);
    std::string served;
    for (const VersionStatus& status : repository_->registry().statuses()) {
      served += (served.empty() ? "" : ", ") + status.model + " v" +
                std::to_string(status.version) + " " + to_string(status.state);
    }
    spdlog::info(
        "serving {} on port {} ({}{}); HTTP {}; metrics {}", served.empty() ? "no model" : served,
        grpc_port_, transport_security(config), auth_ ? ", bearer token required" : "",
        http_ ? "port " + std::to_string(http_port()) + " (" + transport_security(config) + ")"
              : std::string("off"),
        metrics_ ? "port " + std::to_string(metrics_port()) : std::string("off"));
  }

  int grpc_port() const override { return grpc_port_; }
  int http_port() const override { return http_ ? http_->port() : 0; }
  int metrics_port() const override {
    return metrics_ && !metrics_->listening_ports().empty() ? metrics_->listening_ports().front()
                                                            : 0;
  }

  void poll_repository() override { repository_->poll_once(); }

  bool shutdown(std::chrono::milliseconds timeout) override {
    MutexLock lock(shutdown_mutex_);
    if (stopped_) return drained_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const auto [forecast_rows, encode_rows] = repository_->registry().queued_rows();
    spdlog::info("draining: {} calls in flight; {} rows queued for Forecast, {} for Encode",
                 metrics_ ? std::to_string(metrics_->inflight()) : std::string("uncounted"),
                 forecast_rows, encode_rows);
    set_serving(false);  // from here new calls get UNAVAILABLE; admitted ones finish
    if (http_) http_->begin_drain();  // answers close their connections
    // Admitted tasks run on their versions until the deadline; what is still queued then
    // is answered UNAVAILABLE, so a rollout never waits for a long queue (or for the
    // supervisor's SIGKILL). A batch running at the deadline finishes: it cannot be cut.
    const std::size_t cut = repository_->stop_by(deadline, drain_cut(timeout));
    drained_ = cut == 0;
    if (cut > 0) {
      spdlog::warn(
          "drain timeout of {} s passed: {} queued calls answered UNAVAILABLE (retryable on "
          "another replica); the batches running then finished",
          seconds_text(timeout), cut);
    }
    // Every admitted call has its answer now; what may remain are responses in flight
    // and streams with no end (health Watch), which need not hold the exit for the rest
    // of the drain budget: a short grace sends the former (the cut answers too, even past
    // the deadline), then the rest is cancelled.
    const auto now = std::chrono::steady_clock::now();
    const auto flush_by = now + std::clamp<std::chrono::steady_clock::duration>(
                                    deadline - now, kAnswerGraceMin, kAnswerGraceMax);
    if (http_) {
      http_->finish_drain(flush_by);
      http_.reset();
    }
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(flush_by -
                                                                                     now));
    server_->Wait();
    live_->stop();  // no call appends any more: the last snapshot holds every point taken
    stopped_ = true;
    // The words in parentheses are read by scripts (tests/e2e, tests/reliability): keep them.
    spdlog::info("stopped ({}); calls answered since start: {}",
                 drained_ ? "drained" : "drain timeout passed",
                 metrics_ ? metrics_->answered_summary() : "not counted (metrics off)");
    return drained_;
  }

  ~InferenceServerImpl() override {
    shutdown(
        std::chrono::milliseconds(static_cast<int64_t>(config_.server.drain_timeout_s * 1000)));
  }

 private:
  // grpc.health.v1's name for the shared series store: SERVING while its last call
  // reached it. Not part of readiness: calls without a series key need no store, and
  // every replica shares it, so it would pull them all at once.
  void set_series_store_health(bool reachable) {
    MutexLock lock(health_mutex_);
    store_reachable_ = reachable;
    if (server_) {
      server_->GetHealthCheckService()->SetServingStatus(kSeriesStoreHealthName, reachable);
    }
  }

  // Admission of new calls, and with it readiness for every protocol.
  void set_serving(bool serving) {
    state_.set_serving(serving);
    update_readiness();
  }

  // grpc.health.v1: "" and the services are SERVING while this replica is ready
  // (replica_ready.h: it admits calls and some model has a ready version, so one model
  // that fails to load does not pull it); each model's name while that model has one.
  // Runs after every repository change and every serving change.
  void update_readiness() {
    MutexLock lock(health_mutex_);
    if (!server_) return;  // the first scan runs before the server exists
    const bool serving = state_.serving();
    const bool ready = replica_ready(state_, repository_->registry());
    auto* health = server_->GetHealthCheckService();
    health->SetServingStatus("", ready);
    for (const char* name : kServiceNames) health->SetServingStatus(name, ready);
    std::set<std::string> names(health_names_.begin(), health_names_.end());
    for (const std::string& name : repository_->registry().configured_models()) names.insert(name);
    for (const std::string& name : names) {
      health->SetServingStatus(name, serving && repository_->registry().resolve(name, "").lease);
    }
    health_names_ = names;
    if (metrics_) metrics_->set_ready(ready);
  }

  const ServerConfig config_;
  std::unique_ptr<BearerTokenCheck> auth_;
  std::unique_ptr<ServerMetrics> metrics_;
  SeriesStores stores_;  // before what uses them: destroyed after
  std::unique_ptr<AccuracyMetrics> accuracy_metrics_;
  std::unique_ptr<AccuracyTracker> accuracy_;
  std::unique_ptr<LiveSeries> live_;
  ServingState state_;
  std::unique_ptr<RegistryMetrics> registry_metrics_;  // outlives the repository
  std::unique_ptr<RepositoryManager> repository_;
  std::unique_ptr<ForecastServiceImpl> service_;
  std::unique_ptr<OipServiceImpl> oip_service_;
  std::unique_ptr<HttpDoor> http_;  // before server_: a drain closes HTTP first
  std::unique_ptr<grpc::Server> server_;
  int grpc_port_ = 0;

  Mutex health_mutex_;
  // Every name ever reported.
  std::set<std::string> health_names_ TSSERVE_GUARDED_BY(health_mutex_);
  // The shared series store's, before the server existed to report it (none: true).
  bool store_reachable_ TSSERVE_GUARDED_BY(health_mutex_) = true;

  Mutex shutdown_mutex_;
  bool stopped_ TSSERVE_GUARDED_BY(shutdown_mutex_) = false;
  bool drained_ TSSERVE_GUARDED_BY(shutdown_mutex_) = false;
};

}  // namespace

std::unique_ptr<InferenceServer> InferenceServer::start(const ServerConfig& config) {
  return std::make_unique<InferenceServerImpl>(config);
}

}  // namespace tsserve::server
