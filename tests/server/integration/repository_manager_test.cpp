// A model repository served end to end: the real server on loopback over a temporary
// DIR/<name>/<version>/ made from the bundled checkpoints, real gRPC stubs. Each answer is
// compared bit for bit with the same files served alone (--model, a repository of one).
// The repository is re-scanned by poll_repository(), what the poller runs, not by waiting.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "raw_http_client.h"
#include "safetensors_file.h"
#include "server_harness.h"
#include "tsserve/model/checkpoint_file.h"

namespace tsserve::server::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kBundled = fs::path(TSSERVE_SOURCE_DIR) / "model" / "default";
// tests/reference/make_etth2_model.py's output (the make_etth2_model ctest fixture), in
// $TSSERVE_FIXTURE_DIR when set (as tests/model/reference_fixture.h reads it).
fs::path etth2_model_dir() {
  const char* dir = std::getenv("TSSERVE_FIXTURE_DIR");
  return fs::path(dir != nullptr && *dir != '\0' ? dir : TSSERVE_FIXTURE_DIR) / "etth2";
}

// A temporary repository, removed with the object.
class TempRepository {
 public:
  TempRepository() {
    std::string pattern = (fs::temp_directory_path() / "tsserve-repository-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~TempRepository() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  const fs::path& root() const { return root_; }

  // DIR/name/version from the bundled `stem` (.pt + .json), the config's "name" set to
  // `name` and `edit` applied; staged under DIR/name/.incoming and renamed into place, as
  // the rollout recipe of docs/model-repository.md does, so a scan never sees half a version.
  fs::path add(const std::string& name, int version, const std::string& stem,
               const std::function<void(json&)>& edit = nullptr) {
    return add_from(kBundled, name, version, stem, edit);
  }
  // The same from `from`/stem.pt and .json.
  fs::path add_from(const fs::path& from, const std::string& name, int version,
                    const std::string& stem, const std::function<void(json&)>& edit = nullptr) {
    const fs::path staging = root_ / name / ".incoming";
    fs::create_directories(staging);
    fs::copy_file(from / (stem + ".pt"), staging / "model.pt",
                  fs::copy_options::overwrite_existing);
    json config = json::parse(std::ifstream(from / (stem + ".json")));
    config["name"] = name;
    if (edit) edit(config);
    std::ofstream(staging / "config.json") << config.dump(1);
    const fs::path target = root_ / name / std::to_string(version);
    fs::rename(staging, target);
    return target;
  }
  // DIR/name/version with `weights` as its checkpoint (model.safetensors) and the bundled
  // `stem`'s config, its "name" set to `name`; staged and renamed into place as add() does.
  fs::path add_weights(const std::string& name, int version, const std::string& stem,
                       const model::StateDict& weights) {
    const fs::path staging = root_ / name / ".incoming";
    fs::create_directories(staging);
    write_safetensors((staging / "model.safetensors").string(), weights);
    json config = json::parse(std::ifstream(kBundled / (stem + ".json")));
    config["name"] = name;
    std::ofstream(staging / "config.json") << config.dump(1);
    const fs::path target = root_ / name / std::to_string(version);
    fs::rename(staging, target);
    return target;
  }

 private:
  fs::path root_;
};

ServerConfig repository_config(const fs::path& root) {
  ServerConfig config = test_config();
  config.repository.model_repository = root.string();
  config.repository.repository_poll_s = 0;  // the test polls
  return config;
}

// The same version folder served alone.
ServerConfig single_config(const fs::path& version) {
  ServerConfig config = test_config();
  const bool safetensors = fs::exists(version / "model.safetensors");  // add_weights()'s
  config.model.model = (version / (safetensors ? "model.safetensors" : "model.pt")).string();
  config.model.model_config = (version / "config.json").string();
  config.server.metrics_address = "";
  return config;
}

v1::ForecastRequest patchtst_request(const std::string& model, uint64_t seed) {
  v1::ForecastRequest request = forecast_request(7, 336, seed);
  request.set_model(model);
  return request;
}

// The ETTh2 model reads 96 steps.
v1::ForecastRequest etth2_request(const std::string& model, uint64_t seed) {
  v1::ForecastRequest request = forecast_request(7, 96, seed);
  request.set_model(model);
  return request;
}

// The bundled iTransformer reads calendar tokens: hourly timestamps.
v1::ForecastRequest itransformer_request(const std::string& model, uint64_t seed) {
  v1::ForecastRequest request = forecast_request(7, 96, seed);
  request.set_model(model);
  for (int64_t i = 0; i < 96; ++i) request.add_timestamps(1'700'000'000 + 3600 * i);
  return request;
}

grpc::Status call(ServerHarness& harness, const v1::ForecastRequest& request,
                  v1::ForecastResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  return harness.stub().Forecast(&context, request, response);
}

// The forecast's bytes as served alone by `version`'s files.
std::vector<std::string> alone(const fs::path& version,
                               const std::vector<v1::ForecastRequest>& requests) {
  ServerHarness single(single_config(version));
  std::vector<std::string> answers;
  for (v1::ForecastRequest request : requests) {
    request.clear_model();
    v1::ForecastResponse response;
    const grpc::Status status = call(single, request, &response);
    EXPECT_TRUE(status.ok()) << version << ": " << status.error_message();
    answers.push_back(response.forecast().SerializeAsString());
  }
  return answers;
}

v1::ListModelsResponse list_models(ServerHarness& harness) {
  v1::ListModelsResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.stub().ListModels(&context, {}, &response).ok());
  return response;
}

// grpc.health.v1's answer for `service`: the status's name, or "code N" when the call fails.
std::string health_of(ServerHarness& harness, const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse answer;
  grpc::ClientContext context;
  const grpc::Status status = harness.health().Check(&context, request, &answer);
  return status.ok() ? grpc::health::v1::HealthCheckResponse::ServingStatus_Name(answer.status())
                     : "code " + std::to_string(status.error_code());
}

TEST(RepositoryManager, FourModelsOfDifferentShapesAndDataAnswerAsEachAloneUnderConcurrentLoad) {
  const fs::path etth2 = etth2_model_dir();
  // Without ETTh2.csv the generator makes no ETTh2 model and leaves its reason here.
  if (std::ifstream skipped{etth2 / "patchtst_etth2.skipped"}) {
    std::string reason;
    std::getline(skipped, reason);
    GTEST_SKIP() << reason;
  }
  TempRepository repository;
  std::map<std::string, fs::path> folders = {
      {"etth1", repository.add("etth1", 1, "patchtst_etth1")},
      {"etth1-prob",
       repository.add("etth1-prob", 3, "patchtst_etth1", [](json& c) { c["attention"] = "prob"; })},
      {"itransformer", repository.add("itransformer", 1, "itransformer_etth1")},
      {"etth2", repository.add_from(etth2, "etth2", 2, "patchtst_etth2")}};
  std::vector<v1::ForecastRequest> requests;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    requests.push_back(etth2_request("etth2", seed));
    requests.push_back(patchtst_request("etth1", seed));
    requests.push_back(patchtst_request("etth1-prob", seed));
    requests.push_back(itransformer_request("itransformer", seed));
  }
  std::vector<v1::ForecastResponse> responses;
  std::vector<grpc::Status> statuses;
  {
    ServerHarness harness(repository_config(repository.root()));
    ASSERT_TRUE(
        forecast_concurrently(harness, requests, responses, statuses, std::chrono::seconds(120)));
    const v1::ListModelsResponse listed = list_models(harness);
    ASSERT_EQ(listed.models_size(), 4);
    for (const v1::ListedModel& model : listed.models()) {
      ASSERT_EQ(model.versions_size(), 1) << model.name();
      EXPECT_EQ(model.versions(0).state(), v1::ModelVersionStatus::STATE_READY);
      EXPECT_GT(model.versions(0).resident_bytes(), 0);
      std::cout << "[ figures  ] " << model.name() << " v" << model.versions(0).version()
                << ": loaded in " << model.versions(0).load_seconds() << " s, "
                << model.versions(0).resident_bytes() << " resident bytes\n";
    }
    EXPECT_EQ(listed.models(1).default_version(), "3");
  }
  for (const auto& [name, folder] : folders) {
    std::vector<v1::ForecastRequest> mine;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].model() != name) continue;
      mine.push_back(requests[i]);
      index.push_back(i);
    }
    const std::vector<std::string> expected = alone(folder, mine);
    for (std::size_t k = 0; k < index.size(); ++k) {
      const std::size_t i = index[k];
      ASSERT_TRUE(statuses[i].ok()) << name << ": " << statuses[i].error_message();
      EXPECT_EQ(responses[i].model_name(), name);
      EXPECT_EQ(responses[i].model_version(), folder.filename().string());
      EXPECT_EQ(responses[i].forecast().SerializeAsString(), expected[k]) << name << " #" << k;
    }
  }
}

