// ModelRegistry over fake versions whose batchers are real (DynamicBatcher) and whose
// "model" answers with its version number: resolution, publication only when ready,
// failed loads leaving the serving version in place, and no admitted request lost when a
// version is unloaded. Synchronised by condition variables, never by sleeps.

#include "server/registry/model_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
// What a resolution reports: its code, and whether the version asked for (not the model
// name) is at fault.
using Outcome = std::pair<StatusCode, bool>;
Outcome outcome(const ModelRegistry::Resolution& resolution) {
  return {resolution.status.code(), resolution.blames_version};
}
const Outcome kModelNotFound{StatusCode::kNotFound, false};
const Outcome kVersionNotFound{StatusCode::kNotFound, true};
const Outcome kInvalidVersion{StatusCode::kInvalidArgument, true};
const Outcome kNotReady{StatusCode::kUnavailable, false};

// A one-shot flag threads can wait for.
class Latch {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// What a probe saw: which version answered it and with what status. Held apart from the
// task because the batch that completes a task frees it.
struct ProbeOutcome {
  int64_t answered_by = 0;
  Status status;
  Latch done;
};

// One row; reports into its outcome.
class ProbeTask final : public BatchTask {
 public:
  explicit ProbeTask(std::shared_ptr<ProbeOutcome> outcome) : outcome(std::move(outcome)) {}
  std::size_t rows() const override { return 1; }
  const std::shared_ptr<ProbeOutcome> outcome;

 protected:
  void on_complete(const Status& result) override {
    outcome->status = result;
    outcome->done.open();
  }
};

std::unique_ptr<BatchTask> probe_task(const std::shared_ptr<ProbeOutcome>& outcome) {
  return std::make_unique<ProbeTask>(outcome);
}

// The fake model: the version number it answers with, and a gate its batches wait on.
struct FakeModel {
  int64_t version = 0;
  Latch* gate = nullptr;     // null: batches run at once
  Latch* running = nullptr;  // opened when a batch starts
};

std::shared_ptr<ModelVersion> fake_version(const std::string& name, int64_t version,
                                           Latch* gate = nullptr, Latch* running = nullptr) {
  auto model = std::make_shared<FakeModel>(FakeModel{version, gate, running});
  auto processor = [model](Batch& batch) {
    if (model->running) model->running->open();
    if (model->gate) model->gate->wait();
    for (auto& task : batch.tasks) {
      static_cast<ProbeTask&>(*task).outcome->answered_by = model->version;
      task->complete(Status());
    }
  };
  ModelVersion::Parts parts;
  parts.name = name;
  parts.version = version;
  parts.resident_bytes = 100;
  parts.model = model;
  parts.forecast_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, processor);
  parts.encode_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, processor);
  return std::make_shared<ModelVersion>(std::move(parts));
}

RepositoryModel repository_model(const std::string& name, std::vector<int64_t> versions,
                                 const std::string& fingerprint = "f") {
  RepositoryModel model;
  model.name = name;
  model.directory = "/repo/" + name;
  for (int64_t number : versions) {
    RepositoryVersion version;
    version.version = number;
    version.directory = model.directory + "/" + std::to_string(number);
    version.checkpoint = version.directory + "/model.pt";
    version.config = version.directory + "/config.json";
    version.fingerprint = fingerprint;
    model.versions.push_back(version);
  }
  return model;
}

RepositoryScan scan_of(std::vector<RepositoryModel> models) {
  RepositoryScan scan;
  scan.models = std::move(models);
  return scan;
}

// Records the states the registry reports; lets a test wait for one.
class StateLog final : public RegistryObserver {
 public:
  void on_state(const VersionStatus& status) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      states_.push_back(status.model + "/" + std::to_string(status.version) + " " +
                        to_string(status.state));
    }
    changed_.notify_all();
  }
  void on_removed(const std::string& model, int64_t version) override {
    on_state(VersionStatus{model, version, VersionState::kUnloading, "removed", 0, 0});
  }
  void wait_for(const std::string& state) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(
        lock, [&] { return std::find(states_.begin(), states_.end(), state) != states_.end(); });
  }
  std::vector<std::string> states() {
    std::lock_guard<std::mutex> lock(mutex_);
    return states_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> states_;
};

// Submits one probe through `lease` and waits for its answer.
int64_t ask(VersionLease lease) {
  auto probe = std::make_shared<ProbeOutcome>();
  std::unique_ptr<BatchTask> task = probe_task(probe);
  EXPECT_EQ(lease->forecast_batcher().submit(task), SubmitResult::kAccepted);
  lease.admitted();
  probe->done.wait();
  EXPECT_TRUE(probe->status.ok());
  return probe->answered_by;
}

ModelRegistry::Loader fake_loader(std::function<void(int64_t)> before = nullptr) {
  return [before](const RepositoryModel& model, const RepositoryVersion& version,
                  std::shared_ptr<ModelVersion>* loaded) {
    if (before) before(version.version);
    *loaded = fake_version(model.name, version.version);
    return Status();
  };
}

