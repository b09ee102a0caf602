// tsserve's HTTP server on loopback with a plain-socket client that controls every byte:
// keep-alive, answers given later from another thread, and each limit answered with a
// JSON error before the handler sees the request (a body over the limit before it is
// sent, a header block over the limit, a client too slow to finish its request, text that
// is not HTTP), a drain, and answers owed after the server is gone.

#include "server/httpd/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "raw_http_client.h"

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using tsserve::testing::RawHttpConnection;

HttpServerOptions loopback_options() {
  HttpServerOptions options;
  options.address = "127.0.0.1:0";
  options.threads = 2;
  options.max_body_bytes = 1000;
  options.max_header_bytes = 2048;
  options.request_timeout = std::chrono::milliseconds(500);
  return options;
}

// Answers "METHOD PATH QUERY BODY" at once, counting the requests it saw.
struct EchoHandler {
  std::atomic<int> seen{0};
  HttpHandler handler() {
    return [this](HttpRequest&& request, HttpResponder respond) {
      ++seen;
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = request.method + " " + request.path + " " + request.query + " " +
                      request.body + " " + std::string(request.header("x-probe").value_or("-"));
      respond(std::move(response));
    };
  }
};

std::string post_request(const std::string& path, const std::string& body,
                         const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extra + "\r\n" + body;
}

TEST(HttpServerTest, AnswersSeveralRequestsOnOneKeptAliveConnection) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send(post_request("/a?x=1", "one", "X-Probe: p\r\n")));
  auto first = connection.read_reply();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->body, "POST /a x=1 one p");
  ASSERT_TRUE(connection.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto second = connection.read_reply();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "GET /b   -");
  EXPECT_EQ(echo.seen, 2);
}

TEST(HttpServerTest, AnAnswerMayComeLaterFromAnotherThread) {
  std::promise<HttpResponder> held;
  HttpServer server(loopback_options(), [&](HttpRequest&&, HttpResponder respond) {
    held.set_value(std::move(respond));
  });
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send(post_request("/later", "x")));
  std::thread worker([&] {
    HttpResponse response;
    response.body = R"({"done":true})";
    held.get_future().get()(std::move(response));
  });
  auto reply = connection.read_reply();
  worker.join();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, R"({"done":true})");
  EXPECT_EQ(reply->header("content-type"), "application/json");
}

TEST(HttpServerTest, AClientThatLeavesBeforeItsAnswerIsReportedGone) {
  std::promise<void> gone;
  std::promise<HttpResponder> held;
  HttpServer server(loopback_options(), [&](HttpRequest&& request, HttpResponder respond) {
    ASSERT_NE(request.client, nullptr);
    request.client->on_gone([&gone] { gone.set_value(); });
    held.set_value(std::move(respond));
  });
  {
    RawHttpConnection connection(server.port());
    ASSERT_TRUE(connection.send(post_request("/slow", "x")));
    held.get_future().wait();
  }  // the client closes its connection
  EXPECT_EQ(gone.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
}

TEST(HttpServerTest, AClientThatStaysOrSendsItsNextRequestIsNotReportedGone) {
  std::atomic<int> gone{0};
  std::promise<HttpResponder> held;
  HttpServer server(loopback_options(), [&](HttpRequest&& request, HttpResponder respond) {
    request.client->on_gone([&gone] { ++gone; });
    if (request.path == "/held") {
      held.set_value(std::move(respond));
    } else {
      respond(HttpResponse{});
    }
  });
  RawHttpConnection connection(server.port());
  // Answered at once, then the connection is reused: nothing is reported.
  ASSERT_TRUE(connection.send(post_request("/now", "a")));
  ASSERT_TRUE(connection.read_reply());
  // Held while the client sends its next request early (pipelined): still no report.
  ASSERT_TRUE(connection.send(post_request("/held", "b") + post_request("/now", "c")));
  held.get_future().get()(HttpResponse{});
  ASSERT_TRUE(connection.read_reply());
  ASSERT_TRUE(connection.read_reply());  // the pipelined one, answered at once
  EXPECT_EQ(gone.load(), 0);
}

TEST(HttpServerTest, RefusesABodyOverTheLimitBeforeItIsSent) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  // Only the header block: the answer must not wait for a million bytes.
  ASSERT_TRUE(connection.send("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413);
  EXPECT_THAT(reply->body, HasSubstr(R"({"error":"the body is 1000000 bytes)"));
  EXPECT_TRUE(connection.closed_by_server());
  EXPECT_EQ(echo.seen, 0);
}

TEST(HttpServerTest, RefusesAChunkedBodyThatGrowsOverTheLimit) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  const std::string chunk(900, 'x');
  ASSERT_TRUE(
      connection.send("POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "384\r\n" +
                      chunk + "\r\n384\r\n" + chunk + "\r\n"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413);
  EXPECT_EQ(echo.seen, 0);
}

TEST(HttpServerTest, RefusesAHeaderBlockOverTheLimit) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send("GET / HTTP/1.1\r\nX-Big: " + std::string(4096, 'h') + "\r\n\r\n"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 431);
  EXPECT_THAT(reply->body, HasSubstr("header block is over 2048 bytes"));
  EXPECT_EQ(echo.seen, 0);
}

TEST(HttpServerTest, CutsOffAClientThatSendsItsRequestAByteAtATime) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  const std::string request = post_request("/slow", std::string(500, 'b'));
  // A byte every 20 ms keeps the connection busy but never finishes within the 500 ms
  // deadline; the wait between bytes is for the server's answer.
  std::optional<tsserve::testing::HttpReply> reply;
  for (std::size_t i = 0; i < request.size() && !reply; ++i) {
    if (!connection.send(request.substr(i, 1))) break;
    reply = connection.read_reply(std::chrono::milliseconds(20));
  }
  if (!reply) reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 408);
  EXPECT_THAT(reply->body, HasSubstr("did not arrive whole within 500 ms"));
  EXPECT_TRUE(connection.closed_by_server());
  EXPECT_EQ(echo.seen, 0);
}