TEST(RepositoryManager, BadEntriesAreRefusedByPathAndTheRestIsServed) {
  TempRepository repository;
  repository.add("good", 1, "patchtst_etth1");
  repository.add("good", 2, "patchtst_etth1");
  fs::rename(repository.root() / "good" / "2", repository.root() / "good" / "v2");
  repository.add("noconfig", 1, "patchtst_etth1");
  fs::remove(repository.root() / "noconfig" / "1" / "config.json");
  repository.add("Twin", 1, "patchtst_etth1");
  repository.add("twin", 1, "patchtst_etth1");
  repository.add("empty", 1, "patchtst_etth1");
  std::ofstream(repository.root() / "empty" / "1" / "model.pt", std::ios::trunc).flush();
  repository.add("misnamed", 1, "patchtst_etth1", [](json& c) { c["name"] = "other"; });

  ServerHarness harness(repository_config(repository.root()));
  const v1::ListModelsResponse listed = list_models(harness);
  std::string refusals;
  for (const std::string& refusal : listed.refusals()) refusals += refusal + "\n";
  const std::string root = repository.root().string();
  for (const std::string& expected :
       {root + "/good/v2: not a version folder", root + "/noconfig/1/config.json: missing",
        root + "/Twin: collides with twin", root + "/twin: collides with Twin",
        root + "/empty/1/model.pt: is empty",
        root + "/misnamed/1/config.json: \"name\" is \"other\""}) {
    EXPECT_NE(refusals.find(expected), std::string::npos) << expected << " in\n" << refusals;
  }
  v1::ForecastResponse response;
  ASSERT_TRUE(call(harness, patchtst_request("good", 5), &response).ok());
  EXPECT_EQ(response.model_version(), "1");
  const grpc::Status twin = call(harness, patchtst_request("twin", 5), &response);
  EXPECT_EQ(twin.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(twin.error_message().find("served: "), std::string::npos) << twin.error_message();

  // grpc.health.v1 per model name: the served one SERVING, a refused one unknown; the
  // server is ready: every model it serves has a ready version.
  auto health = [&](const std::string& service) { return health_of(harness, service); };
  EXPECT_EQ(health("good"), "SERVING");
  EXPECT_EQ(health(""), "SERVING");
  EXPECT_EQ(health("twin"), "code " + std::to_string(grpc::StatusCode::NOT_FOUND));
}

// Readiness is what this replica can serve (replica_ready.h), liveness the process: a new
// model whose first version fails to load (a shared repository: every replica sees it)
// must pull no replica out of its endpoints, nor get it restarted. Only a replica with no
// ready model at all is not ready, and it is live all the same.
TEST(RepositoryManager, AModelWhoseFirstVersionFailsToLoadLeavesTheServerReadyForTheOthers) {
  TempRepository repository;
  repository.add("good", 1, "patchtst_etth1");
  // Valid to the scan (config and a non-empty checkpoint), refused by the load.
  const fs::path bad = repository.add("bad", 1, "patchtst_etth1");
  std::ofstream(bad / "model.pt", std::ios::trunc) << "not a checkpoint";

  ServerHarness harness(repository_config(repository.root()));
  auto health = [&](const std::string& service) { return health_of(harness, service); };
  auto oip_ready = [&] {
    inference::ServerReadyResponse ready;
    grpc::ClientContext context;
    EXPECT_TRUE(harness.oip().ServerReady(&context, {}, &ready).ok());
    return ready.ready();
  };
  const int http = harness.server().http_port();
  using tsserve::testing::http_call;

  bool bad_failed = false;
  v1::ListModelsResponse listed = list_models(harness);
  for (const auto& model : listed.models())
    for (const auto& version : model.versions())
      bad_failed |= model.name() == "bad" && version.state() == v1::ModelVersionStatus::STATE_FAILED;
  ASSERT_TRUE(bad_failed) << listed.DebugString();

  EXPECT_EQ(health(""), "SERVING");
  EXPECT_EQ(health("tsserve.v1.ForecastService"), "SERVING");
  EXPECT_EQ(health("good"), "SERVING");
  EXPECT_EQ(health("bad"), "NOT_SERVING");  // the model's own name says it
  EXPECT_EQ(http_call(http, "GET", "/v2/health/ready").status, 200);
  EXPECT_EQ(http_call(http, "GET", "/v2/health/live").status, 200);
  EXPECT_TRUE(oip_ready());
  EXPECT_EQ(http_call(http, "GET", "/v2/models/bad/ready").status, 503);
  v1::ForecastResponse response;
  ASSERT_TRUE(call(harness, patchtst_request("good", 5), &response).ok());

  // The served model gone too: nothing left to serve, so not ready; still live.
  fs::remove_all(repository.root() / "good");
  harness.server().poll_repository();
  EXPECT_EQ(health(""), "NOT_SERVING");
  EXPECT_EQ(http_call(http, "GET", "/v2/health/ready").status, 503);
  EXPECT_FALSE(oip_ready());
  EXPECT_EQ(http_call(http, "GET", "/v2/health/live").status, 200);
}

// Latency percentiles of one phase, in milliseconds.
std::string percentiles(std::vector<double> ms) {
  if (ms.empty()) return "no calls";
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
  };
  return std::to_string(ms.size()) + " calls, p50 " + std::to_string(at(0.5)) + " ms, p99 " +
         std::to_string(at(0.99)) + " ms, max " + std::to_string(ms.back()) + " ms";
}

