// The console's files on the real HTTP door: served from the binary with the strict
// Content-Security-Policy, /console redirected to /console/, the sample CSV only when one
// is given, unknown files and other methods refused with JSON, all of it off with
// --http-console=false. (What the page does is tests/e2e/console's, in a browser.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "http_test_support.h"

namespace tsserve::server::testing {
namespace {

using ::testing::HasSubstr;

TEST(ConsoleRoutes, ServesThePageAndItsFilesUnderAStrictPolicy) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  const HttpReply page = http_call(port, "GET", "/console/");
  ASSERT_EQ(page.status, 200);
  EXPECT_THAT(page.header("content-type").value_or(""), HasSubstr("text/html"));
  EXPECT_THAT(page.body, HasSubstr(R"(<script type="module" src="console.js"></script>)"));
  const std::string policy = page.header("content-security-policy").value_or("");
  EXPECT_THAT(policy, HasSubstr("script-src 'self'"));
  EXPECT_THAT(policy, HasSubstr("default-src 'none'"));
  EXPECT_THAT(policy, HasSubstr("frame-ancestors 'none'"));
  EXPECT_THAT(policy, ::testing::Not(HasSubstr("unsafe-inline")));
  EXPECT_EQ(page.header("x-content-type-options").value_or(""), "nosniff");
  // No inline script: every <script> names its file.
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr("<script>")));

  for (const char* file : {"console.js", "api.js", "chart.js", "attention_view.js"}) {
    const HttpReply script = http_call(port, "GET", std::string("/console/") + file);
    EXPECT_EQ(script.status, 200) << file;
    EXPECT_THAT(script.header("content-type").value_or(""), HasSubstr("text/javascript")) << file;
  }
  const HttpReply style = http_call(port, "GET", "/console/console.css");
  EXPECT_THAT(style.header("content-type").value_or(""), HasSubstr("text/css"));

  const HttpReply bare = http_call(port, "GET", "/console");
  EXPECT_EQ(bare.status, 301);
  EXPECT_EQ(bare.header("location").value_or(""), "/console/");

  const HttpReply unknown = http_call(port, "GET", "/console/secrets.txt");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(json_body(unknown)["error"].get<std::string>(),
              HasSubstr("not one of the console's files"));
  const HttpReply posted = http_call(port, "POST", "/console/", "{}", kJsonHeaders);
  EXPECT_EQ(posted.status, 405);
  EXPECT_EQ(posted.header("allow").value_or(""), "GET, HEAD");
  const HttpReply no_sample = http_call(port, "GET", "/console/sample.csv");
  EXPECT_EQ(no_sample.status, 404);
  EXPECT_THAT(json_body(no_sample)["error"].get<std::string>(), HasSubstr("--http-console-sample"));
}

TEST(ConsoleRoutes, ServesTheSampleFileAsItIs) {
  const std::string path = ::testing::TempDir() + "/console_sample.csv";
  const std::string text = "date,OT\n2016-07-01 00:00:00,30.5\n2016-07-01 01:00:00,27.8\n";
  std::ofstream(path) << text;
  ServerConfig config = test_config();
  config.server.http_console_sample = path;
  ServerHarness harness(config);
  const HttpReply sample = http_call(harness.server().http_port(), "GET", "/console/sample.csv");
  ASSERT_EQ(sample.status, 200);
  EXPECT_EQ(sample.body, text);
  EXPECT_THAT(sample.header("content-type").value_or(""), HasSubstr("text/csv"));
  std::remove(path.c_str());
  const HttpReply gone = http_call(harness.server().http_port(), "GET", "/console/sample.csv");
  EXPECT_EQ(gone.status, 404);
  EXPECT_THAT(json_body(gone)["error"].get<std::string>(), HasSubstr("cannot be read"));
}

TEST(ConsoleRoutes, AreOffWithTheFlag) {
  ServerConfig config = test_config();
  config.server.http_console = false;
  ServerHarness harness(config);
  const HttpReply page = http_call(harness.server().http_port(), "GET", "/console/");
  EXPECT_EQ(page.status, 404);
  EXPECT_THAT(json_body(page)["error"].get<std::string>(), HasSubstr("--http-console=false"));
  // The APIs serve on.
  EXPECT_EQ(http_call(harness.server().http_port(), "GET", "/v1/models").status, 200);
}

}  // namespace
}  // namespace tsserve::server::testing