TEST(ModelVersionTest, ItsIdentityIsGivenOnceAndEveryDescriptionCarriesIt) {
  ModelVersion::Parts parts;
  parts.name = "etth1";
  parts.version = 7;
  // Stale or absent copies in the descriptions are overwritten, not trusted.
  parts.shape.name = "other";
  parts.info.set_version("1");
  parts.oip_metadata.add_versions("2");
  parts.forecast_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
  parts.encode_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
  const ModelVersion version(std::move(parts));
  EXPECT_EQ(version.name(), "etth1");
  EXPECT_EQ(version.version(), 7);
  EXPECT_EQ(version.shape().name, "etth1");
  EXPECT_EQ(version.shape().version, "7");
  EXPECT_EQ(version.info().name(), "etth1");
  EXPECT_EQ(version.info().version(), "7");
  EXPECT_EQ(version.oip_metadata().name(), "etth1");
  ASSERT_EQ(version.oip_metadata().versions_size(), 1);
  EXPECT_EQ(version.oip_metadata().versions(0), "7");
}

TEST(ModelRegistryTest, ResolvesTheNewestReadyVersionOrTheOneAskedFor) {
  ModelRegistry registry(fake_loader(), {});
  RepositoryModel a = repository_model("a", {1, 2, 3});
  a.settings.version_policy.kind = VersionPolicy::Kind::kAll;
  registry.apply(scan_of({a, repository_model("b", {7})}));
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 3);
  EXPECT_EQ(ask(std::move(registry.resolve("a", "1").lease)), 1);
  EXPECT_EQ(ask(std::move(registry.resolve("b", "").lease)), 7);
  EXPECT_TRUE(registry.all_ready());

  ModelRegistry::Resolution unknown = registry.resolve("c", "");
  EXPECT_EQ(outcome(unknown), kModelNotFound);
  EXPECT_EQ(unknown.status.message(),
            "model \"c\" is not served; served: a (versions 1, 2, 3), b (versions 7)");
  ModelRegistry::Resolution missing = registry.resolve("b", "8");
  EXPECT_EQ(outcome(missing), kVersionNotFound);
  EXPECT_THAT(missing.status.message(), HasSubstr("model \"b\" has no ready version 8; served: "));
  ModelRegistry::Resolution bad = registry.resolve("b", "v8");
  EXPECT_EQ(outcome(bad), kInvalidVersion);
  EXPECT_THAT(bad.status.message(), HasSubstr("model_version \"v8\""));
}

TEST(ModelRegistryTest,
     AFailedLoadLeavesTheServingVersionServingAndIsRetriedOnlyWhenItsFilesChange) {
  int loads_of_2 = 0;
  ModelRegistry registry(
      [&](const RepositoryModel& model, const RepositoryVersion& version,
          std::shared_ptr<ModelVersion>* loaded) {
        if (version.version == 2) {
          ++loads_of_2;
          if (version.fingerprint == "corrupt") throw std::runtime_error("not a checkpoint");
        }
        *loaded = fake_version(model.name, version.version);
        return Status();
      },
      {});
  registry.apply(scan_of({repository_model("a", {1})}));
  RepositoryModel corrupt = repository_model("a", {1, 2}, "corrupt");
  registry.apply(scan_of({corrupt}));
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 1);
  std::vector<VersionStatus> statuses = registry.statuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[1].state, VersionState::kFailed);
  EXPECT_EQ(statuses[1].reason, "/repo/a/2: not a checkpoint");
  EXPECT_THAT(registry.resolve("a", "2").status.message(),
              HasSubstr("it is failed: /repo/a/2: not a checkpoint"));

  registry.apply(scan_of({corrupt}));  // same files: not tried again
  EXPECT_EQ(loads_of_2, 1);
  registry.apply(scan_of({repository_model("a", {1, 2}, "fixed")}));
  EXPECT_EQ(loads_of_2, 2);
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 2);
  statuses = registry.statuses();
  ASSERT_EQ(statuses.size(), 1u);  // version 1 unloaded once 2 was ready
  EXPECT_EQ(statuses[0].version, 2);
}

TEST(ModelRegistryTest, ANewVersionIsPublishedOnlyOnceLoaded) {
  ModelRegistry* registry_seen = nullptr;
  int64_t answered_while_loading = 0;
  ModelRegistry registry(fake_loader([&](int64_t version) {
                           if (version != 2) return;
                           // Mid-load, requests still go to version 1.
                           answered_while_loading =
                               ask(std::move(registry_seen->resolve("a", "").lease));
                         }),
                         {});
  registry_seen = &registry;
  registry.apply(scan_of({repository_model("a", {1})}));
  registry.apply(scan_of({repository_model("a", {1, 2})}));
  EXPECT_EQ(answered_while_loading, 1);
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 2);
}