// The bundled PatchTST's weights with its forecast head's bias raised by `shift`. A change
// of the scaler would not do: the instance norm cancels any affine change of the input and
// the unscaling undoes it, so such versions differ by float rounding only. The head's bias
// lands after the normalisation: the forecast moves by `shift` times the window's std.
model::StateDict bundled_weights_with_head_shift(double shift) {
  static const model::StateDict bundled =
      model::read_checkpoint_file((kBundled / "patchtst_etth1.pt").string());
  model::StateDict weights;
  bool shifted = false;
  for (const auto& [name, tensor] : bundled) {
    at::Tensor copy = tensor.clone();
    if (name == "head.linear.bias") {
      copy += shift;
      shifted = true;
    }
    weights.emplace_back(name, copy);
  }
  if (!shifted) throw std::runtime_error("the bundled checkpoint has no head.linear.bias");
  return weights;
}

// The sample lines of `metrics` that name model `model` (a model= or name= label) with a
// version= label other than `serving`: series an unloaded version left behind.
std::vector<std::string> series_of_other_versions(const std::string& metrics,
                                                  const std::string& model,
                                                  const std::string& serving) {
  static const std::regex kLabel(R"re((\w+)="([^"]*)")re");
  std::vector<std::string> stale;
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t open = line.find('{');
    const std::size_t close = line.find('}');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close < open) continue;
    const std::string text = line.substr(open + 1, close - open - 1);
    std::map<std::string, std::string> labels;
    for (std::sregex_iterator it(text.begin(), text.end(), kLabel), end; it != end; ++it) {
      labels[(*it)[1]] = (*it)[2];
    }
    const auto named = [&](const char* label) {
      const auto it = labels.find(label);
      return it != labels.end() && it->second == model;
    };
    const auto version = labels.find("version");
    if ((named("model") || named("name")) && version != labels.end() &&
        version->second != serving) {
      stale.push_back(line);
    }
  }
  return stale;
}

