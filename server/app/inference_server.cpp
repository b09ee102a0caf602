#include "server/app/inference_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>

#include "server/accuracy/accuracy_tracker.h"
#include "server/app/model_info.h"
#include "server/auth/bearer_token.h"
#include "server/config/parallelism.h"
#include "server/config/server_config.h"
#include "server/observability/server_metrics.h"
#include "server/runtime/batch_processors.h"
#include "server/runtime/model_loading.h"
#include "server/runtime/served_model.h"
#include "server/service/forecast_service.h"
#include "server/service/oip_service.h"

namespace tsserve::server {
namespace {

// The services grpc.health.v1 reports by name (besides "", the whole server).
constexpr const char* kServiceNames[] = {"tsserve.v1.ForecastService",
                                         "inference.GRPCInferenceService"};

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

// Feeds batch figures to the metrics and keeps the queue-depth gauge current.
class MetricsObserver final : public BatchObserver {
 public:
  explicit MetricsObserver(ServerMetrics& metrics) : metrics_(metrics) {}
  // The batcher exists only after its processor (which holds this observer) was made.
  void watch(const DynamicBatcher* batcher) { batcher_ = batcher; }
  void on_batch(std::size_t rows, double compute_seconds) override {
    metrics_.record_batch(static_cast<int>(rows), compute_seconds);
    if (batcher_) metrics_.set_queue_depth_rows(static_cast<int64_t>(batcher_->queued_rows()));
  }
  void on_queue_wait(double seconds) override { metrics_.record_queue_wait(seconds); }

 private:
  ServerMetrics& metrics_;
  const DynamicBatcher* batcher_ = nullptr;  // set once, before any batch runs
};

// Which forward serves, and why not the one asked for; and what "auto" became.
void log_forward(const ServedModel& runner, const ServerConfig& config,
                 const Parallelism& parallelism, int cores) {
  const ServingKernels& kernels = runner.kernels();
  if (kernels.fallback_reason.empty()) {
    spdlog::info("forecasts run on the {} kernels (--cpu-kernels {})", kernels.name,
                 config.model.cpu_kernels);
  } else {
    spdlog::warn("forecasts run on the torch kernels, not fused: {}", kernels.fallback_reason);
  }
  spdlog::info("{} instance(s){} x {} intra-op thread(s){} on {} usable core(s)",
               parallelism.instances, config.model.instances == kAuto ? " (auto)" : "",
               parallelism.threads, config.model.threads == kAuto ? " (auto)" : "", cores);
}

class InferenceServerImpl final : public InferenceServer {
 public:
  explicit InferenceServerImpl(const ServerConfig& config) : config_(config) {
    if (!config.server.auth_token_file.empty()) {
      auth_ = std::make_unique<BearerTokenCheck>(
          BearerTokenCheck::from_file(config.server.auth_token_file));
    }
    if (!config.server.metrics_address.empty()) {
      metrics_ = std::make_unique<ServerMetrics>();
      const std::string error = metrics_->serve(config.server.metrics_address);
      if (!error.empty()) throw std::runtime_error("metrics_address: " + error);
    }
    const int cores = usable_cpu_cores();
    const Parallelism parallelism =
        resolve_parallelism(config.model, cores, parse_device(config.model.device).is_cuda());
    RunnerOptions runner_options;
    runner_options.device = config.model.device;
    runner_options.threads = parallelism.threads;
    runner_options.warm_up_rows = std::min<int64_t>(config.batching.max_batch_rows, 64);
    runner_options.cpu_kernels = model::parse_cpu_kernels(config.model.cpu_kernels, "cpu_kernels");
    runner_ = ServedModel::load(config.model, runner_options);
    const model::ModelConfig& model_config = runner_->config();
    log_forward(*runner_, config, parallelism, cores);

    if (metrics_) {
      metrics_->set_model_info(model_config.name, model_config.version,
                               model::to_string(model_config.attention), runner_->device_name());
      forecast_observer_ = std::make_unique<MetricsObserver>(*metrics_);
      encode_observer_ = std::make_unique<MetricsObserver>(*metrics_);
    }

    BatcherOptions batching;
    batching.max_batch_rows = static_cast<std::size_t>(config.batching.max_batch_rows);
    batching.preferred_batch_rows = static_cast<std::size_t>(config.batching.preferred_batch_rows);
    batching.max_queue_delay = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(config.batching.max_queue_delay_ms));
    batching.max_queue_rows = static_cast<std::size_t>(config.batching.max_queue_rows);
    batching.max_queue_wait = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(config.batching.max_queue_wait_ms));
    batching.workers = static_cast<std::size_t>(parallelism.instances);
    forecast_batcher_ = std::make_unique<DynamicBatcher>(
        batching, runner_->forecast_processor(forecast_observer_.get()));
    encode_batcher_ = std::make_unique<DynamicBatcher>(
        batching, runner_->encode_processor(encode_observer_.get()));
    if (metrics_) {
      forecast_observer_->watch(forecast_batcher_.get());
      encode_observer_->watch(encode_batcher_.get());
    }

