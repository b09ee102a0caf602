// scan_repository and model.json over real temporary directories: each bad layout is
// refused naming its path and reason while the rest of the repository is served.

#include "server/repository/repository_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "server/repository/model_settings.h"

namespace tsserve::server {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A fresh directory under the system temp dir, removed with the fixture.
class RepositoryScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tsserve-repo-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(root_, ignored);
  }

  void write(const fs::path& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  // A valid version folder: a (non-empty) checkpoint and a config naming `name`.
  void add_version(const std::string& name, const std::string& version,
                   const std::string& checkpoint = "model.pt") {
    write(fs::path(name) / version / checkpoint, "weights");
    write(fs::path(name) / version / "config.json", "{\"name\": \"" + name + "\"}");
  }
  RepositoryScan scan() const { return scan_repository(root_.string()); }

  fs::path root_;
};

std::vector<std::string> names(const RepositoryScan& scan) {
  std::vector<std::string> out;
  for (const RepositoryModel& model : scan.models) out.push_back(model.name);
  return out;
}

TEST_F(RepositoryScanTest, ReadsModelsAndVersionsInOrderAndSkipsHiddenEntries) {
  add_version("etth1", "2");
  add_version("etth1", "10", "model.safetensors");
  add_version("etth2", "1", "model.pth");
  write("etth1/.incoming/model.pt", "half written");  // staging: skipped, not refused
  write(".trash/1/model.pt", "x");
  write("README.md", "plain files at the top are skipped");
  const RepositoryScan result = scan();
  EXPECT_THAT(result.refusals, IsEmpty());
  ASSERT_THAT(names(result), ElementsAre("etth1", "etth2"));
  const RepositoryModel& etth1 = result.models[0];
  ASSERT_EQ(etth1.versions.size(), 2u);
  EXPECT_EQ(etth1.versions[0].version, 2);
  EXPECT_EQ(etth1.versions[1].version, 10);
  EXPECT_EQ(etth1.versions[1].checkpoint, (root_ / "etth1/10/model.safetensors").string());
  EXPECT_EQ(etth1.versions[1].config, (root_ / "etth1/10/config.json").string());
  EXPECT_THAT(etth1.selected_versions(), ElementsAre(10));  // default policy: latest 1
}

TEST_F(RepositoryScanTest, MissingConfigRefusesThatVersionOnly) {
  add_version("etth1", "1");
  write("etth1/2/model.pt", "weights");
  const RepositoryScan result = scan();
  ASSERT_EQ(result.refusals.size(), 1u);
  EXPECT_EQ(result.refusals[0].path, (root_ / "etth1/2/config.json").string());
  EXPECT_THAT(result.refusals[0].reason, HasSubstr("missing"));
  ASSERT_THAT(names(result), ElementsAre("etth1"));
  EXPECT_THAT(result.models[0].selected_versions(), ElementsAre(1));  // v1 keeps serving
}

TEST_F(RepositoryScanTest, BadVersionFolderNamesAreRefusedAndTheRestServed) {
  add_version("etth1", "3");
  for (const char* bad : {"v2", "0", "01", "-1", "latest"}) add_version("etth1", bad);
  const RepositoryScan result = scan();
  EXPECT_EQ(result.refusals.size(), 5u);
  for (const RepositoryRefusal& refusal : result.refusals) {
    EXPECT_EQ(refusal.model, "etth1");
    EXPECT_THAT(refusal.reason, HasSubstr("positive integer"));
  }
  ASSERT_EQ(result.models.size(), 1u);
  EXPECT_THAT(result.models[0].selected_versions(), ElementsAre(3));
}

TEST_F(RepositoryScanTest, UnreadableAndEmptyCheckpointsAreRefusedNamingTheFile) {
  add_version("a", "1");
  add_version("b", "1");
  write("b/1/model.pt", "");  // empty
  add_version("c", "1");
  fs::permissions(root_ / "c/1/model.pt", fs::perms::none);
  const bool root_reads_anything = ::geteuid() == 0;
  const RepositoryScan result = scan();
  std::vector<std::string> paths;
  for (const RepositoryRefusal& refusal : result.refusals) paths.push_back(refusal.path);
  EXPECT_THAT(paths, ::testing::Contains((root_ / "b/1/model.pt").string()));
  if (!root_reads_anything) {
    EXPECT_THAT(paths, ::testing::Contains((root_ / "c/1/model.pt").string()));
    EXPECT_THAT(result.refusals.back().reason,
                ::testing::AnyOf(HasSubstr("cannot be read"), HasSubstr("no valid version")));
  }
  EXPECT_EQ(result.find("a")->versions.size(), 1u);
  EXPECT_TRUE(result.find("b")->versions.empty());
}

TEST_F(RepositoryScanTest, TwoCheckpointsInOneVersionAreAmbiguous) {
  add_version("m", "1");
  write("m/1/model.safetensors", "other weights");
  const RepositoryScan result = scan();
  ASSERT_FALSE(result.refusals.empty());
  EXPECT_EQ(result.refusals[0].path, (root_ / "m/1").string());
  EXPECT_THAT(result.refusals[0].reason, HasSubstr("more than one checkpoint"));
}

TEST_F(RepositoryScanTest, NamesDifferingOnlyInCaseAreBothRefused) {
  add_version("ETTh1", "1");
  write("etth1/1/model.pt", "w");
  write("etth1/1/config.json", "{\"name\": \"etth1\"}");
  add_version("etth2", "1");
  const RepositoryScan result = scan();
  ASSERT_THAT(names(result), ElementsAre("etth2"));
  ASSERT_EQ(result.refusals.size(), 2u);
  EXPECT_EQ(result.refusals[0].path, (root_ / "ETTh1").string());
  EXPECT_THAT(result.refusals[0].reason, HasSubstr("collides with etth1"));
  EXPECT_THAT(result.refusals[1].reason, HasSubstr("collides with ETTh1"));
}