TEST(RepositoryManager, SwapUnderLoadLosesNoCallAndEachAnswerIsThatOfTheVersionItNames) {
  TempRepository repository;
  // Version v of "a" has its head's bias raised by 0.1 v: every version answers differently.
  auto add_a = [&](int version) {
    return repository.add_weights("a", version, "patchtst_etth1",
                                  bundled_weights_with_head_shift(0.1 * version));
  };
  std::map<int, fs::path> versions_of_a = {{1, add_a(1)}};
  const fs::path b = repository.add("b", 1, "itransformer_etth1");
  ServerHarness harness(repository_config(repository.root()));

  const v1::ForecastRequest request_a = patchtst_request("a", 11);
  const v1::ForecastRequest request_b = itransformer_request("b", 12);
  struct Answer {
    std::string model, version, forecast;
  };
  std::mutex mutex;  // guards everything the clients record below
  std::vector<Answer> answers;
  std::vector<std::string> failures;
  std::vector<std::string> went_back;  // a client answered by an older "a" than before
  std::set<int> versions_answered;     // of "a"
  std::condition_variable version_answered;
  int calls_across_a_swap = 0;  // in flight while a new version took over
  std::atomic<int> swaps_done{0};
  std::atomic<bool> swapping{false};
  std::atomic<bool> stop{false};
  std::vector<double> steady_ms, swap_ms;
  constexpr int kClients = 16;
  constexpr int kSteadyCallsPerClient = 6;
  std::mutex steady_mutex;
  int steady_left = kClients;  // guarded by steady_mutex
  std::condition_variable steady_done;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      int last_version_of_a = 0;
      for (int i = 0; !stop.load(); ++i) {
        if (i == kSteadyCallsPerClient) {
          std::lock_guard<std::mutex> lock(steady_mutex);  // the waiter's: no lost wake-up
          if (--steady_left == 0) steady_done.notify_all();
        }
        const v1::ForecastRequest& request = (c + i) % 2 ? request_a : request_b;
        const bool during_swaps = swapping.load();
        v1::ForecastResponse response;
        const int swaps_before = swaps_done.load();
        const auto start = std::chrono::steady_clock::now();
        const grpc::Status status = call(harness, request, &response);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const int swaps_after = swaps_done.load();
        std::lock_guard<std::mutex> lock(mutex);
        if (!status.ok()) {
          failures.push_back(request.model() + ": " + status.error_message());
          continue;
        }
        if (swaps_after > swaps_before) ++calls_across_a_swap;
        if (i > 0) (during_swaps ? swap_ms : steady_ms).push_back(ms);  // 0: warm-up
        answers.push_back({response.model_name(), response.model_version(),
                           response.forecast().SerializeAsString()});
        if (response.model_name() != "a") continue;
        // A client's calls follow one another: once a version has answered it, the
        // versions it meets next can only be that one or newer ones.
        const int version = std::stoi(response.model_version());
        if (version < last_version_of_a) {
          went_back.push_back("client " + std::to_string(c) + ": version " +
                              std::to_string(version) + " after " +
                              std::to_string(last_version_of_a));
        }
        last_version_of_a = std::max(last_version_of_a, version);
        if (versions_answered.insert(version).second) version_answered.notify_all();
      }
    });
  }
  {
    std::unique_lock<std::mutex> lock(steady_mutex);
    EXPECT_TRUE(
        steady_done.wait_for(lock, std::chrono::seconds(120), [&] { return steady_left <= 0; }))
        << steady_left << " clients short of their steady calls after 120 s";
  }
  // Each swap waits (bounded) until the load has met the version it put in, so every
  // version serves calls while the next one loads, however slow the machine.
  auto answered_by = [&](int version) {
    std::unique_lock<std::mutex> lock(mutex);
    return version_answered.wait_for(lock, std::chrono::seconds(60),
                                     [&] { return versions_answered.count(version) > 0; });
  };
  swapping = true;
  std::string corrupt_reason;
  for (int version = 2; version <= 12; ++version) {
    if (version == 7) {  // once a corrupt one: its checkpoint cut short
      const fs::path bad = repository.add("a", 7, "patchtst_etth1");
      fs::resize_file(bad / "model.pt", 4096);
      harness.server().poll_repository();
      const v1::ListModelsResponse listed = list_models(harness);
      for (const v1::ListedModel& model : listed.models()) {
        if (model.name() != "a") continue;
        EXPECT_EQ(model.default_version(), "6");  // the previous one keeps serving
        for (const v1::ModelVersionStatus& status : model.versions())
          if (status.version() == "7") corrupt_reason = status.reason();
      }
      continue;
    }
    versions_of_a[version] = add_a(version);
    harness.server().poll_repository();
    swaps_done.fetch_add(1);
    if (!answered_by(version)) {
      ADD_FAILURE() << "no call answered by version " << version << " within 60 s of its load";
      break;
    }
  }
  swapping = false;
  stop = true;
  for (std::thread& client : clients) client.join();

  EXPECT_TRUE(failures.empty()) << failures.size() << " failed calls, first: "
                                << (failures.empty() ? "" : failures.front());
  EXPECT_TRUE(went_back.empty()) << went_back.size() << " answers from a version older than "
                                 << "the client's previous one, first: "
                                 << (went_back.empty() ? "" : went_back.front());
  // Swaps happened while calls ran: calls were in flight as a new version took over.
  EXPECT_GT(calls_across_a_swap, 0);
  std::set<int> loaded;
  for (const auto& [version, folder] : versions_of_a) loaded.insert(version);
  EXPECT_EQ(versions_answered, loaded) << "each loaded version of a answers during the load";
  EXPECT_NE(corrupt_reason.find((repository.root() / "a" / "7").string()), std::string::npos)
      << corrupt_reason;
  std::cout << "[ figures  ] steady (concurrency 16, two models): " << percentiles(steady_ms)
            << "\n[ figures  ] during 11 swaps:                    " << percentiles(swap_ms)
            << "\n[ figures  ] calls in flight across a swap: " << calls_across_a_swap
            << "\n[ figures  ] corrupt version refused: " << corrupt_reason << "\n";

  // Each version's answer, served alone; the versions' answers differ for real (by far
  // more than rounding: a head shift of 0.1 moves the forecast by about 0.1 x its std).
  std::map<std::string, std::string> expected;
  expected["b/1"] = alone(b, {request_b})[0];
  std::map<int, std::vector<float>> forecast_of_a;
  for (const auto& [version, folder] : versions_of_a) {
    const std::string bytes = alone(folder, {request_a})[0];
    expected["a/" + std::to_string(version)] = bytes;
    v1::Tensor forecast;
    ASSERT_TRUE(forecast.ParseFromString(bytes)) << "version " << version;
    forecast_of_a[version] = floats(forecast);
  }
  for (auto it = forecast_of_a.begin(); it != forecast_of_a.end(); ++it) {
    for (auto other = std::next(it); other != forecast_of_a.end(); ++other) {
      ASSERT_EQ(it->second.size(), other->second.size());
      ASSERT_FALSE(it->second.empty());
      float apart = 0;
      for (std::size_t k = 0; k < it->second.size(); ++k) {
        apart = std::max(apart, std::abs(it->second[k] - other->second[k]));
      }
      EXPECT_GT(apart, 0.01f) << "versions " << it->first << " and " << other->first
                              << " answer alike";
    }
  }
  // Every answer equals the answer of the version it names, served alone.
  EXPECT_TRUE(std::any_of(answers.begin(), answers.end(),
                          [](const Answer& answer) { return answer.model == "b"; }));
  for (const Answer& answer : answers) {
    const auto want = expected.find(answer.model + "/" + answer.version);
    ASSERT_NE(want, expected.end()) << answer.model << " version " << answer.version;
    ASSERT_EQ(answer.forecast, want->second) << answer.model << " version " << answer.version;
  }
  EXPECT_EQ(list_models(harness).models(0).default_version(), "12");
  // Metrics: the serving versions only (no series of any unloaded version), one failure.
  const std::string metrics = harness.scrape();
  for (const auto& [model, serving] : {std::pair{"a", "12"}, std::pair{"b", "1"}}) {
    const std::vector<std::string> stale = series_of_other_versions(metrics, model, serving);
    EXPECT_TRUE(stale.empty()) << stale.size() << " series of " << model
                               << "'s unloaded versions, first: "
                               << (stale.empty() ? "" : stale.front());
  }
  EXPECT_EQ(
      metric_value(metrics, "tsserve_model_state{model=\"a\",state=\"ready\",version=\"12\"}"), 1);
  EXPECT_EQ(metric_value(metrics, "tsserve_model_load_failures_total{model=\"a\"}"), 1);
  EXPECT_GT(metric_value(metrics, "tsserve_model_resident_bytes{model=\"b\",version=\"1\"}"), 0);
}

}  // namespace
// Two models get their own request and batch series; rolling a version unloads the old
// one, whose series leave /metrics while the other model's stay.
TEST(RepositoryManager, EachModelHasItsOwnSeriesAndAnUnloadedVersionsSeriesLeave) {
  TempRepository repository;
  repository.add("a", 1, "patchtst_etth1");
  repository.add("b", 1, "itransformer_etth1");
  ServerHarness harness(repository_config(repository.root()));
  v1::ForecastResponse response;
  ASSERT_TRUE(call(harness, patchtst_request("a", 1), &response).ok());
  ASSERT_TRUE(call(harness, patchtst_request("a", 2), &response).ok());
  ASSERT_TRUE(call(harness, itransformer_request("b", 3), &response).ok());
  EXPECT_EQ(call(harness, patchtst_request("no-such-model", 4), &response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  std::string metrics = harness.scrape();
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_requests_total{code=\"OK\",method=\"Forecast\","
                         "model=\"a\",protocol=\"v1\"}"),
            2);
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_requests_total{code=\"OK\",method=\"Forecast\","
                         "model=\"b\",protocol=\"v1\"}"),
            1);
  // The unknown name is counted under model="", never under the caller's string.
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_requests_total{code=\"NOT_FOUND\",method=\"Forecast\","
                         "model=\"\",protocol=\"v1\"}"),
            1);
  EXPECT_EQ(metrics.find("no-such-model"), std::string::npos);
  EXPECT_EQ(metric_value(metrics, "tsserve_inference_rows_total{model=\"a\",version=\"1\"}"), 14);
  EXPECT_EQ(metric_value(metrics, "tsserve_inference_rows_total{model=\"b\",version=\"1\"}"), 7);
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_request_duration_seconds_count{method=\"Forecast\","
                         "model=\"b\",protocol=\"v1\"}"),
            1);
  EXPECT_EQ(metric_value(metrics, "tsserve_queue_depth_rows{model=\"a\",version=\"1\"}"), 0);
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_model_info{attention=\"full\",device=\"cpu\","
                         "name=\"a\",version=\"1\"}"),
            1);
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_model_info{attention=\"full\",device=\"cpu\","
                         "name=\"b\",version=\"1\"}"),
            1);

  repository.add("a", 2, "patchtst_etth1");
  harness.server().poll_repository();  // serves a/2, unloads a/1
  ASSERT_TRUE(call(harness, patchtst_request("a", 5), &response).ok());
  ASSERT_EQ(response.model_version(), "2");
  metrics = harness.scrape();
  for (const char* family :
       {"tsserve_queue_wait_seconds_count", "tsserve_compute_seconds_count",
        "tsserve_batch_rows_count", "tsserve_inference_rows_total", "tsserve_queue_depth_rows"}) {
    EXPECT_FALSE(metric_value(metrics, std::string(family) + "{model=\"a\",version=\"1\"}"))
        << family << " of the unloaded version";
    EXPECT_GE(metric_value(metrics, std::string(family) + "{model=\"a\",version=\"2\"}"), 0)
        << family;
    EXPECT_GE(metric_value(metrics, std::string(family) + "{model=\"b\",version=\"1\"}"), 0)
        << family;
  }
  EXPECT_EQ(metrics.find("name=\"a\",version=\"1\""), std::string::npos);
  EXPECT_EQ(metric_value(metrics, "tsserve_inference_rows_total{model=\"a\",version=\"2\"}"), 7);
  // Model a is still served (by version 2): its request series go on counting.
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_requests_total{code=\"OK\",method=\"Forecast\","
                         "model=\"a\",protocol=\"v1\"}"),
            3);
}

