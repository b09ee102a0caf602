// The HTTP door's judgement on a request's headers (http_admission.h), rule by rule: the
// routes open without the token and every other one closed, a simple cross-origin POST
// refused for its media type or its Origin, the server's own origin and the CORS list
// allowed, repository control off by default, and the Host allow-list.

#include "server/http/http_admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string>
#include <utility>
#include <vector>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;

HttpRequest head_of(std::string method, std::string path,
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpRequest head;
  head.method = std::move(method);
  head.path = std::move(path);
  head.headers = std::move(headers);
  head.headers.emplace_back("host", "tsserve.local:8000");
  return head;
}

const std::pair<std::string, std::string> kJson{"content-type", "application/json"};
const std::pair<std::string, std::string> kToken{"authorization", "Bearer s3cret"};

struct Door {
  explicit Door(bool with_token, HttpAdmissionOptions options = {},
                const std::string& cors_origins = "")
      : token("s3cret"), cors(cors_origins), metrics(registry) {
    if (with_token) service.auth = &token;
    admission = std::make_unique<HttpAdmission>(service, cors, std::move(options), &metrics);
  }
  // The status of the refusal, or 0 when admitted.
  int status(const HttpRequest& head) const {
    const auto refusal = admission->admit(head);
    return refusal ? refusal->status : 0;
  }
  std::string message(const HttpRequest& head) const {
    const auto refusal = admission->admit(head);
    return refusal ? refusal->body : "";
  }

  BearerTokenCheck token;
  ServiceContext service;
  CorsPolicy cors;
  prometheus::Registry registry;
  HttpDoorMetrics metrics;
  std::unique_ptr<HttpAdmission> admission;
};

TEST(HttpAdmissionTest, OnlyHealthTheDocumentTheConsoleAndPreflightsAreOpenWithoutTheToken) {
  const Door door(/*with_token=*/true);
  EXPECT_EQ(door.status(head_of("GET", "/v2/health/live")), 0);
  EXPECT_EQ(door.status(head_of("GET", "/v2/health/ready")), 0);
  EXPECT_EQ(door.status(head_of("GET", "/openapi.json")), 0);
  EXPECT_EQ(door.status(head_of("GET", "/console/")), 0);
  EXPECT_EQ(door.status(head_of("HEAD", "/console/console.js")), 0);
  EXPECT_EQ(
      door.status(head_of("OPTIONS", "/v1/actuals", {{"access-control-request-method", "POST"}})),
      0);
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v2"},
           {"GET", "/v2/models/m"},
           {"GET", "/v2/models/m/ready"},
           {"POST", "/v2/models/m/infer"},
           {"POST", "/v2/repository/index"},
           {"POST", "/v2/repository/models/m/unload"},
           {"GET", "/v1/models"},
           {"GET", "/v1/models/m"},
           {"POST", "/v1/models/m/forecast"},
           {"POST", "/v1/actuals"},
           {"GET", "/v1/accuracy"},
           {"POST", "/v1/series/k/observe"},
           {"GET", "/nowhere"},
           {"POST", "/console/"},
           {"GET", "/v2/health/%6Cive/x"},
       }) {
    EXPECT_EQ(door.status(head_of(method, path, {kJson})), 401) << method << " " << path;
    EXPECT_EQ(door.status(head_of(method, path, {kJson, kToken})), 0) << method << " " << path;
  }
}

TEST(HttpAdmissionTest, APostMustBeJson) {
  const Door door(/*with_token=*/false);
  EXPECT_EQ(door.status(head_of("POST", "/v1/actuals")), 415);
  EXPECT_THAT(door.message(head_of("POST", "/v1/actuals")),
              HasSubstr("content-type: \\\"\\\"; a POST takes application/json"));
  EXPECT_EQ(door.status(head_of("POST", "/v1/actuals", {{"content-type", "text/plain"}})), 415);
  EXPECT_EQ(door.status(head_of("POST", "/v1/actuals",
                                {{"content-type", "application/x-www-form-urlencoded"}})),
            415);
  EXPECT_EQ(door.status(head_of("POST", "/v1/actuals",
                                {{"content-type", "Application/JSON; charset=utf-8"}})),
            0);
  // The binary tensor extension, on an infer only.
  const std::pair<std::string, std::string> binary{"content-type", "application/octet-stream"};
  const std::pair<std::string, std::string> header_length{"inference-header-content-length", "9"};
  EXPECT_EQ(door.status(head_of("POST", "/v2/models/m/infer", {binary, header_length})), 0);
  EXPECT_EQ(door.status(head_of("POST", "/v2/models/m/infer", {binary})), 415);
  EXPECT_EQ(door.status(head_of("POST", "/v1/actuals", {binary, header_length})), 415);
  // Reading needs no media type.
  EXPECT_EQ(door.status(head_of("GET", "/v1/models")), 0);
}

