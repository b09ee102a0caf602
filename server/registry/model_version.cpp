#include "server/registry/model_version.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace tsserve::server {

ModelVersion::ModelVersion(Parts parts) : parts_(std::move(parts)) {
  if (!parts_.forecast_batcher || !parts_.encode_batcher)
    throw std::invalid_argument("ModelVersion needs both batchers");
  const std::string version = std::to_string(parts_.version);
  parts_.shape.name = parts_.name;
  parts_.shape.version = version;
  parts_.info.set_name(parts_.name);
  parts_.info.set_version(version);
  parts_.oip_metadata.set_name(parts_.name);
  parts_.oip_metadata.clear_versions();
  parts_.oip_metadata.add_versions(version);
}

ModelVersion::~ModelVersion() {
  drain();
  // Batchers before the model their processors refer to.
  parts_.forecast_batcher.reset();
  parts_.encode_batcher.reset();
}

void ModelVersion::drain() {
  {
    MutexLock lock(mutex_);
    admissions_ended_.wait(lock.native(),
                           [this]() TSSERVE_REQUIRES(mutex_) { return admissions_ == 0; });
  }
  parts_.forecast_batcher->shutdown();
  parts_.encode_batcher->shutdown();
}

void ModelVersion::begin_admission() {
  MutexLock lock(mutex_);
  ++admissions_;
}

void ModelVersion::end_admission() {
  bool last = false;
  {
    MutexLock lock(mutex_);
    last = --admissions_ == 0;
  }
  if (last) admissions_ended_.notify_all();
}

VersionLease::VersionLease(std::shared_ptr<ModelVersion> version)
    : version_(std::move(version)), admitting_(true) {}

VersionLease::VersionLease(VersionLease&& other) noexcept
    : version_(std::move(other.version_)), admitting_(std::exchange(other.admitting_, false)) {}

VersionLease& VersionLease::operator=(VersionLease&& other) noexcept {
  if (this != &other) {
    admitted();
    version_ = std::move(other.version_);
    admitting_ = std::exchange(other.admitting_, false);
  }
  return *this;
}

VersionLease::~VersionLease() { admitted(); }

void VersionLease::admitted() {
  if (admitting_) {
    admitting_ = false;
    version_->end_admission();
  }
}

}  // namespace tsserve::server