namespace {

// model.json for `name`, beside its versions.
void write_model_json(const TempRepository& repository, const std::string& name,
                      const json& settings) {
  fs::create_directories(repository.root() / name);
  std::ofstream(repository.root() / name / "model.json") << settings.dump();
}

v1::ModelInfo served_info(ServerHarness& harness, const std::string& model) {
  v1::GetModelInfoRequest request;
  request.set_model(model);
  v1::GetModelInfoResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.stub().GetModelInfo(&context, request, &response).ok()) << model;
  return response.info();
}

v1::ForecastRequest request_of_rows(const std::string& model, int64_t rows) {
  v1::ForecastRequest request = forecast_request(rows, 336, static_cast<uint64_t>(rows));
  request.set_model(model);
  return request;
}

}  // namespace

// The version owns its request rules: a model.json max_batch_rows above the server's lets
// its requests carry more rows than the server default, and one below refuses them at
// decode with the model's own limit, as GetModelInfo says.
// Live series over a repository: a new key must name its model when several are served;
// a key then follows that model (another is refused naming it) and its newest version,
// whose window is cut to the new seq_len when a version of another seq_len is published;
// a key pinned to a version that is no longer served is refused naming the version.
v1::ObserveRequest observe_points(const std::string& key, int64_t first, int64_t count,
                                  const std::string& model = "", bool forecast = false) {
  v1::ObserveRequest request;
  request.set_series_key(key);
  request.set_model(model);
  for (int64_t t = first; t < first + count; ++t) {
    request.add_timestamps(1'700'000'000 + 3600 * t);
    for (int n = 0; n < 7; ++n)
      request.add_values(10.0 + n + std::sin(0.1 * static_cast<double>(t)));
  }
  request.set_forecast(forecast);
  return request;
}

grpc::Status observe(ServerHarness& harness, const v1::ObserveRequest& request,
                     v1::ObserveResponse* response) {
  grpc::ClientContext context;
  return harness.stub().Observe(&context, request, response);
}

TEST(RepositoryManager, ALiveSeriesFollowsItsModelAndNewestVersionAcrossASeqLenChange) {
  const fs::path etth2 = etth2_model_dir();
  if (std::ifstream skipped{etth2 / "patchtst_etth2.skipped"}) {
    std::string reason;
    std::getline(skipped, reason);
    GTEST_SKIP() << reason;
  }
  TempRepository repository;
  repository.add("a", 1, "patchtst_etth1");
  repository.add("b", 1, "patchtst_etth1");
  ServerHarness harness(repository_config(repository.root()));
  v1::ObserveResponse response;

  grpc::Status status = observe(harness, observe_points("k", 0, 3), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("model", 0), 0u) << status.error_message();

  ASSERT_TRUE(observe(harness, observe_points("k", 0, 340, "a", true), &response).ok());
  EXPECT_EQ(response.model_version(), "1");
  EXPECT_EQ(response.window_points(), 336);
  EXPECT_EQ(response.forecast_code(), 0) << response.forecast_message();
  status = observe(harness, observe_points("k", 340, 1, "b"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("\"a\""), std::string::npos) << status.error_message();

  // A key pinned to version 1.
  v1::ObserveRequest pinned = observe_points("p", 0, 2, "a");
  pinned.set_model_version("1");
  ASSERT_TRUE(observe(harness, pinned, &response).ok());

  // Version 2 of "a" reads 96 steps (the ETTh2 model): the key follows it and its window
  // is cut to 96 at its next call, enough for a forecast.
  repository.add_from(etth2, "a", 2, "patchtst_etth2");
  harness.server().poll_repository();
  status = observe(harness, observe_points("k", 340, 1, "", true), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.model_name(), "a");
  EXPECT_EQ(response.model_version(), "2");
  EXPECT_EQ(response.window_points(), 96);
  EXPECT_EQ(response.forecast_code(), 0) << response.forecast_message();
  // The pinned key's version left with the swap (the repository serves the newest): its
  // calls are refused naming the version, and nothing is appended meanwhile.
  status = observe(harness, observe_points("p", 2, 1), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message().rfind("model_version", 0), 0u) << status.error_message();
}

// The live series' counters (tsserve_observed_*) of an unloaded version leave /metrics as
// its request and accuracy series do: a key observed on a/1 counts there, and once a/2
// replaces a/1 no tsserve_observed_* sample names version 1.
TEST(RepositoryManager, AnUnloadedVersionsObservedSeriesLeave) {
  TempRepository repository;
  repository.add("a", 1, "patchtst_etth1");
  ServerHarness harness(repository_config(repository.root()));
  v1::ObserveResponse response;
  // A window and a forecast, then points the forecast is checked against.
  ASSERT_TRUE(observe(harness, observe_points("k", 0, 336, "a", true), &response).ok());
  ASSERT_TRUE(observe(harness, observe_points("k", 336, 4, "a", true), &response).ok());
  std::string metrics = harness.scrape();
  ASSERT_GT(metric_value(metrics, "tsserve_observed_points_total{model=\"a\",version=\"1\"}")
                .value_or(0),
            0)
      << "nothing counted before the unload: the check below would prove nothing";

  repository.add("a", 2, "patchtst_etth1");
  harness.server().poll_repository();  // serves a/2, unloads a/1
  ASSERT_TRUE(observe(harness, observe_points("k", 340, 1, "a"), &response).ok());
  ASSERT_EQ(response.model_version(), "2");
  metrics = harness.scrape();
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("tsserve_observed_", 0) != 0) continue;
    EXPECT_EQ(line.find("version=\"1\""), std::string::npos)
        << "a series of the unloaded version stayed: " << line;
  }
  EXPECT_GT(metric_value(metrics, "tsserve_observed_points_total{model=\"a\",version=\"2\"}")
                .value_or(0),
            0);
}