TEST_F(RepositoryScanTest, ConfigNamingAnotherModelIsRefused) {
  add_version("etth2", "1");
  write("etth2/2/model.pt", "w");
  write("etth2/2/config.json", "{\"name\": \"etth1\"}");
  write("etth2/3/model.pt", "w");
  write("etth2/3/config.json", "[1, 2]");
  write("etth2/4/model.pt", "w");
  write("etth2/4/config.json", "{not json");
  const RepositoryScan result = scan();
  ASSERT_EQ(result.refusals.size(), 3u);
  EXPECT_THAT(result.refusals[0].message(),
              HasSubstr("etth2/2/config.json: \"name\" is \"etth1\""));
  EXPECT_THAT(result.refusals[1].reason, HasSubstr("expected a JSON object"));
  EXPECT_THAT(result.refusals[2].reason, HasSubstr("not JSON"));
  EXPECT_THAT(result.models[0].selected_versions(), ElementsAre(1));
}

TEST_F(RepositoryScanTest, BadModelNameAndBadModelJsonRefuseThatModel) {
  add_version("good", "1");
  add_version("has space", "1");
  add_version("typo", "1");
  write("typo/model.json", "{\"instance\": 2}");
  const RepositoryScan result = scan();
  ASSERT_THAT(names(result), ElementsAre("good"));
  ASSERT_EQ(result.refusals.size(), 2u);
  EXPECT_THAT(result.refusals[0].reason, HasSubstr("not a model name"));
  EXPECT_EQ(result.refusals[1].path, (root_ / "typo/model.json").string());
  EXPECT_THAT(result.refusals[1].reason, HasSubstr("unknown key \"instance\""));
}

TEST_F(RepositoryScanTest, MissingRepositoryIsOneRefusal) {
  const RepositoryScan result = scan_repository((root_ / "absent").string());
  EXPECT_THAT(result.models, IsEmpty());
  ASSERT_EQ(result.refusals.size(), 1u);
  EXPECT_THAT(result.refusals[0].message(), HasSubstr("absent: not a directory"));
}

TEST_F(RepositoryScanTest, FingerprintChangesWhenAFileIsReplaced) {
  add_version("m", "1");
  const std::string before = scan().models[0].versions[0].fingerprint;
  write("m/1/model.pt", "longer weights");
  EXPECT_NE(scan().models[0].versions[0].fingerprint, before);
}

TEST(ModelSettingsTest, VersionPolicies) {
  const std::vector<int64_t> available = {1, 2, 5, 9};
  ModelSettingsResult latest = parse_model_settings(R"({"version_policy": {"latest": 2}})");
  ASSERT_TRUE(latest.status.ok()) << latest.status.message();
  EXPECT_THAT(latest.settings.version_policy.select(available), ElementsAre(5, 9));
  EXPECT_EQ(latest.settings.version_policy.describe(), "latest 2");
  ModelSettingsResult all = parse_model_settings(R"({"version_policy": "all"})");
  EXPECT_THAT(all.settings.version_policy.select(available), ElementsAre(1, 2, 5, 9));
  ModelSettingsResult specific =
      parse_model_settings(R"({"version_policy": {"specific": [5, 3, 1, 5]}})");
  ASSERT_TRUE(specific.status.ok()) << specific.status.message();
  EXPECT_THAT(specific.settings.version_policy.select(available), ElementsAre(1, 5));
  EXPECT_EQ(specific.settings.version_policy.describe(), "specific [1, 3, 5]");
  EXPECT_THAT(VersionPolicy{}.select(available), ElementsAre(9));
  EXPECT_THAT(VersionPolicy{}.select({}), IsEmpty());
}

TEST(ModelSettingsTest, AValueNestedDeepIsRefusedByItsKindWithoutACrash) {
  // dump() of these values in the error message recursed 100,000 deep.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& key : {std::string("instances"), std::string("version_policy")}) {
    const ModelSettingsResult refused = parse_model_settings("{\"" + key + "\": " + deep + "}");
    EXPECT_FALSE(refused.status.ok()) << key;
    EXPECT_THAT(refused.status.message(), HasSubstr("is an array")) << key;
  }
}

TEST(ModelSettingsTest, OverridesAndTheirErrors) {
  ModelSettingsResult ok = parse_model_settings(
      "// per-model\n{\"instances\": 2, \"threads\": 1, \"max_batch_rows\": 64,"
      " \"max_queue_delay_ms\": 1.5}");
  ASSERT_TRUE(ok.status.ok()) << ok.status.message();
  EXPECT_EQ(ok.settings.instances, 2);
  EXPECT_EQ(ok.settings.max_batch_rows, 64);
  EXPECT_EQ(ok.settings.max_queue_delay_ms, 1.5);
  EXPECT_FALSE(ok.settings.max_queue_rows.has_value());
  EXPECT_THAT(parse_model_settings(R"({"max_batch_rows": 0})").status.message(),
              HasSubstr("\"max_batch_rows\" is 0; expected an integer from 1"));
  EXPECT_THAT(parse_model_settings(R"({"threads": "2"})").status.message(),
              HasSubstr("\"threads\""));
  EXPECT_THAT(parse_model_settings(R"({"version_policy": {"latest": 0}})").status.message(),
              HasSubstr("\"version_policy\""));
  EXPECT_THAT(parse_model_settings(R"({"version_policy": {"specific": []}})").status.message(),
              HasSubstr("\"version_policy\""));
  EXPECT_THAT(parse_model_settings("[]").status.message(), HasSubstr("one JSON object"));
}

}  // namespace
}  // namespace tsserve::server