    ServiceContext context;
    context.shape = model_shape_of(model_config);
    context.limits.max_series_rows = config.batching.max_batch_rows;
    context.limits.max_encode_tokens = config.batching.max_encode_tokens;
    context.limits.max_response_bytes = config.server.max_message_bytes;
    context.info = model_info_of(model_config, *runner_, config);
    context.info.set_instances(parallelism.instances);
    context.forecast_batcher = forecast_batcher_.get();
    context.encode_batcher = encode_batcher_.get();
    context.metrics = metrics_.get();
    context.state = &state_;
    context.auth = auth_.get();
    context.accuracy = make_accuracy_tracker(config.accuracy);
    if (accuracy_metrics_) accuracy_metrics_->prepare(model_config.name, model_config.version);
    // Both protocols over the same model, batchers, metrics and serving state.
    oip_service_ =
        std::make_unique<OipServiceImpl>(context, OipServerInfo{"tsserve", TSSERVE_VERSION});
    service_ = std::make_unique<ForecastServiceImpl>(std::move(context));

    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    builder.AddListeningPort(config.server.grpc_address, credentials(config), &grpc_port_);
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
                               ": cannot listen there (in use, or not an address)");
    }
    set_serving(true);
    if (metrics_) metrics_->set_ready(true);
    spdlog::info("serving {} v{} ({}) on {} port {} ({}{}); metrics {}", model_config.name,
                 model_config.version, model_config.summary(), runner_->device_name(), grpc_port_,
                 transport_security(config), auth_ ? ", bearer token required" : "",
                 metrics_ ? "port " + std::to_string(metrics_port()) : std::string("off"));
  }

  int grpc_port() const override { return grpc_port_; }
  int metrics_port() const override {
    return metrics_ && !metrics_->listening_ports().empty() ? metrics_->listening_ports().front()
                                                            : 0;
  }

  bool shutdown(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(shutdown_mutex_);
    if (stopped_) return drained_;
    const auto deadline = std::chrono::system_clock::now() + timeout;
    spdlog::info("draining: {} calls in flight; {} rows queued for Forecast, {} for Encode",
                 metrics_ ? std::to_string(metrics_->inflight()) : std::string("uncounted"),
                 forecast_batcher_->queued_rows(), encode_batcher_->queued_rows());
    set_serving(false);  // from here new calls get UNAVAILABLE; admitted ones finish
    if (metrics_) metrics_->set_ready(false);
    // Admitted tasks run to completion; each finishes its call.
    forecast_batcher_->shutdown();
    encode_batcher_->shutdown();
    const auto now = std::chrono::system_clock::now();
    drained_ = now <= deadline;
    // Every admitted call has its answer now; what may remain are responses in flight
    // and streams with no end (health Watch), which need not hold the exit for the whole
    // drain budget: a short grace flushes the former, then the rest is cancelled.
    server_->Shutdown(std::min(deadline, now + std::chrono::seconds(1)));
    server_->Wait();
    stopped_ = true;
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
  // The forecast store behind ReportActuals, its metrics on the server's registry.
  AccuracyTracker* make_accuracy_tracker(const AccuracyOptions& options) {
    ForecastStoreLimits limits;
    limits.max_entries = static_cast<std::size_t>(options.forecast_store_max_entries);
    limits.max_age = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.forecast_store_max_age_s));
    forecast_store_ = std::make_unique<ForecastStore>(limits, SystemClock::instance());
    if (metrics_) accuracy_metrics_ = std::make_unique<AccuracyMetrics>(*metrics_->registry());
    accuracy_ = std::make_unique<AccuracyTracker>(*forecast_store_, accuracy_metrics_.get());
    return accuracy_.get();
  }

  // Readiness for every protocol and admission of new calls change together.
  void set_serving(bool serving) {
    state_.set_serving(serving);
    auto* health = server_->GetHealthCheckService();
    health->SetServingStatus("", serving);
    for (const char* name : kServiceNames) health->SetServingStatus(name, serving);
  }

  const ServerConfig config_;
  std::unique_ptr<BearerTokenCheck> auth_;
  std::unique_ptr<ServerMetrics> metrics_;
  std::unique_ptr<ForecastStore> forecast_store_;
  std::unique_ptr<AccuracyMetrics> accuracy_metrics_;
  std::unique_ptr<AccuracyTracker> accuracy_;
  std::unique_ptr<ServedModel> runner_;
  std::unique_ptr<MetricsObserver> forecast_observer_;
  std::unique_ptr<MetricsObserver> encode_observer_;
  std::unique_ptr<DynamicBatcher> forecast_batcher_;
  std::unique_ptr<DynamicBatcher> encode_batcher_;
  ServingState state_;
  std::unique_ptr<ForecastServiceImpl> service_;
  std::unique_ptr<OipServiceImpl> oip_service_;
  std::unique_ptr<grpc::Server> server_;
  int grpc_port_ = 0;

  std::mutex shutdown_mutex_;
  bool stopped_ = false;  // guarded by shutdown_mutex_
  bool drained_ = false;  // guarded by shutdown_mutex_
};

}  // namespace

std::unique_ptr<InferenceServer> InferenceServer::start(const ServerConfig& config) {
  return std::make_unique<InferenceServerImpl>(config);
}

}  // namespace tsserve::server