TEST(RepositoryManager, AModelsMaxBatchRowsIsTheMostRowsItsRequestsMayCarry) {
  TempRepository repository;
  repository.add("wide", 1, "patchtst_etth1");
  repository.add("narrow", 1, "patchtst_etth1");
  write_model_json(repository, "wide", {{"max_batch_rows", 16}});
  write_model_json(repository, "narrow", {{"max_batch_rows", 4}});
  ServerConfig config = repository_config(repository.root());
  config.batching.max_batch_rows = 10;
  ServerHarness harness(config);

  EXPECT_EQ(served_info(harness, "wide").max_batch_rows(), 16);
  EXPECT_EQ(served_info(harness, "narrow").max_batch_rows(), 4);

  v1::ForecastResponse response;
  const grpc::Status wide = call(harness, request_of_rows("wide", 12), &response);
  EXPECT_TRUE(wide.ok()) << wide.error_message();
  EXPECT_EQ(response.forecast().shape(0), 12);

  const grpc::Status narrow = call(harness, request_of_rows("narrow", 7), &response);
  EXPECT_EQ(narrow.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(narrow.error_message().find("at most 4 (max_batch_rows"), std::string::npos)
      << narrow.error_message();
  const grpc::Status fits = call(harness, request_of_rows("narrow", 4), &response);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

// LibTorch's and OpenBLAS's pools are process-wide: a model.json "threads" other than the
// server's is refused with the reason (never silently applied to every model), and the
// same count is accepted.
TEST(RepositoryManager, AModelsThreadsOtherThanTheServersAreRefusedWithTheReason) {
  TempRepository repository;
  repository.add("same", 1, "patchtst_etth1");
  repository.add("other", 1, "patchtst_etth1");
  write_model_json(repository, "same", {{"threads", 1}});
  write_model_json(repository, "other", {{"threads", 2}});
  ServerHarness harness(repository_config(repository.root()));  // --threads 1

  v1::ForecastResponse response;
  EXPECT_TRUE(call(harness, request_of_rows("same", 7), &response).ok());
  EXPECT_EQ(served_info(harness, "same").intra_op_threads(), 1);
  EXPECT_FALSE(call(harness, request_of_rows("other", 7), &response).ok());

  std::string reasons;
  const v1::ListModelsResponse listed = list_models(harness);
  for (const auto& model : listed.models()) {
    for (const auto& version : model.versions()) reasons += version.reason() + "\n";
  }
  EXPECT_NE(reasons.find("threads 2 differs from the server's 1"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("process-wide"), std::string::npos) << reasons;
}

}  // namespace tsserve::server::testing