TEST(HttpServerTest, ClosesAnIdleKeptAliveConnectionQuietly) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  EXPECT_TRUE(connection.closed_by_server(std::chrono::seconds(5)));
}

TEST(HttpServerTest, RefusesTextThatIsNotHttp) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send("HELLO THERE\r\n\r\n"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_THAT(reply->body, HasSubstr("malformed HTTP request"));
  EXPECT_EQ(echo.seen, 0);
}

TEST(HttpServerTest, SaysContinueToAClientThatWaitsForIt) {
  EchoHandler echo;
  HttpServer server(loopback_options(), echo.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send(
      "POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"));
  // The interim 100 comes before the body is sent.
  auto interim = connection.read_reply();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(connection.send("body"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "POST /e  body -");
}

TEST(HttpServerTest, ADrainClosesIdleConnectionsAndEachOneAfterItsAnswer) {
  std::mutex mutex;
  std::vector<HttpResponder> owed;
  std::promise<void> arrived;
  HttpServer server(loopback_options(), [&](HttpRequest&&, HttpResponder respond) {
    std::lock_guard<std::mutex> lock(mutex);
    owed.push_back(std::move(respond));
    arrived.set_value();
  });
  RawHttpConnection idle(server.port());
  RawHttpConnection busy(server.port());
  ASSERT_TRUE(busy.send(post_request("/x", "1")));
  arrived.get_future().wait();
  server.close_connections_after_answers();
  EXPECT_TRUE(idle.closed_by_server(std::chrono::seconds(5)));
  {
    std::lock_guard<std::mutex> lock(mutex);
    owed.front()(HttpResponse{});
  }
  auto reply = busy.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->header("connection"), "close");
  EXPECT_TRUE(busy.closed_by_server());
  EXPECT_TRUE(
      server.wait_connections_closed(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
}

TEST(HttpServerTest, AnAnswerOwedAfterTheServerIsGoneIsDropped) {
  std::promise<HttpResponder> held;
  auto server = std::make_unique<HttpServer>(
      loopback_options(),
      [&](HttpRequest&&, HttpResponder respond) { held.set_value(std::move(respond)); });
  RawHttpConnection connection(server->port());
  ASSERT_TRUE(connection.send(post_request("/late", "x")));
  HttpResponder respond = held.get_future().get();
  server.reset();
  respond(HttpResponse{});  // must neither crash nor write
  EXPECT_TRUE(connection.closed_by_server(std::chrono::seconds(5)));
}

TEST(HttpServerTest, SaysWhyAnAddressCannotBeServed) {
  EchoHandler echo;
  HttpServerOptions options = loopback_options();
  options.address = "not-an-address";
  EXPECT_THROW(HttpServer(options, echo.handler()), std::runtime_error);
  options.address = "256.1.1.1:80";
  EXPECT_THROW(HttpServer(options, echo.handler()), std::runtime_error);
}

}  // namespace
}  // namespace tsserve::server