TEST(HttpAdmissionTest, AStateChangeFromAnotherOriginIsRefusedUnlessCorsAllowsIt) {
  const Door door(/*with_token=*/false, {}, "https://app.example");
  const auto post_from = [](const std::string& origin) {
    return head_of("POST", "/v1/actuals", {kJson, {"origin", origin}});
  };
  EXPECT_EQ(door.status(post_from("https://evil.example")), 403);
  EXPECT_THAT(door.message(post_from("https://evil.example")),
              HasSubstr("may not change this server's state"));
  EXPECT_EQ(door.status(post_from("null")), 403);
  EXPECT_EQ(door.status(post_from("https://app.example")), 0);
  // The console, served by this server, posts with its own origin.
  EXPECT_EQ(door.status(post_from("http://tsserve.local:8000")), 0);
  // Reading from another origin is the browser's to withhold (no CORS headers).
  EXPECT_EQ(door.status(head_of("GET", "/v1/models", {{"origin", "https://evil.example"}})), 0);
}

TEST(HttpAdmissionTest, RepositoryControlIsOffUnlessEnabledOrATokenIsSet) {
  const auto unload = head_of("POST", "/v2/repository/models/m/unload", {kJson});
  const auto load = head_of("POST", "/v2/repository/models/m/load", {kJson});
  const Door off(/*with_token=*/false);
  EXPECT_EQ(off.status(unload), 403);
  EXPECT_EQ(off.status(load), 403);
  EXPECT_THAT(off.message(load), HasSubstr("--http-repository-control"));
  EXPECT_EQ(off.status(head_of("POST", "/v2/repository/index", {kJson})), 0);
  const Door enabled(/*with_token=*/false, {/*repository_control=*/true, ""});
  EXPECT_EQ(enabled.status(unload), 0);
  const Door with_token(/*with_token=*/true);
  auto authorised = unload;
  authorised.headers.push_back(kToken);
  EXPECT_EQ(with_token.status(authorised), 0);
}

TEST(HttpAdmissionTest, TheHostAllowListRefusesOtherNamesButNotHealthChecks) {
  const Door door(/*with_token=*/false, {false, "tsserve.local, 10.0.0.7"});
  EXPECT_EQ(door.status(head_of("GET", "/v1/models")), 0);  // tsserve.local:8000
  HttpRequest rebound = head_of("GET", "/v1/models");
  rebound.headers.back().second = "attacker.example:8000";
  EXPECT_EQ(door.status(rebound), 403);
  EXPECT_THAT(door.message(rebound), HasSubstr("--http-allowed-hosts"));
  HttpRequest probe = head_of("GET", "/v2/health/ready");
  probe.headers.back().second = "10.1.2.3:8000";
  EXPECT_EQ(door.status(probe), 0);
  HttpRequest by_address = head_of("GET", "/v1/models");
  by_address.headers.back().second = "10.0.0.7";
  EXPECT_EQ(door.status(by_address), 0);
}

TEST(HttpAdmissionTest, EachRefusalIsCountedByReason) {
  const Door door(/*with_token=*/true);
  door.status(head_of("GET", "/v1/models"));
  door.status(head_of("POST", "/v1/actuals", {kToken}));
  const std::string exposition = prometheus::TextSerializer().Serialize(door.registry.Collect());
  EXPECT_THAT(exposition, HasSubstr("tsserve_http_refused_total{reason=\"unauthenticated\"} 1"));
  EXPECT_THAT(exposition, HasSubstr("tsserve_http_refused_total{reason=\"media_type\"} 1"));
  EXPECT_THAT(exposition, HasSubstr("tsserve_http_refused_total{reason=\"origin\"} 0"));
}

}  // namespace
}  // namespace tsserve::server
