// RepositoryManager's explicit unload over a scripted scanner and fake versions: what it
// remembers is bounded by the repository, never by the names callers send. An unload of a
// name the repository does not know is refused and leaves nothing behind (so a model added
// under that name later is served by the next poll); a known name stays unloaded across
// polls until loaded by name, and is forgotten once its folder leaves the repository.

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "server/registry/repository_manager.h"

namespace tsserve::server {
namespace repository_manager_unload_test {

// A version whose batchers do nothing: the tests only ask what is loaded.
std::shared_ptr<ModelVersion> idle_version(const std::string& name, int64_t version) {
  ModelVersion::Parts parts;
  parts.name = name;
  parts.version = version;
  parts.resident_bytes = 1;
  parts.forecast_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
  parts.encode_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
  return std::make_shared<ModelVersion>(std::move(parts));
}

RepositoryModel model_folder(const std::string& name) {
  RepositoryModel model;
  model.name = name;
  model.directory = "/repo/" + name;
  RepositoryVersion version;
  version.version = 1;
  version.directory = model.directory + "/1";
  version.checkpoint = version.directory + "/model.pt";
  version.config = version.directory + "/config.json";
  version.fingerprint = "f";
  model.versions.push_back(version);
  return model;
}

// The repository the scanner reports: what the test puts in it.
struct ScriptedRepository {
  std::vector<std::string> names;
  bool unreadable = false;  // the directory itself cannot be listed

  RepositoryScan scan() const {
    RepositoryScan scan;
    if (unreadable) {
      scan.refusals.push_back({"", "/repo", "cannot be listed (Permission denied)"});
      return scan;
    }
    for (const std::string& name : names) scan.models.push_back(model_folder(name));
    return scan;
  }
};

class RepositoryManagerUnloadTest : public ::testing::Test {
 protected:
  RepositoryManagerUnloadTest()
      : manager_([this] { return repository_.scan(); },
                 [](const RepositoryModel& model, const RepositoryVersion& version,
                    std::shared_ptr<ModelVersion>* loaded) {
                   *loaded = idle_version(model.name, version.version);
                   return Status();
                 },
                 {}) {}

  bool serves(const std::string& name) { return manager_.registry().resolve(name, "").status.ok(); }

  ScriptedRepository repository_;
  RepositoryManager manager_;
};

TEST_F(RepositoryManagerUnloadTest, AnUnloadOfAnAbsentNameIsRefusedAndLeavesNothingBehind) {
  repository_.names = {"served"};
  manager_.poll_once();
  const std::string absent(8192, 'x');  // as the probe that kept +19 MB for 2,000 of them
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(manager_.unload_model(absent + std::to_string(i)));
  }
  EXPECT_FALSE(manager_.unload_model("later"));
  EXPECT_TRUE(manager_.unloaded_models().empty());
  EXPECT_TRUE(serves("served"));

  // A model added under the name afterwards is served by the next poll, not blocked.
  repository_.names = {"served", "later"};
  manager_.poll_once();
  EXPECT_TRUE(serves("later"));
}

TEST_F(RepositoryManagerUnloadTest, AKnownNameStaysUnloadedAcrossPollsUntilLoadedByName) {
  repository_.names = {"a", "b"};
  manager_.poll_once();
  ASSERT_TRUE(serves("a"));
  EXPECT_TRUE(manager_.unload_model("a"));
  EXPECT_EQ(manager_.unloaded_models(), std::set<std::string>{"a"});
  manager_.poll_once();
  EXPECT_FALSE(serves("a"));
  EXPECT_TRUE(serves("b"));
  // A second unload finds nothing loaded (false) and keeps it unloaded.
  EXPECT_FALSE(manager_.unload_model("a"));
  manager_.poll_once();
  EXPECT_FALSE(serves("a"));

  EXPECT_TRUE(manager_.load_model("a").ok());
  EXPECT_TRUE(serves("a"));
  EXPECT_TRUE(manager_.unloaded_models().empty());
}

TEST_F(RepositoryManagerUnloadTest, AFolderGoneFromACompleteScanTakesItsUnloadWithIt) {
  repository_.names = {"a"};
  manager_.poll_once();
  ASSERT_TRUE(manager_.unload_model("a"));

  // An unreadable directory says nothing about what is gone: the unload holds.
  repository_.unreadable = true;
  manager_.poll_once();
  EXPECT_EQ(manager_.unloaded_models(), std::set<std::string>{"a"});
  repository_.unreadable = false;
  manager_.poll_once();
  EXPECT_FALSE(serves("a"));

  // The folder removed: forgotten; added again: a new model, served.
  repository_.names = {};
  manager_.poll_once();
  EXPECT_TRUE(manager_.unloaded_models().empty());
  repository_.names = {"a"};
  manager_.poll_once();
  EXPECT_TRUE(serves("a"));
}

}  // namespace repository_manager_unload_test
}  // namespace tsserve::server
