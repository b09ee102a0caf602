#include "server/app/version_loader.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "server/app/model_info.h"
#include "server/codec/oip/oip_model_metadata.h"
#include "server/config/parallelism.h"
#include "server/families/served_model.h"
#include "server/runtime/served_model_config.h"
#include "tsserve/model/cpu_kernels.h"
#include "tsserve/model/forecaster.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

Clock::duration milliseconds(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

// Which forward serves, and why not the one asked for; and what "auto" became.
void log_forward(const std::string& name, int64_t version, const ServedModel& served,
                 const ModelOptions& options, const Parallelism& parallelism, int cores) {
  const model::ServingKernels& kernels = served.forecaster().kernels();
  if (kernels.fallback_reason.empty()) {
    spdlog::info("{} v{}: forecasts run on the {} kernels (--cpu-kernels {})", name, version,
                 kernels.name, options.cpu_kernels);
  } else {
    spdlog::warn("{} v{}: forecasts run on the torch kernels, not fused: {}", name, version,
                 kernels.fallback_reason);
  }
  spdlog::info("{} v{}: {} instance(s){} x {} intra-op thread(s){} on {} usable core(s); {}",
               name, version, parallelism.instances, options.instances == kAuto ? " (auto)" : "",
               parallelism.threads, options.threads == kAuto ? " (auto)" : "", cores,
               model::describe_blas_pool());
}

// LibTorch's intra-op pool and OpenBLAS's are process-wide (intra_op_threads.h): a model
// cannot keep a thread count of its own, and the last one loaded would set it for all. So
// a model.json "threads" is accepted only where it is what the server runs with.
Status refuse_other_threads(const Parallelism& model, const ServerConfig& config, int cores,
                            bool on_cuda) {
  const int server_threads = resolve_parallelism(config.model, cores, on_cuda).threads;
  if (model.threads == server_threads) return Status();
  return invalid_argument(
      "model.json: threads " + std::to_string(model.threads) + " differs from the server's " +
      std::to_string(server_threads) +
      "; LibTorch's and OpenBLAS's thread pools are process-wide, so every model runs with "
      "the server's --threads (remove the key, or set --threads)");
}

}  // namespace

ModelRegistry::Loader version_loader(const ServerConfig& config, ServerMetrics* metrics) {
  return [config, metrics](const RepositoryModel& model, const RepositoryVersion& version,
                           std::shared_ptr<ModelVersion>* version_loaded) -> Status {
    const ModelSettings& settings = model.settings;
    ModelOptions options = config.model;
    options.model = version.checkpoint;
    options.model_config = version.config;
    if (settings.instances) options.instances = *settings.instances;
    if (settings.threads) options.threads = *settings.threads;
    BatchingOptions batching = config.batching;
    if (settings.max_batch_rows) batching.max_batch_rows = *settings.max_batch_rows;
    if (settings.preferred_batch_rows)
      batching.preferred_batch_rows = *settings.preferred_batch_rows;
    if (settings.max_queue_delay_ms) batching.max_queue_delay_ms = *settings.max_queue_delay_ms;
    if (settings.max_queue_rows) batching.max_queue_rows = *settings.max_queue_rows;
    if (settings.max_queue_wait_ms) batching.max_queue_wait_ms = *settings.max_queue_wait_ms;

    const int cores = usable_cpu_cores();
    const bool on_cuda = model::runs_on_cuda(options.device);
    const Parallelism parallelism = resolve_parallelism(options, cores, on_cuda);
    if (settings.threads) {
      TSSERVE_RETURN_IF_ERROR(refuse_other_threads(parallelism, config, cores, on_cuda));
    }
    model::ForecasterOptions forecaster_options;
    forecaster_options.device = options.device;
    forecaster_options.threads = parallelism.threads;
    forecaster_options.warm_up_rows = std::min<int64_t>(batching.max_batch_rows, 64);
    forecaster_options.cpu_kernels = model::parse_cpu_kernels(options.cpu_kernels, "cpu_kernels");

    // What the batchers' processors run on, kept alive by the ModelVersion until after them.
    const std::shared_ptr<ServedModel> loaded = ServedModel::load(options, forecaster_options);
    const ServedModel& served = *loaded;
    log_forward(model.name, version.version, served, options, parallelism, cores);

    BatcherOptions batcher;
    batcher.max_batch_rows = static_cast<std::size_t>(batching.max_batch_rows);
    batcher.preferred_batch_rows = static_cast<std::size_t>(batching.preferred_batch_rows);
    batcher.max_queue_delay = milliseconds(batching.max_queue_delay_ms);
    batcher.max_queue_rows = static_cast<std::size_t>(batching.max_queue_rows);
    batcher.max_queue_wait = milliseconds(batching.max_queue_wait_ms);
    batcher.workers = static_cast<std::size_t>(parallelism.instances);
    batcher.idle_spin = std::chrono::microseconds(batching.idle_spin_us);

    ModelVersion::Parts parts;
    parts.name = model.name;
    parts.version = version.version;
    parts.shape = served.shape();
    parts.limits.max_series_rows = batching.max_batch_rows;
    parts.limits.max_encode_tokens = batching.max_encode_tokens;
    parts.limits.max_response_bytes = config.server.max_message_bytes;
    ServerConfig effective = config;
    effective.batching = batching;
    parts.info = model_info_of(served.forecaster().config(), served, effective);
    parts.info.set_instances(parallelism.instances);
    parts.info.set_source(config.repository.model_repository.empty() ? "" : version.directory);
    parts.info.set_resident_bytes(served.forecaster().resident_bytes());
    parts.oip_metadata = oip_model_metadata(parts.shape);
    parts.resident_bytes = served.forecaster().resident_bytes();
    if (metrics) {
      loaded->observe(
          metrics->add_version(model.name, std::to_string(version.version),
                               parts.info.attention() == v1::ATTENTION_KIND_PROB ? "prob" : "full",
                               parts.info.device()));
    }
    parts.forecast_batcher = std::make_unique<DynamicBatcher>(batcher, served.forecast_processor());
    parts.encode_batcher = std::make_unique<DynamicBatcher>(batcher, served.encode_processor());
    loaded->watch(parts.forecast_batcher.get(), parts.encode_batcher.get());
    parts.model = loaded;
    *version_loaded = std::make_shared<ModelVersion>(std::move(parts));
    return Status();
  };
}

RepositoryManager::Scanner repository_scanner(const ServerConfig& config) {
  if (!config.repository.model_repository.empty()) {
    return [directory = config.repository.model_repository] { return scan_repository(directory); };
  }
  // A repository of one: read its config once, now, so a bad one stops the start.
  const model::ModelConfig single = served_model_config(config.model);
  RepositoryModel model;
  model.name = single.name;
  model.directory = std::filesystem::path(config.model.model).parent_path().string();
  RepositoryVersion version;
  if (!parse_version_number(single.version, &version.version)) version.version = 1;
  version.directory = model.directory;
  version.checkpoint = config.model.model;
  version.config = model_config_path(config.model);
  version.fingerprint = "single";
  model.versions.push_back(version);
  RepositoryScan scan;
  scan.models.push_back(model);
  return [scan] { return scan; };
}

}  // namespace tsserve::server
