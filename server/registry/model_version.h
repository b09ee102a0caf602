#pragma once
// One loaded version of one model: its model, its own Forecast and Encode batchers (so
// requests of different models or versions never share a batch) and what the codecs and
// both protocols' metadata say about it, built once when it loads. The registry (model_registry.h)
// owns it; a request holds it through a VersionLease from admission to its answer, so it finishes
// on the version that admitted it even if a newer one is published meanwhile.
//
// Lifetime: drain() (or the destructor) waits for admissions in progress (a request that
// resolved this version and is about to submit), then shuts both batchers down, which
// finishes every accepted task; only then is the model freed. The model is held as an
// opaque pointer so this header needs no LibTorch; the batchers' processors refer to it,
// hence it is declared before them and outlives them.
//
// Thread safety: const members from any thread; drain() from any thread but a batcher's
// worker (a processor never holds a lease, see VersionLease).

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>

#include "inference/grpc_service.pb.h"
#include "server/batching/dynamic_batcher.h"
#include "server/request/model_shape.h"
#include "server/sync/mutex.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

class ModelVersion {
 public:
  struct Parts {
    // The version's identity, given once here: the constructor writes it into the shape,
    // the ModelInfo and the ModelMetadata below (whatever they held).
    std::string name;
    int64_t version = 0;
    ModelShape shape;                               // what the codecs decode and encode against
    v1::ModelInfo info;                             // tsserve.v1 GetModelInfo's answer
    inference::ModelMetadataResponse oip_metadata;  // the Open Inference Protocol's answer
    // What a request to this version may ask: its own batcher's max_batch_rows, so a
    // model.json allowing more (or fewer) rows than the server default is held to its own.
    RequestLimits limits;
    int64_t resident_bytes = 0;  // the model's parameters and buffers
    std::shared_ptr<const void> model;  // what the processors run on; freed last
    // Built over `model`; both required.
    std::unique_ptr<DynamicBatcher> forecast_batcher;
    std::unique_ptr<DynamicBatcher> encode_batcher;
  };
  explicit ModelVersion(Parts parts);
  ModelVersion(const ModelVersion&) = delete;
  ModelVersion& operator=(const ModelVersion&) = delete;
  ~ModelVersion();  // drain()

  const std::string& name() const { return parts_.name; }
  int64_t version() const { return parts_.version; }
  const ModelShape& shape() const { return parts_.shape; }
  const v1::ModelInfo& info() const { return parts_.info; }
  const inference::ModelMetadataResponse& oip_metadata() const { return parts_.oip_metadata; }
  const RequestLimits& limits() const { return parts_.limits; }
  int64_t resident_bytes() const { return parts_.resident_bytes; }
  DynamicBatcher& forecast_batcher() const { return *parts_.forecast_batcher; }
  DynamicBatcher& encode_batcher() const { return *parts_.encode_batcher; }

  // Waits until no admission is in progress, then shuts both batchers down (every task
  // they accepted is finished). Idempotent. REQUIRES: the registry no longer hands this
  // version out (else an admission could start after the wait).
  void drain();

 private:
  friend class ModelRegistry;  // begin_admission under its lock
  friend class VersionLease;   // end_admission
  void begin_admission();
  void end_admission();

  Parts parts_;  // constant after construction (the batchers' own state is theirs)

  Mutex mutex_;
  std::condition_variable admissions_ended_;
  int admissions_ TSSERVE_GUARDED_BY(mutex_) = 0;
};

// A request's hold on the version it was admitted to. While admitting, the version cannot
// drain; admitted() (after submit, accepted or not) ends that, and the version's drain
// then finishes what was submitted. The lease keeps the version alive until it is
// destroyed. Move-only; one thread at a time.
class VersionLease {
 public:
  VersionLease() = default;
  VersionLease(VersionLease&& other) noexcept;
  VersionLease& operator=(VersionLease&& other) noexcept;
  ~VersionLease();

  explicit operator bool() const { return version_ != nullptr; }
  ModelVersion* operator->() const { return version_.get(); }
  ModelVersion& operator*() const { return *version_; }

  // The version may drain from here. Idempotent; the destructor calls it.
  void admitted();

 private:
  friend class ModelRegistry;
  explicit VersionLease(std::shared_ptr<ModelVersion> version);  // admission begun

  std::shared_ptr<ModelVersion> version_;
  bool admitting_ = false;
};

}  // namespace tsserve::server