TEST(ModelRegistryTest, UnloadWhileARequestIsQueuedAnswersIt) {
  Latch gate;
  Latch running;
  StateLog log;
  ModelRegistry registry(
      [&](const RepositoryModel& model, const RepositoryVersion& version,
          std::shared_ptr<ModelVersion>* loaded) {
        *loaded = version.version == 1 ? fake_version(model.name, 1, &gate, &running)
                                       : fake_version(model.name, version.version);
        return Status();
      },
      {0, &log});
  registry.apply(scan_of({repository_model("a", {1})}));

  // One task runs (held at the gate), one is queued behind it, and one request has
  // resolved version 1 but not yet submitted.
  auto first_probe = std::make_shared<ProbeOutcome>();
  auto queued_probe = std::make_shared<ProbeOutcome>();
  std::unique_ptr<BatchTask> first = probe_task(first_probe);
  std::unique_ptr<BatchTask> queued = probe_task(queued_probe);
  {
    VersionLease lease = std::move(registry.resolve("a", "").lease);
    ASSERT_EQ(lease->forecast_batcher().submit(first), SubmitResult::kAccepted);
  }
  running.wait();
  {
    VersionLease lease = std::move(registry.resolve("a", "").lease);
    ASSERT_EQ(lease->forecast_batcher().submit(queued), SubmitResult::kAccepted);
  }
  VersionLease admitting = std::move(registry.resolve("a", "").lease);

  std::thread swap([&] { registry.apply(scan_of({repository_model("a", {2})})); });
  log.wait_for("a/1 unloading");
  // Unpublished: new requests get version 2, and version 1 by name is gone.
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 2);
  EXPECT_EQ(outcome(registry.resolve("a", "1")), kVersionNotFound);
  // The admission in progress still gets in: the drain waits for it.
  auto late_probe = std::make_shared<ProbeOutcome>();
  std::unique_ptr<BatchTask> late = probe_task(late_probe);
  ASSERT_EQ(admitting->forecast_batcher().submit(late), SubmitResult::kAccepted);
  admitting.admitted();
  gate.open();
  swap.join();
  for (const std::shared_ptr<ProbeOutcome>& probe : {first_probe, queued_probe, late_probe}) {
    probe->done.wait();
    EXPECT_TRUE(probe->status.ok());
    EXPECT_EQ(probe->answered_by, 1);
  }
  EXPECT_THAT(log.states(), ::testing::Contains("a/1 unloading"));
  ASSERT_EQ(registry.statuses().size(), 1u);
}

TEST(ModelRegistryTest, AModelGoneFromTheScanIsUnloadedAndReadinessFollowsTheConfiguredModels) {
  ModelRegistry registry(
      [](const RepositoryModel& model, const RepositoryVersion& version,
         std::shared_ptr<ModelVersion>* loaded) {
        if (model.name == "broken") throw std::runtime_error("bad config");
        *loaded = fake_version(model.name, version.version);
        return Status();
      },
      {});
  registry.apply(scan_of({repository_model("a", {1}), repository_model("b", {1})}));
  EXPECT_TRUE(registry.all_ready());
  registry.apply(scan_of({repository_model("a", {1})}));
  EXPECT_EQ(outcome(registry.resolve("b", "")), kModelNotFound);
  EXPECT_EQ(registry.statuses().size(), 1u);
  registry.apply(scan_of({repository_model("a", {1}), repository_model("broken", {1})}));
  EXPECT_FALSE(registry.all_ready());
  ModelRegistry::Resolution broken = registry.resolve("broken", "");
  EXPECT_EQ(outcome(broken), kNotReady);
  EXPECT_THAT(broken.status.message(),
              HasSubstr("version 1 is failed: /repo/broken/1: bad config"));
  EXPECT_TRUE(registry.unload_model("a"));
  EXPECT_EQ(outcome(registry.resolve("a", "")), kModelNotFound);
}

TEST(ModelRegistryTest, MaxLoadedBytesRefusesALoadPastItWithTheReason) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tsserve-registry-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "2");
  std::ofstream(dir / "2" / "model.pt") << std::string(80, 'w');
  ModelRegistry registry(fake_loader(), {150, nullptr});
  RepositoryModel model = repository_model("a", {1, 2});
  model.versions[1].directory = (dir / "2").string();
  model.versions[1].checkpoint = (dir / "2" / "model.pt").string();
  registry.apply(scan_of({repository_model("a", {1})}));  // 100 resident bytes
  registry.apply(scan_of({model}));
  std::filesystem::remove_all(dir);
  const std::vector<VersionStatus> statuses = registry.statuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].resident_bytes, 100);
  EXPECT_EQ(statuses[1].state, VersionState::kFailed);
  EXPECT_THAT(statuses[1].reason,
              HasSubstr("checkpoint 80 bytes) beside the 100 bytes loaded would pass "
                        "max_loaded_bytes (150)"));
  EXPECT_EQ(ask(std::move(registry.resolve("a", "").lease)), 1);
}

}  // namespace
}  // namespace tsserve::server
